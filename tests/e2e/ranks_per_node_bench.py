#!/usr/bin/env python3
"""Measures what `probe-compute --ranks-per-node K` changes (not a test: prints, asserts nothing).

usage: ranks_per_node_bench.py --build BUILD [--repeats 3] [--np 2] [--ks 1,2]

For jacobi2d (1024 1500 1e-9) and cg (512 1000 1e-12), built by the e2e tests under
BUILD/tests/e2e/work/<program>/cc: per K, `repeats` runs of probe-compute, and the mean time per
execution of the main compute blocks (the three with the largest total time on rank 0), as
min / median / max over the runs, the sum over all of rank 0's blocks, and what
`mpiete estimate` predicts from each machine file (one probe-program trace, the e2e test's
network.yaml); and the real program's elapsed time (TP_TIMING=1) over as many runs. The load average before and after is printed: the machine may be shared.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

PROGRAMS = {"jacobi2d": ["1024", "1500", "1e-9"], "cg": ["512", "1000", "1e-12"]}


def blocks_of(machine):
    """Rank 0's blocks: id -> (executions, mean seconds), read without a YAML library."""
    out, rank = {}, None
    with open(machine) as f:
        for line in f:
            m = re.match(r"\s*- rank: (\d+)", line)
            if m:
                rank = int(m.group(1))
            m = re.search(r'id: "([^"]+)".*executions: (\d+).*mean_seconds: ([0-9.e+-]+)', line)
            if m and rank == 0:
                iters = re.search(r"iterations: (\d+)", line)
                per = int(iters.group(1)) if iters else int(m.group(2))
                out[m.group(1)] = (per, float(m.group(3)))
    return out


def spread(xs):
    return f"{min(xs):.4g} / {statistics.median(xs):.4g} / {max(xs):.4g}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--np", default="2")
    ap.add_argument("--ks", default="1,2")
    a = ap.parse_args()
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    mpiete = os.path.join(a.build, "bin", "mpiete")
    print("load average before:", open("/proc/loadavg").read().split()[:3])
    for prog, args in PROGRAMS.items():
        exe = os.path.join(a.build, "tests", "e2e", "work", prog, "cc", prog)
        if not os.path.exists(exe + ".timing"):
            sys.exit(f"{exe}.timing missing: run the e2e.{prog} test first")
        means, totals, predicted = {}, {}, {}
        work = tempfile.mkdtemp(prefix="mpiete-rpn-")
        traces = os.path.join(work, "traces")
        network = os.path.join(os.path.dirname(os.path.dirname(exe)), "network.yaml")
        p = subprocess.run([mpiete, "probe-program", "-o", traces, "-np", a.np, exe + ".trace"]
                           + args, env=env, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"probe-program failed:\n{p.stderr}")
        for k in a.ks.split(","):
            for r in range(a.repeats):
                with tempfile.TemporaryDirectory() as d:
                    machine = os.path.join(d, "m.yaml")
                    p = subprocess.run([mpiete, "probe-compute", "-o", machine, "-np", a.np,
                                        "--ranks-per-node", k, exe + ".timing"] + args,
                                       env=env, capture_output=True, text=True)
                    if p.returncode != 0:
                        sys.exit(f"probe-compute failed:\n{p.stderr}")
                    blocks = blocks_of(machine)
                    for b, v in blocks.items():
                        means.setdefault(b, {}).setdefault(k, []).append(v)
                    totals.setdefault(k, []).append(sum(n * s for n, s in blocks.values()))
                    p = subprocess.run([mpiete, "estimate", "--program", traces, "--machine",
                                        machine, "--network", network, "--format", "json"],
                                       env=env, capture_output=True, text=True)
                    if p.returncode != 0:
                        sys.exit(f"estimate failed:\n{p.stderr}")
                    predicted.setdefault(k, []).append(
                        float(re.search(r'"predicted_seconds":\s*([0-9.e+-]+)', p.stdout).group(1)))
        ks = a.ks.split(",")
        top = sorted(means, key=lambda b: -statistics.median(
            n * s for n, s in means[b][ks[0]]))[:3]
        print(f"\n{prog} {' '.join(args)} at {a.np} ranks: mean seconds per execution of "
              f"rank 0's main blocks (min / median / max of {a.repeats} runs)")
        for b in top:
            n = means[b][ks[0]][0][0]
            cols = "  ".join(f"k={k}: {spread([s for _, s in means[b][k]])}" for k in ks)
            print(f"  {b} ({n} executions)  {cols}")
        print("  sum over rank 0's blocks  " +
              "  ".join(f"k={k}: {spread(totals[k])}" for k in ks))
        print("  estimate (predicted s)    " +
              "  ".join(f"k={k}: {spread(predicted[k])}" for k in ks))
        real = []
        for r in range(a.repeats):
            p = subprocess.run(["mpirun", "-np", a.np, exe] + args, env=dict(env, TP_TIMING="1"),
                               capture_output=True, text=True)
            m = re.search(r"elapsed\s+([0-9.]+)", p.stderr)
            if p.returncode != 0 or not m:
                sys.exit(f"real run failed:\n{p.stderr}")
            real.append(float(m.group(1)))
        print(f"  real run elapsed (TP_TIMING): {spread(real)} s")
    print("\nload average after:", open("/proc/loadavg").read().split()[:3])


if __name__ == "__main__":
    main()

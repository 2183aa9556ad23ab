#!/usr/bin/env python3
"""`mpiete best-config` on a test program's scaling model, checked against `mpiete estimate
--ranks P --cluster` of every configuration (issue 16, seed 002; docs/scale.md).

usage: best_config.py --build BUILD --work WORK --mpiexec MPIRUN

Builds test-programs/jacobi2d as its Makefile does (CC=mpiete-cc), takes its program and
compute base data at 2 and 4 ranks and `mpiete model`s them. The network inside a node is
probe-comm's shared memory, between nodes probe-comm over TCP (Open MPI's btl tcp,self): two
measured links of different cost. A two-type cluster: 2 nodes of the model's machine with 2
cores, and 3 nodes of a machine whose every compute time is twice the 4-rank machine file's
(the test writes that file: a slower node type), 1 core each; at most 2 ranks per node.
Then:
  search     the pruned search's answer is the exhaustive one's, and replays fewer;
  bounds     every configuration's bound is below its predicted time;
  estimates  each of the 34 configurations, written as a cluster file with per-type
             ranks_per_node and cores, predicted by `mpiete estimate --ranks P --model
             --cluster`: the same time as best-config's replay (to the 6 digits estimate
             prints), so the answer is the minimum of every configuration's estimate;
  surface    mpiete surface's times at 2 and 8 ranks are estimate --ranks's;
  placement  a cluster whose nodes hold fewer ranks than asked is an error naming the list.
Exits 1 on any failure.
"""

import argparse
import os
import re
import shutil
import sys

import yaml

from e2e_util import fresh_work, oversubscribe, run_group

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ARGS = ["1024", "40", "1e-9"]


def slower(src, dst, factor):
    """The machine file src with every time (means, spreads, extremes, series) times factor."""
    text = open(src).read()
    head, body = text.split("\nranks:\n", 1)
    body = re.sub(r"((?:mean|stddev|min|max)_seconds: )([0-9.e+-]+)",
                  lambda m: m.group(1) + repr(float(m.group(2)) * factor), body)
    body = re.sub(r'(series: \{width: \d+, seconds: ")([^"]*)"',
                  lambda m: m.group(1) + " ".join(repr(float(x) * factor)
                                                  for x in m.group(2).split()) + '"', body)
    open(dst, "w").write(head + "\nranks:\n" + body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mpiexec", required=True)
    a = ap.parse_args()
    env = fresh_work(a.work, a.build)
    mpiete = os.path.join(a.build, "bin", "mpiete")
    fails = []

    def run(argv, what, timeout=300, extra_env=None, cwd=None):
        rc, out, err = run_group(argv, cwd or a.work, {**env, **(extra_env or {})}, timeout)
        if rc != 0:
            raise SystemExit(f"FAIL: {what} ({rc}):\n{out}\n{err}")
        return out, err

    src = os.path.join(a.work, "src")
    shutil.copytree(os.path.join(ROOT, "test-programs", "jacobi2d"), src)
    run(["make", "-s", "CC=mpiete-cc"], "make CC=mpiete-cc", cwd=src)
    app = os.path.join(src, "jacobi2d")
    run([mpiete, "probe-comm", "-o", "shm.yaml", "--max-size", "16KiB", "--launcher", a.mpiexec],
        "probe-comm (shared memory)")
    run([mpiete, "probe-comm", "-o", "tcp.yaml", "--max-size", "16KiB", "--launcher", a.mpiexec],
        "probe-comm (TCP)", extra_env={"OMPI_MCA_btl": "tcp,self"})
    over = oversubscribe(a.mpiexec)
    runs = []
    for n in (2, 4, 8):
        run([mpiete, "probe-program", "-o", f"t{n}", "-np", str(n), *over, "--launcher",
             a.mpiexec, app + ".trace"] + ARGS, f"probe-program at {n}")
        run([mpiete, "probe-compute", "-o", f"m{n}.yaml", "-np", str(n), *over, "--launcher",
             a.mpiexec, app + ".timing"] + ARGS, f"probe-compute at {n}")
        runs += ["--run", f"{n}:1024:t{n}:m{n}.yaml"]
    run([mpiete, "model"] + runs + ["-o", "model.yaml"], "mpiete model")
    slower(os.path.join(a.work, "m4.yaml"), os.path.join(a.work, "slow.yaml"), 2.0)
    types = [{"cores": 2}, {"machine": "slow.yaml", "cores": 1}]
    base = {"format": "mpiete-cluster", "version": 1, "contention": "none",
            "intra_node_network": "shm.yaml", "inter_node_network": "tcp.yaml"}
    with open(os.path.join(a.work, "cluster.yaml"), "w") as f:
        yaml.safe_dump({**base, "ranks_per_node": 2,
                        "nodes": [dict(types[0], count=2), dict(types[1], count=3)]}, f)

    def best(*extra):
        out, _ = run([mpiete, "best-config", "--cluster", "cluster.yaml", "--model",
                      "model.yaml", "--format", "yaml", *extra], "best-config " + " ".join(extra))
        return yaml.safe_load(out)

    full, pruned = best("--exhaustive"), best()
    print(f"[search] {full['configurations']} configurations; exhaustive best {full['best']}; "
          f"pruned best {pruned['best']} after {pruned['replayed']} replays")
    if full["configurations"] != 34 or full["replayed"] != 34:
        fails.append(f"search: expected 34 configurations, all replayed: {full}")
    key = ("nodes", "ranks_per_node")
    if [pruned["best"][k] for k in key] != [full["best"][k] for k in key]:
        fails.append(f"search: pruned {pruned['best']} != exhaustive {full['best']}")
    if not pruned["replayed"] < full["replayed"]:
        fails.append(f"search: the pruned search replayed {pruned['replayed']} of 34")
    speeds = [t["speed"] for t in full["node_types"]]
    # slow.yaml is m4 at half speed; the speed is read against the model's machine, fitted
    # from all four runs, so a loaded host moves it (3.03 seen in CI): about 2, not a
    # measurement. Ignored (1) or inverted (0.5) still fails.
    if speeds[0] != 1 or not 1.5 < speeds[1] < 4:
        fails.append(f"search: expected speeds 1 and about 2, got {speeds}")

    estimates = []
    for c in full["replayed_configurations"]:
        if not c["bound_seconds"] <= c["predicted_seconds"]:
            fails.append(f"bounds: {c}")
        nodes = [dict(t, count=n, ranks_per_node=k)
                 for t, n, k in zip(types, c["nodes"], c["ranks_per_node"]) if n]
        with open(os.path.join(a.work, "config.yaml"), "w") as f:
            yaml.safe_dump({**base, "ranks_per_node": 1, "nodes": nodes}, f)
        out, _ = run([mpiete, "estimate", "--ranks", str(c["ranks"]), "--model", "model.yaml",
                      "--cluster", "config.yaml"], f"estimate of {c}")
        m = re.search(r"^predicted_seconds: (\S+)$", out, re.M)
        s = float(m.group(1)) if m else -1
        estimates.append((s, c["nodes"], c["ranks_per_node"]))
        if abs(s - c["predicted_seconds"]) > 1e-5 * c["predicted_seconds"]:
            fails.append(f"estimates: {c}: estimate --cluster predicts {s}\n{out}")
    lowest = min(estimates)
    print(f"[estimates] lowest of {len(estimates)}: {lowest[0]} s, nodes {lowest[1]} x "
          f"{lowest[2]}")
    if [lowest[1], lowest[2]] != [full["best"][k] for k in key]:
        fails.append(f"estimates: the lowest estimate {lowest} is not best-config's "
                     f"{full['best']}")

    # A surface point is what estimate --ranks predicts for it (both apply the largest run's
    # occurrence profiles).
    run([mpiete, "surface", "--model", "model.yaml", "--network", "shm.yaml", "--ranks", "2,8",
         "-o", "surface.yaml"], "mpiete surface")
    with open(os.path.join(a.work, "surface.yaml")) as f:
        surface = yaml.safe_load(f)["time_seconds"][0]
    for p, t in zip((2, 8), surface):
        out, _ = run([mpiete, "estimate", "--ranks", str(p), "--model", "model.yaml", "--network",
                      "shm.yaml"], f"estimate --ranks {p}")
        e = float(re.search(r"^predicted_seconds: (\S+)$", out, re.M).group(1))
        print(f"[surface] {p} ranks: surface {t}, estimate {e}")
        if abs(e - t) > 1e-5 * t:
            fails.append(f"surface: at {p} ranks {t} s, estimate --ranks {e} s")

    with open(os.path.join(a.work, "small.yaml"), "w") as f:
        yaml.safe_dump({**base, "ranks_per_node": 1, "nodes": [dict(types[0], count=2,
                                                                     ranks_per_node=2)]}, f)
    rc, out, err = run_group([mpiete, "estimate", "--ranks", "5", "--model", "model.yaml",
                              "--cluster", "small.yaml"], a.work, env, 60)
    print(f"[placement] rc {rc}: {err.strip()}")
    if rc == 0 or not re.search(r"small\.yaml:\d+:\d+: error: the node types list 2 nodes "
                                r"holding 4 ranks, but 5 ranks were asked for", err):
        fails.append(f"placement: expected a located error ({rc}):\n{out}\n{err}")

    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

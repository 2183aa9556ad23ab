#!/usr/bin/env python3
"""The sampled timing probe (probe-compute --sample, docs/probes.md "Sampled loops") end to end.

usage: sampled_probe.py --build BUILD --work WORK --mpiexec MPIRUN [--fortran]

Copies sampled/ into WORK and builds it there as a user's Makefile would (`make c
CC=mpiete-cc`; with --fortran also `make fortran FC=mpiete-fc`, the module's .mod in the
current folder), with MPIETE_SAMPLE_LOOPS=1 (the hooks are opt-in at build time). Then, at 2
ranks:
  triangle      `probe-compute --sample 8`: triangle()'s row loop (kernel.c, no MPI; an inner
                loop per row) runs the first 10 rows and every 8th after them, each of those
                after the row before it (its primer), in each of its 3 entries, exactly
                (106 of 400 per entry, counted by the program itself), and machine.yaml
                lists the loop with both ranks' iterations (636 of 2400 in 6 entries); the full trace probe runs every row; `mpiete estimate` says how much
                of its compute is the estimate for skipped rows
  unsampled     without --sample every row runs and the machine file lists no sampled loop
  short         short_rows()'s rows (two inner steps) are too short to time against the hooks:
                under --sample every row runs, and machine.yaml lists the loop with every
                entry run whole for that reason (the runtime's sample::tooShort; the C hook
                stops asking, so those entries' iterations are not counted)
  steer         fill()'s skipped entries stay wrong, and the program then sends an extra
                message: with the (skeleton's) traces (--program) probe-compute sees segments
                the traces do not have, warns and runs it again with every iteration
  abort         the same wrong entries make the program call MPI_Abort before MPI_Finalize:
                probe-compute warns and runs it again with every iteration
  fortran       the module procedure's DO loop (rows.f90) and the fixed-form labelled one
                (trif.f) sampled like C's: 106 of 400 rows per entry each
Exits 1 on any failure.
"""

import argparse
import os
import re
import shutil
import sys

from e2e_util import fresh_work, run_group

HERE = os.path.dirname(os.path.abspath(__file__))
STRIDE = 8


def runs(j, stride):
    """The runtime's rule (runtime/lib/TimingSample.h): the first stride + 2 and every
    stride-th after them are measured, and each of those after the first stride + 2 has the
    iteration before it run as its primer."""
    return j < stride + 2 or (j - 1) % stride == 0 or j % stride == 0


def sampled_loops(machine):
    with open(machine) as f:
        text = f.read()
    return re.findall(r'^\s+- "?([0-9a-f]{8}:\d+: (?:\d+ of \d+ iterations run in \d+ entries|'
                      r'every iteration of its \d+ entries)[^"]*)"?$', text, re.M)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--fortran", action="store_true")
    a = ap.parse_args()

    env = fresh_work(a.work, a.build)
    src = os.path.join(a.work, "src")
    shutil.copytree(os.path.join(HERE, "sampled"), src)
    # The sampled loops' hooks are asked for at build time (a Makefile builds unchanged).
    env["MPIETE_SAMPLE_LOOPS"] = "1"
    mpiete = os.path.join(a.build, "bin", "mpiete")
    rc, out, err = run_group(["make", "c", "CC=mpiete-cc"], src, env, 600)
    if rc != 0:
        print(f"FAIL: make c CC=mpiete-cc failed ({rc}):\n{out}\n{err}")
        return 1
    fails = []
    n, steps = 400, 3
    per_entry = sum(1 for j in range(n) if runs(j, STRIDE))

    def compute(name, args, extra=()):
        machine = os.path.join(a.work, f"machine-{name}.yaml")
        cmd = [mpiete, "probe-compute", *extra, "-o", machine, "-np", "2", "--launcher",
               a.mpiexec, *args]
        rc, out, err = run_group(cmd, a.work, env, 300)
        print(f"[{name}] rc {rc}; {' | '.join(out.strip().splitlines())}")
        return rc, out, err, machine

    def program(name, args, extra=()):
        traces = os.path.join(a.work, f"traces-{name}")
        rc, out, err = run_group([mpiete, "probe-program", *extra, "-o", traces, "-np", "2",
                                  "--launcher", a.mpiexec, *args], a.work, env, 300)
        return rc, out, err, traces

    timing = os.path.join(src, "sampled.timing")
    trace = os.path.join(src, "sampled.trace")

    # triangle: sampled exactly by the rule, listed, and reported by the estimate.
    rc, out, err, machine = compute("triangle", [timing, "triangle", str(n), str(steps)],
                                    ["--sample", str(STRIDE)])
    want = f"rows {steps * per_entry} of {n * steps}"
    loops = sampled_loops(machine) if rc == 0 else []
    if rc != 0 or want not in out:
        fails.append(f"triangle: expected '{want}' ({rc}):\n{out}\n{err}")
    elif len(loops) != 1 or not re.match(
            rf"[0-9a-f]{{8}}:\d+: {2 * steps * per_entry} of {2 * n * steps} iterations run in "
            rf"{2 * steps} entries", loops[0]):
        fails.append(f"triangle: expected one sampled loop with both ranks' rows: {loops}")
    else:
        # The full trace probe (the skeleton's output is not the program's).
        rc, out, err, traces = program("triangle", [trace, "triangle", str(n), str(steps)],
                                       ["--full"])
        if rc != 0 or f"rows {n * steps} of {n * steps}" not in out:
            fails.append(f"triangle: the trace probe must run every row ({rc}):\n{out}\n{err}")
        else:
            net = os.path.join(a.work, "network.yaml")
            rc, out, err = run_group([mpiete, "probe-comm", "-o", net, "--max-size", "4096",
                                      "--launcher", a.mpiexec], a.work, env, 300)
            if rc == 0:
                rc, out, err = run_group([mpiete, "estimate", "--program", traces, "--machine",
                                          machine, "--network", net], a.work, env, 120)
            print(f"[triangle] estimate rc {rc}")
            if rc != 0 or not re.search(r"^sampled: [0-9.]+ s \([0-9.]+% of the predicted "
                                        r"compute\) .*\(--sample 8\): [0-9a-f]{8}:\d+: ", out,
                                        re.M):
                fails.append(f"triangle: expected the estimate's 'sampled:' line ({rc}):\n"
                             f"{out}\n{err}")

    # unsampled: the default runs every row.
    rc, out, err, machine = compute("unsampled", [timing, "triangle", str(n), str(steps)])
    if rc != 0 or f"rows {n * steps} of {n * steps}" not in out or sampled_loops(machine):
        fails.append(f"unsampled: expected every row and no sampled loop ({rc}):\n{out}\n{err}")

    # short: rows too short to time run whole, every entry, and the machine file says why.
    rc, out, err, machine = compute("short", [timing, "short", str(n), str(steps)],
                                    ["--sample", str(STRIDE)])
    loops = sampled_loops(machine) if rc == 0 else []
    if rc != 0 or f"rows {n * steps} of {n * steps}" not in out:
        fails.append(f"short: expected every row ({rc}):\n{out}\n{err}")
    elif len(loops) != 1 or not re.match(
            rf"[0-9a-f]{{8}}:\d+: every iteration of its {2 * steps} entries run whole: its "
            rf"iterations \([0-9.e+-]+ us\) are too short to time", loops[0]):
        fails.append(f"short: expected one loop run whole in every entry: {loops}")

    # steer: the traces (the skeleton's: the slice keeps fill(), whose data decide a message)
    # show the difference; the run is repeated whole.
    rc, out, err, traces = program("steer", [trace, "steer", str(n)])
    if rc != 0:
        fails.append(f"steer: the trace probe failed ({rc}):\n{out}\n{err}")
    else:
        rc, out, err, machine = compute("steer", [timing, "steer", str(n)],
                                        ["--sample", str(STRIDE), "--program", traces])
        if rc != 0 or "differ from the traces" not in err or "running it again" not in err \
                or f"entries right {n} of {n}" not in out or sampled_loops(machine):
            fails.append(f"steer: expected a warning and a run with every iteration ({rc}):\n"
                         f"{out}\n{err}")

    # abort: a rank stops before MPI_Finalize; the run is repeated whole.
    rc, out, err, machine = compute("abort", [timing, "abort", str(n)], ["--sample", str(STRIDE)])
    if rc != 0 or "running it again" not in err or f"entries right {n} of {n}" not in out \
            or sampled_loops(machine):
        fails.append(f"abort: expected a warning and a run with every iteration ({rc}):\n"
                     f"{out}\n{err}")

    if a.fortran:
        rc, out, err = run_group(["make", "fortran", "FC=mpiete-fc"], src, env, 900)
        if rc != 0:
            fails.append(f"fortran: make fortran FC=mpiete-fc failed ({rc}):\n{out}\n{err}")
        else:
            rc, out, err, machine = compute(
                "fortran", [os.path.join(src, "sampledf.timing"), str(n), str(steps)],
                ["--sample", str(STRIDE)])
            total = f"{steps * per_entry} of {n * steps}"
            loops = sampled_loops(machine) if rc == 0 else []
            if rc != 0 or f"rows {total}" not in out or f"rowsf {total}" not in out \
                    or len(loops) != 2:
                fails.append(f"fortran: expected 'rows {total}', 'rowsf {total}' and two "
                             f"sampled loops ({rc}): {loops}\n{out}\n{err}")

    for f in fails:
        print("FAIL: " + f)
    if not fails:
        print("sampled probe: every mode as expected")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

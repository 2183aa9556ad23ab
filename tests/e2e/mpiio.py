#!/usr/bin/env python3
"""Programs that write checkpoints with MPI-IO build as shipped and run under every probe.

test-programs/c-mpiio (C, one file) and, with --fortran, test-programs/f90-mpiio (a module of
its own file, objects and .mod files in the current folder) and f08-mpiio (`use mpi_f08`, one
file) are built with their unchanged
Makefiles and mpiete-cc / mpiete-fc, no option: each MPI-IO call is a located warning
[mpiete-io], said once (the link step's re-slice does not repeat it). At 2 ranks:
- the original run, and the timing probe, print the same line and write the same checkpoint
  (the timing probe once waited forever in MPI_File_open: one rank at a time under the token
  machine, while the collective call needs both; runtime/lib/Interpose.cpp,
  FortranFileInterpose.cpp and FortranF08FileInterpose.cpp run the collective MPI-IO routines
  with every member at once);
- the trace probe's skeleton gives the full probe's traces (--verify-skeleton);
- mpiete estimate replays them and names the collective file calls in its segments.
"""
import argparse
import collections
import hashlib
import os
import re
import shutil
import sys

from e2e_util import fresh_work, launch, run_group

PROGRAMS = {
    "c-mpiio": ("CC=mpiete-cc", "heat.ckpt", ["20000", "40", "10"]),
    "f90-mpiio": ("FC=mpiete-fc", "heat90.ckpt", ["20000", "40", "10"]),
    "f08-mpiio": ("FC=mpiete-fc", "heat08.ckpt", ["20000", "40", "10"]),
}


class Failure(Exception):
    pass


def run(cmd, env, cwd, timeout=240):
    rc, out, err = run_group(cmd, cwd, env, timeout=timeout)
    if rc != 0:
        raise Failure(f"{' '.join(cmd)} {'timed out' if rc is None else f'failed ({rc})'}:\n"
                      f"{out}\n{err}")
    return out, err


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def program_line(out, name):
    lines = [line for line in out.splitlines() if line.startswith(name + ":")]
    if len(lines) != 1:
        raise Failure(f"expected one '{name}:' line in:\n{out}")
    if "read back equal" not in lines[0]:
        raise Failure(f"{name} did not read its checkpoint back: {lines[0]}")
    return lines[0]


def check(args, env, name):
    make_var, ckpt, pargs = PROGRAMS[name]
    src = os.path.join(args.work, name)
    shutil.copytree(os.path.join(args.programs, name), src)
    _, err = run(["make", make_var], env, src)
    warnings = [line for line in err.splitlines() if "[mpiete-io]" in line]
    if not warnings:
        raise Failure(f"{name}: no [mpiete-io] warning from the build:\n{err}")
    repeated = [w for w, n in collections.Counter(warnings).items() if n > 1]
    if repeated:
        raise Failure(f"{name}: warnings said more than once:\n" + "\n".join(repeated))
    if "error" in err:
        raise Failure(f"{name}: the build printed an error:\n{err}")
    mpiete = os.path.join(args.build, "bin", "mpiete")

    out, _ = run(launch(args.mpiexec, 2) + [f"./{name}"] + pargs, env, src)
    want = program_line(out, name)
    want_ckpt = digest(os.path.join(src, ckpt))
    os.remove(os.path.join(src, ckpt))

    run([mpiete, "probe-program", "-o", "tr", "-np", "2", "--verify-skeleton",
         f"./{name}.trace"] + pargs, env, src)

    out, _ = run([mpiete, "probe-compute", "-o", "machine.yaml", "-np", "2",
                  f"./{name}.timing"] + pargs, env, src)
    got = program_line(out, name)
    if got != want:
        raise Failure(f"{name}: the timing probe printed\n  {got}\nthe program\n  {want}")
    if digest(os.path.join(src, ckpt)) != want_ckpt:
        raise Failure(f"{name}: the timing probe's checkpoint differs from the program's")

    out, _ = run([mpiete, "estimate", "--program", "tr", "--machine", "machine.yaml",
                  "--network", args.network], env, src)
    m = re.search(r"predicted time: ([0-9.eE+-]+) s", out)
    if not m or float(m.group(1)) <= 0:
        raise Failure(f"{name}: no positive prediction:\n{out}")
    if "a collective MPI-IO call" not in out:
        raise Failure(f"{name}: the estimate does not name the collective file calls:\n{out}")
    print(f"{name}: ok ({len(set(warnings))} MPI-IO calls, predicted {m.group(1)} s)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--programs", required=True, help="the test-programs folder")
    ap.add_argument("--work", required=True)
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--network", default=None,
                    help="a network.yaml for the estimate (default: probe-comm, up to 4 KiB)")
    ap.add_argument("--fortran", action="store_true")
    args = ap.parse_args()
    env = fresh_work(args.work, args.build)
    names = ["c-mpiio"] + (["f90-mpiio", "f08-mpiio"] if args.fortran else [])
    try:
        if args.network is None:
            args.network = os.path.join(args.work, "network.yaml")
            run([os.path.join(args.build, "bin", "mpiete"), "probe-comm", "-o", args.network,
                 "--max-size", "4096", "--launcher", args.mpiexec], env, args.work, 300)
        for name in names:
            check(args, env, name)
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

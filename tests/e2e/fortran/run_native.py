#!/usr/bin/env python3
"""Plain run of one Fortran test program: built with the native MPI Fortran compiler, run at
each rank count.

usage: run_native.py --program DIR --work WORK --fc MPIF90 --mpiexec MPIRUN --np 2,4
                     --expect REGEX [--same-output] [-- program arguments]

Steps (any failure exits 1 saying which step and why):
  1. `make FC=MPIF90 O=WORK/build` in DIR; the program WORK/build/<name of DIR> exists.
  2. At each rank count: the program runs under mpirun --oversubscribe, exits 0 and prints a
     line matching REGEX (its result line); with --same-output, every rank count prints the
     same output (the programs are written so that it does not depend on the decomposition).
  3. DIR is unchanged: the build wrote nothing into the sources (modules included).
"""

import argparse
import hashlib
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from e2e_util import launch, run_group  # noqa: E402


def snapshot(tree):
    out = {}
    for dirpath, _, files in os.walk(tree):
        for f in files:
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, tree)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--program", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--fc", default="mpif90")
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--np", default="2,4")
    ap.add_argument("--expect", required=True)
    ap.add_argument("--same-output", action="store_true")
    ap.add_argument("args", nargs="*")
    a = ap.parse_args()

    program_dir = os.path.abspath(a.program)
    app = os.path.basename(program_dir.rstrip("/"))
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    before = snapshot(program_dir)

    build = os.path.join(work, "build")
    rc, out, err = run_group(["make", "-C", program_dir, f"FC={a.fc}", f"O={build}"], None, env,
                             300)
    if rc != 0:
        sys.exit(f"{app}: make FC={a.fc} failed ({rc}):\n{out}{err}")
    exe = os.path.join(build, app)
    if not os.access(exe, os.X_OK):
        sys.exit(f"{app}: the build made no {exe}")

    expect = re.compile(a.expect, re.MULTILINE)
    outputs = {}
    for np_ in [int(x) for x in a.np.split(",") if x]:
        cmd = launch(a.mpiexec, np_) + [exe] + a.args
        rc, out, err = run_group(cmd, work, env, 60)
        if rc != 0:
            sys.exit(f"{app} at {np_} ranks: exit {rc}:\n{out}{err}")
        if not expect.search(out):
            sys.exit(f"{app} at {np_} ranks: no line matches '{a.expect}':\n{out}")
        print(f"[run] np={np_}: {len(out.splitlines())} lines, result line found")
        outputs[np_] = out
    if a.same_output and len(set(outputs.values())) != 1:
        shown = "".join(f"--- {n} ranks\n{o}" for n, o in outputs.items())
        sys.exit(f"{app}: the output depends on the rank count:\n{shown}")

    if snapshot(program_dir) != before:
        sys.exit(f"{app}: the build or the runs changed the program's source directory")
    print(f"{app}: ok")


if __name__ == "__main__":
    main()

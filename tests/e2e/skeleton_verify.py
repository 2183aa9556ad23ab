#!/usr/bin/env python3
"""The skeleton trace probe of one test program gives the full probe's traces, record by record.

usage: skeleton_verify.py --build BUILD --program DIR --work WORK --mpiexec MPIRUN [--np 2]
                          [--lang c|fortran] [--expect-difference TEXT] [--whole-program]
                          [--expect-removed TEXT]... [--expect-kept TEXT]...
                          [-- program arguments]

Builds DIR with `make CC=BUILD/bin/mpiete-cc O=WORK/cc` (a Fortran program with
`make FC=mpiete-fc`; BUILD/bin first on PATH), checks that
APP.skeleton and APP.skeleton.removed were written beside APP.trace, then runs
`mpiete probe-program -o WORK/traces -np N --verify-skeleton APP.trace`, which runs the full
and the skeleton probe and fails naming the first differing record. Exits 1 on any failure.
With --expect-difference, the verification must fail instead, its message containing TEXT
(a program the slice cannot follow: the error must name what explains it).
With --whole-program, some unit's header in APP.skeleton.removed must say it was sliced with
the whole program (mpiete-cc's link step, docs/skeleton.md); --expect-removed TEXT needs a
removal line containing TEXT, --expect-kept TEXT none.
"""

import argparse
import glob
import os
import shutil
import sys

from e2e_util import run_group


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--np", default="2")
    ap.add_argument("--expect-difference", default=None)
    ap.add_argument("--lang", choices=["c", "fortran"], default="c")
    ap.add_argument("--whole-program", action="store_true")
    ap.add_argument("--expect-removed", action="append", default=[])
    ap.add_argument("--expect-kept", action="append", default=[])
    ap.add_argument("args", nargs="*")
    a = ap.parse_args()

    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    env = dict(os.environ)
    env["PATH"] = os.path.join(a.build, "bin") + os.pathsep + env.get("PATH", "")
    env.pop("MPIETE_CC", None)
    cc_dir = os.path.join(a.work, "cc")
    compiler = "FC=mpiete-fc" if a.lang == "fortran" else "CC=mpiete-cc"
    rc, out, err = run_group(["make", "-C", a.program, compiler, f"O={cc_dir}"], a.work, env, 600)
    if rc != 0:
        print(f"FAIL: make {compiler} failed ({rc}):\n{out}\n{err}")
        return 1
    traces = glob.glob(os.path.join(cc_dir, "*.trace"))
    if len(traces) != 1:
        print(f"FAIL: expected one trace probe in {cc_dir}, found {traces}")
        return 1
    app = traces[0][: -len(".trace")]
    for f in (app + ".skeleton", app + ".skeleton.removed"):
        if not os.path.exists(f):
            print(f"FAIL: {f} not written by mpiete-cc")
            return 1
    with open(app + ".skeleton.removed") as fh:
        removed = fh.read().splitlines()
    # One header line per unit: `# file: R of S statements removed; message data kept: ...`.
    headers = [line for line in removed if line.startswith("# ")]
    for line in headers:
        print(f"[build] {line[2:]}")
    if not headers:
        print(f"FAIL: {app}.skeleton.removed has no unit header: no unit was sliced")
        return 1
    if a.whole_program and not any(l.startswith("#") and "sliced with the whole program" in l
                                   for l in removed):
        print(f"FAIL: no unit of {app}.skeleton.removed was sliced with the whole program")
        return 1
    for text in a.expect_removed:
        if not any(text in l for l in removed if not l.startswith("#")):
            print(f"FAIL: no removal contains {text!r}:\n" + "\n".join(removed))
            return 1
    for text in a.expect_kept:
        if any(text in l for l in removed if not l.startswith("#")):
            print(f"FAIL: a removal contains {text!r}, which must stay:\n" + "\n".join(removed))
            return 1
    mpiete = os.path.join(a.build, "bin", "mpiete")
    argv = [mpiete, "probe-program", "-o", os.path.join(a.work, "traces"), "-np", a.np,
            "--launcher", a.mpiexec, "--oversubscribe", "--verify-skeleton", app + ".trace"] + a.args
    rc, out, err = run_group(argv, a.work, env, 600)
    if a.expect_difference is not None:
        if rc != 1 or a.expect_difference not in err:
            print(f"FAIL: expected the verification to fail naming {a.expect_difference!r} "
                  f"(exit {rc}):\n{out}\n{err}")
            return 1
        print(err.strip())
        return 0
    if rc != 0 or "traces equal the full probe's" not in out:
        print(f"FAIL: {' '.join(argv)} (exit {rc}):\n{out}\n{err}")
        return 1
    print(out.strip().splitlines()[-2])
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The skeleton trace probe of one test program gives the full probe's traces, record by record.

usage: skeleton_verify.py --build BUILD --program DIR --work WORK --mpiexec MPIRUN [--np 2]
                          [--lang c|fortran] [--expect-difference TEXT] [--whole-program]
                          [--expect-removed TEXT]... [--expect-kept TEXT]...
                          [-- program arguments]

Builds DIR with `make CC=BUILD/bin/mpiete-cc O=WORK/cc` (a Fortran program with
`make FC=mpiete-fc`; BUILD/bin first on PATH), then checks the skeleton (verify() below).
Exits 1 on any failure.
The test programs' own e2e tests (run_program.py --skeleton) call verify() on the build they
have made already; this driver is for the programs written only to test the slice.
"""

import argparse
import glob
import os
import shutil
import sys

from e2e_util import fresh_work, run_group


class SkeletonFailure(Exception):
    pass


def verify(build, work, app, mpiexec, np_, arg_sets, env, whole_program=False,
           expect_removed=(), expect_kept=(), expect_difference=None):
    """APP.skeleton and APP.skeleton.removed were written beside APP.trace, with one header
    per sliced unit; then, for each argument list of arg_sets,
    `mpiete probe-program -np N --verify-skeleton APP.trace ARGS` runs the full and the
    skeleton probe and must find their traces equal (it fails naming the first differing
    record). With expect_difference the verification must fail instead, its message containing
    that text (a program the slice cannot follow: the error must name what explains it).
    whole_program: some unit's header must say it was sliced with the whole program
    (mpiete-cc's link step, docs/skeleton.md); expect_removed: each text in some removal line;
    expect_kept: none in any. Returns the lines worth printing; raises SkeletonFailure."""
    for f in (app + ".skeleton", app + ".skeleton.removed"):
        if not os.path.exists(f):
            raise SkeletonFailure(f"{f} not written by the wrapper")
    with open(app + ".skeleton.removed") as fh:
        removed = fh.read().splitlines()
    # One header line per unit: `# file: R of S statements removed; message data kept: ...`.
    headers = [line for line in removed if line.startswith("# ")]
    if not headers:
        raise SkeletonFailure(f"{app}.skeleton.removed has no unit header: no unit was sliced")
    report = [f"[skeleton] {line[2:]}" for line in headers]
    if whole_program and not any(l.startswith("#") and "sliced with the whole program" in l
                                  for l in removed):
        raise SkeletonFailure(f"no unit of {app}.skeleton.removed was sliced with the whole "
                              "program")
    for text in expect_removed:
        if not any(text in l for l in removed if not l.startswith("#")):
            raise SkeletonFailure(f"no removal contains {text!r}:\n" + "\n".join(removed))
    for text in expect_kept:
        if any(text in l for l in removed if not l.startswith("#")):
            raise SkeletonFailure(f"a removal contains {text!r}, which must stay:\n"
                                  + "\n".join(removed))
    mpiete = os.path.join(build, "bin", "mpiete")
    for i, args in enumerate(arg_sets):
        argv = [mpiete, "probe-program", "-o", os.path.join(work, f"skeleton-traces-{i}"),
                "-np", str(np_), "--launcher", mpiexec, "--oversubscribe", "--verify-skeleton",
                app + ".trace"] + list(args)
        rc, out, err = run_group(argv, work, env, 600)
        shown = " ".join(args) or "(no arguments)"
        if expect_difference is not None:
            if rc != 1 or expect_difference not in err:
                raise SkeletonFailure(f"expected the verification to fail naming "
                                      f"{expect_difference!r} (exit {rc}):\n{out}\n{err}")
            report.append(err.strip())
            continue
        if rc != 0 or "traces equal the full probe's" not in out:
            raise SkeletonFailure(f"{' '.join(argv)} (exit {rc}):\n{out}\n{err}")
        report.append(f"[skeleton] np={np_} {shown}: {out.strip().splitlines()[-2]}")
    return report


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

    env = fresh_work(a.work, a.build)
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
    try:
        report = verify(a.build, a.work, traces[0][: -len(".trace")], a.mpiexec, a.np,
                        [a.args], env, a.whole_program, a.expect_removed, a.expect_kept,
                        a.expect_difference)
    except SkeletonFailure as e:
        print(f"FAIL: {e}")
        return 1
    print("\n".join(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())

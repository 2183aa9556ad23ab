#!/usr/bin/env python3
"""The capped timing probe on loops whose MPI calls are in another file (capped-twofile/).

usage: capped_probe.py --build BUILD --work WORK --mpiexec MPIRUN [--fortran]

Builds capped-twofile with `make CC=BUILD/bin/mpiete-cc O=WORK/cc`: main.c's loops call
steps.c, so the frontend gives them the opaque loop hooks and the runtime decides whether they
make MPI calls. Then `mpiete probe-compute --cap 2` at 2 ranks, per mode of the program:
  loop     capped after exactly 18 iterations (the warm-up and 17 measured: at least 16, and
           left after an iteration that ends steps.c's period of two, as the 100th does), on
           every rank; its capped-mean lines name steps.c's three segments: 9 allreduces, 8
           of the two others (one of them began in the warm-up: that occurrence is no sample);
           given the loop's traces (--program), whose rank*.loops show the period of two
           to the loop's end: capped after 6 iterations (2 periods, at least 4 measured), its
           capped-mean lines 3 allreduces and 2 of the others; its segments are all there;
           a malformed line in a rank's loop file is an error at its file and line
  some     rank 0's sending loop and rank 1's receiving loop are different loops, each only
           one rank enters: neither is capped, all 100 steps run
  compute  a loop whose calls make no MPI call: not capped
  check    the program fails after MPI_Finalize when capped (it checks its step count): its
           communication was complete, so probe-compute notes it and keeps the capped timing
  abort    the program stops before MPI_Finalize when capped: probe-compute warns and runs it
           again uncapped, and the machine file lists no capped loop
  rare     an allreduce every 40th step, a period longer than the timing run finds alone
           (16), which the traces (--program) show to the loop's end (rank*.loops: period 40):
           over 100 steps the loop is not left early (2 periods measured after the warm-up
           need 120), over 400 (rare-long) it is left after 120 iterations, with every
           segment the traces have
  rare-last  the same with an allreduce at the last step too: no period to the loop's end,
           so no plan; the loop is left before the first allreduce and the capped run lacks
           segments the traces have, 6% of a rank's: probe-compute warns and runs it again
           uncapped
  rarer    an allreduce every 250th of 1000 steps, a period longer than the traces' (128): no
           plan; 0.8% of a rank's segment executions missing (at most 1% is kept):
           probe-compute notes it and keeps the capped run, whose missing segments the
           estimate fills from the computations around the same calls; the estimate's
           "extrapolated:" line names the capped loop
  single   a sendrecv and an allreduce every step, the step's computation after the
           allreduce: given the traces (period 1 to the loop's end), left early (after 5
           to 33 iterations: the warm-up, at least 4 measured, at most 16 x --cap; how many
           depends on this host's noise, which the spread test follows; that the first
           measured iteration is no sample of the spread is CapRulesTest's), not run again
With --fortran, capped-fortran too (`make FC=mpiete-fc`: fixed form, IMPLICIT NONE, a labelled
DO loop whose hook is `IF (MPIETE_ITER_CAPPED(...) .NE. 0) EXIT`): capped after exactly 18
iterations, on every rank, like the C loop; and capmain, whose labelled DO loop calls the
external subroutine STEP of capstep.f (its MPI calls): the opaque hooks, capped after 18
iterations, while its loop of WORK (no MPI call) runs whole.
Exits 1 on any failure.
"""

import argparse
import glob
import os
import re
import shutil
import sys

from e2e_util import fresh_work, run_group

HERE = os.path.dirname(os.path.abspath(__file__))


def capped_loops(machine):
    with open(machine) as f:
        m = re.search(r"^  capped_loops: \[(.*)\]$", f.read(), re.M)
    return m.group(1) if m else ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--fortran", action="store_true")
    a = ap.parse_args()

    env = fresh_work(a.work, a.build)
    cc = os.path.join(a.work, "cc")
    rc, out, err = run_group(["make", "-C", os.path.join(HERE, "capped-twofile"), "CC=mpiete-cc",
                              f"O={cc}"], a.work, env, 600)
    if rc != 0:
        print(f"FAIL: make CC=mpiete-cc failed ({rc}):\n{out}\n{err}")
        return 1
    mpiete = os.path.join(a.build, "bin", "mpiete")
    fails = []
    for mode in ("loop", "some", "compute", "check", "abort", "rare", "rare-long", "rare-last",
                 "rarer", "loop-traced", "single"):
        machine = os.path.join(a.work, f"machine-{mode}.yaml")
        program = {"loop-traced": "loop", "rare-long": "rare"}.get(mode, mode)
        steps = {"rarer": "1000", "rare-long": "400"}.get(mode, "100")
        cmd = [mpiete, "probe-compute", "--cap", "2", "--keep", "-o", machine, "-np", "2",
               "--launcher", a.mpiexec]
        if mode in ("rare", "rare-long", "rare-last", "rarer", "loop-traced", "single"):
            traces = os.path.join(a.work, f"traces-{mode}")
            rc, out, err = run_group([mpiete, "probe-program", "-o", traces, "-np", "2",
                                      "--launcher", a.mpiexec,
                                      os.path.join(cc, "twofile.trace"), program, steps],
                                     a.work, env, 300)
            if rc != 0:
                fails.append(f"{mode}: probe-program failed ({rc}):\n{out}\n{err}")
                continue
            cmd += ["--program", traces]
            # The trace probe's loop files (runtime/lib/LoopPlan.h): the loop's entry repeats
            # with a period of two to its end in `loop` (loop 1), of 40 in `rare` (loop 2); a
            # last step that differs, or a test every 250th step (longer than 128), is no
            # period, so that entry is not listed.
            for r in (0, 1):
                with open(os.path.join(traces, f"rank{r}.loops")) as f:
                    listed = re.findall(r"^[0-9a-f]{8}:\d+ (\d+) (\d+) (\d+)$", f.read(), re.M)
                period = {"loop": "2", "rare": "40", "single": "1"}.get(program)
                want = [("0", steps, period)] if period else []
                if listed != want:
                    fails.append(f"{mode}: rank{r}.loops lists loop 1 as {listed}, not {want}")
        cmd += [os.path.join(cc, "twofile.timing"), program, steps]
        rc, out, err = run_group(cmd, a.work, env, 300)
        print(f"[{mode}] rc {rc}; {out.strip().splitlines()[-1] if out.strip() else ''}")
        if rc != 0:
            fails.append(f"{mode}: probe-compute failed ({rc}):\n{out}\n{err}")
            continue
        loops = capped_loops(machine)
        ran = re.findall(rf"^ran (\d+) of {steps}$", out, re.M)
        kept = re.search(r"rank files kept in (\S+)", out + err)
        if mode in ("loop", "loop-traced"):
            # Given the traces, which show the loop's period of two to its end (rank*.loops),
            # the loop is left after 2 periods and at least 4 measured iterations: 6 in all.
            expect, counts = ("6", [2, 2, 3]) if mode == "loop-traced" else ("18", [8, 8, 9])
            # (A load warning is not this test's business: the machine may be busy.)
            if not re.fullmatch(rf"[0-9a-f]{{8}}:1 after {expect} iterations", loops) \
                    or ran != [expect] or "running it again" in err or "never ran" in err:
                fails.append(f"{mode}: expected loop 1 capped after {expect} iterations, got "
                             f"'{loops}', ran {ran}\n{err}")
            rank_files = sorted(glob.glob(os.path.join(kept.group(1), "rank*.timing"))) if kept else []
            if len(rank_files) != 2:
                fails.append(f"loop: expected 2 kept rank files, got {rank_files}")
            for rank_file in rank_files:
                with open(rank_file) as f:
                    text = f.read()
                means = re.findall(r"^# capped-mean (\S+) (\S+) (\d+) (\d+)$", text, re.M)
                if re.findall(r"^# capped-loop \S+ (\d+)$", text, re.M) != [expect] or \
                        sorted(int(n) for _, _, n, _ in means) != counts:
                    fails.append(f"loop: {rank_file}: capped-loop / capped-mean lines:\n{text}")
                # The warm-up made no other executions of these segments: a mean is its
                # segment's own, or leaves out the execution that began in the warm-up, so its
                # segment ran once more and took longer.
                for fr, to, n, ns in means:
                    seg = re.search(rf"^segment {fr} {to} (\d+) (\d+) ", text, re.M)
                    runs, total = (int(seg.group(1)), int(seg.group(2))) if seg else (0, 0)
                    own = (int(n), int(ns)) == (runs, total)
                    less_warm_up = int(n) == runs - 1 and int(ns) < total
                    if not seg or not (own or less_warm_up):
                        fails.append(f"loop: {rank_file}: capped-mean {fr} {to} {n} {ns} is not "
                                     "its segment's executions and total (less the warm-up's)")
        elif mode == "single":
            m = re.fullmatch(r"[0-9a-f]{8}:\d+ after (\d+) iterations", loops)
            if not m or not 5 <= int(m.group(1)) <= 33 or ran != [m.group(1)] \
                    or "running it again" in err:
                fails.append(f"{mode}: expected the loop capped after 5 to 33 iterations, got "
                             f"'{loops}', ran {ran}\n{err}")
        elif mode == "check":
            if "exited with status 1 after MPI_Finalize on every rank" not in err \
                    or ran != ["18"] or not loops.endswith("after 18 iterations"):
                fails.append(f"check: expected the capped run kept: ran {ran}, "
                             f"capped '{loops}'\n{err}")
        elif mode == "abort":
            # The capped run's "ran 18" may be lost: mpirun ends the job at the first exit.
            if "the capped timing probe failed (exit status 3)" not in err \
                    or not ran or ran[-1] != "100" or "after" in loops:
                fails.append(f"abort: expected a failed capped run re-run whole: ran {ran}, "
                             f"capped '{loops}'\n{err}")
        elif mode == "rarer":
            if "never ran in the capped run" not in err or "running it again" in err \
                    or len(ran) != 1 or int(ran[0]) > 40 or "after" not in loops:
                fails.append(f"rarer: expected the capped run kept with a note: ran {ran}, "
                             f"capped '{loops}'\n{err}")
            else:
                # The estimate fills the missing segments and says what rests on the mean.
                net = os.path.join(a.work, "network.yaml")
                rc, out, err = run_group([mpiete, "probe-comm", "-o", net, "--max-size", "4096",
                                          "--launcher", a.mpiexec], a.work, env, 300)
                if rc == 0:
                    rc, out, err = run_group([mpiete, "estimate", "--program", traces,
                                              "--machine", machine, "--network", net],
                                             a.work, env, 120)
                print(f"[rarer] estimate rc {rc}")
                if rc != 0 or not re.search(r"^extrapolated: \d+ of \d+ compute segment "
                                            r"executions .*left loops early \(--cap 2\)",
                                            out, re.M):
                    fails.append(f"rarer: expected an estimate that says what is extrapolated "
                                 f"({rc}):\n{out}\n{err}")
        elif mode == "rare-last":
            if "left a loop before it made every call the traces" not in err \
                    or len(ran) != 2 or ran[1] != "100" or "after" in loops:
                fails.append(f"rare-last: expected a capped run that missed the allreduce re-run "
                             f"whole: ran {ran}, capped '{loops}'\n{err}")
        elif mode == "rare-long":
            # The plan's period of 40, seen twice after the warm-up and left at the end of a
            # period: 120 iterations, no segment missing.
            if not re.fullmatch(r"[0-9a-f]{8}:2 after 120 iterations", loops) \
                    or ran != ["120"] or "running it again" in err or "never ran" in err:
                fails.append(f"rare-long: expected loop 2 capped after 120 iterations, got "
                             f"'{loops}', ran {ran}\n{err}")
        elif loops != "" or ran != ["100"] or "running it again" in err:
            fails.append(f"{mode}: expected no capped loop and 100 steps in one run: '{loops}', "
                         f"ran {ran}\n{err}")
        if kept:
            shutil.rmtree(kept.group(1), ignore_errors=True)
    # A malformed loop file is an error naming its file and line, before anything runs.
    bad = os.path.join(a.work, "traces-bad")
    shutil.rmtree(bad, ignore_errors=True)
    shutil.copytree(os.path.join(a.work, "traces-loop-traced"), bad)
    with open(os.path.join(bad, "rank1.loops"), "a") as f:
        f.write("1768ab01:1 0 100 seventeen\n")
    rc, out, err = run_group([mpiete, "probe-compute", "--cap", "2", "--program", bad, "-o",
                              os.path.join(a.work, "machine-bad.yaml"), "-np", "2", "--launcher",
                              a.mpiexec, os.path.join(cc, "twofile.timing"), "loop", "100"],
                             a.work, env, 300)
    if rc == 0 or not re.search(r"rank1\.loops:3:1: error: malformed loop line", err) \
            or "ran " in out:
        fails.append(f"bad loop file: expected an error at rank1.loops:3:1, got rc {rc}\n"
                     f"{out}\n{err}")
    if a.fortran:
        fails += fortran(a, env, mpiete)
    for f in fails:
        print("FAIL: " + f)
    if not fails:
        print("capped probe: every mode as expected")
    return 1 if fails else 0


def fortran(a, env, mpiete):
    """The Fortran loop: capped like C's."""
    fc = os.path.join(a.work, "fc")
    rc, out, err = run_group(["make", "-C", os.path.join(HERE, "capped-fortran"),
                              "FC=mpiete-fc", f"O={fc}"], a.work, env, 600)
    if rc != 0:
        return [f"fortran: make FC=mpiete-fc failed ({rc}):\n{out}\n{err}"]
    machine = os.path.join(a.work, "machine-fortran.yaml")
    rc, out, err = run_group([mpiete, "probe-compute", "--cap", "2", "-o", machine, "-np", "2",
                              "--launcher", a.mpiexec, os.path.join(fc, "capf.timing"), "100"],
                             a.work, env, 300)
    print(f"[fortran] rc {rc}; {out.strip()}")
    if rc != 0:
        return [f"fortran: probe-compute failed ({rc}):\n{out}\n{err}"]
    loops = capped_loops(machine)
    if not re.fullmatch(r"[0-9a-f]{8}:1 after 18 iterations", loops) or \
            re.findall(r"^ran (\d+) of 100$", out, re.M) != ["18"]:
        return [f"fortran: expected loop 1 capped after 18 iterations: '{loops}'\n{out}"]
    # The loop whose MPI calls are in capstep.f: the opaque hooks, capped like the others;
    # the loop that calls only WORK makes no MPI call and runs whole.
    with open(os.path.join(fc, ".mpiete", "capmain.o.timing.f")) as f:
        hooks = re.findall(r"MPIETE_ITER_OPAQUE_CAPPED\(", f.read())
    if len(hooks) != 2:
        return [f"fortran: expected the opaque hook in both loops of capmain.f, got {len(hooks)}"]
    machine = os.path.join(a.work, "machine-fortran-opaque.yaml")
    rc, out, err = run_group([mpiete, "probe-compute", "--cap", "2", "-o", machine, "-np", "2",
                              "--launcher", a.mpiexec, os.path.join(fc, "capmain.timing"),
                              "100"], a.work, env, 300)
    print(f"[fortran-opaque] rc {rc}; {out.strip()}")
    if rc != 0:
        return [f"fortran-opaque: probe-compute failed ({rc}):\n{out}\n{err}"]
    loops = capped_loops(machine)
    if not re.fullmatch(r"[0-9a-f]{8}:\d+ after 18 iterations", loops) or \
            re.findall(r"^(?:ran|work) (\d+) of 100$", out, re.M) != ["18", "100"]:
        return [f"fortran-opaque: expected the STEP loop capped after 18 iterations and the "
                f"WORK loop whole: '{loops}'\n{out}"]
    return []


if __name__ == "__main__":
    sys.exit(main())

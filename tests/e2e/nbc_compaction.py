#!/usr/bin/env python3
"""A time-step loop with non-blocking collectives keeps a compacted trace at 4 ranks.

nbc-cg (test-programs/) built with mpiete-cc twice: its reduction completed by the halo's
MPI_Waitall (SPLIT_WAIT=0) and by an MPI_Wait after the halo's own MPI_Waitall (SPLIT_WAIT=1).
Each build's trace probe runs at 4 ranks (oversubscribed) for a short and a four times longer
run; every rank's trace must be the same size and hold the same records in both, so the
loop's iterations compacted into repeats (docs/trace-size.md) and the trace does not grow with
them (issue "Real codes, as shipped").

What it guards (runtime/lib/Nonblocking.h): where a round of a non-blocking collective is
recorded must not depend on timing. SPLIT_WAIT=0 runs with MPIETE_NBC_GRACE_MS=0 (the
reduction's own wait drives its communicator only as far as itself: the statistics MPI_Ireduce
after it is left to its own wait, whatever has arrived); SPLIT_WAIT=1 with a grace long
enough for any loaded machine (2 s: the halo's MPI_Waitall never drives the reduction's rounds
unless the rank is stuck). Without those rules the records of a round land in one iteration or
the next by timing, and the 4-rank traces grew with the iterations.
"""
import argparse
import os
import re
import shutil
import sys

from e2e_util import fresh_work, run_group

SHORT, LONG = 200, 800  # past the detector's first rounds (docs/trace-size.md)
SIZE = "96"


class Failure(Exception):
    pass


def run(cmd, env, cwd):
    """cmd's stdout; a failure or a timeout (the launcher and its ranks killed) is a Failure."""
    rc, out, err = run_group(cmd, cwd, env, timeout=240)
    if rc != 0:
        raise Failure(f"{' '.join(cmd)} {'timed out' if rc is None else f'failed ({rc})'}:\n{err}")
    return out


def records(mpiete, env, path):
    """The trace's records as stored (repeats not expanded), header left out."""
    out = run([mpiete, "trace", "dump", "--raw", path], env, None).splitlines()
    return [line for line in out[7:] if line]


def uncounted(recs):
    """The records with the repeats' counts left out: the loop's trip count is all that may
    differ between the two runs."""
    return [re.sub(r" count=\d+", "", r) if r.startswith("repeat ") else r for r in recs]


def case(args, env, split, grace):
    name = f"split{split}"
    src = os.path.join(args.work, name)
    shutil.copytree(args.program, src)
    run(["make", "-s", "CC=mpiete-cc", f"DEFS=-DTEST_EVERY=0 -DSPLIT_WAIT={split}"], env, src)
    mpiete = os.path.join(args.build, "bin", "mpiete")
    e = dict(env)
    e["MPIETE_NBC_GRACE_MS"] = grace
    traces = {}
    for iters in (SHORT, LONG):
        out = os.path.join(src, f"trace-{iters}")
        run([mpiete, "probe-program", "-o", out, "-np", "4", "--oversubscribe",
             "./nbc-cg.trace", SIZE, str(iters)], e, src)
        traces[iters] = out
    for rank in range(4):
        a = os.path.join(traces[SHORT], f"rank{rank}.trace")
        b = os.path.join(traces[LONG], f"rank{rank}.trace")
        ra, rb = records(mpiete, env, a), records(mpiete, env, b)
        if uncounted(ra) != uncounted(rb):
            raise Failure(f"{name}: rank {rank}: {len(ra)} records after {SHORT} iterations, "
                          f"{len(rb)} after {LONG}: the loop did not compact "
                          f"({os.path.getsize(a)} and {os.path.getsize(b)} bytes)")
        print(f"[{name}] rank {rank}: {len(ra)} records, {os.path.getsize(a)} / "
              f"{os.path.getsize(b)} bytes after {SHORT} / {LONG} iterations")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--program", required=True, help="test-programs/nbc-cg")
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    env = fresh_work(args.work, args.build)
    try:
        case(args, env, 0, "0")
        case(args, env, 1, "2000")
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())

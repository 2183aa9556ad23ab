#!/usr/bin/env python3
"""Second step of the Fortran runtime tests: compares what each rank recorded with the
expectations the Fortran program wrote (DIR/rank<N>.expect).

usage: fortran_check.py --variant trace|timing --dir DIR --np N [--mpiete BUILD/bin/mpiete]

  trace   `mpiete trace dump DIR/rank<N>.trace`: the records add up, per block id, to the
          expected kind, count and loop trips (send/recv count as `start`; wait, probe and
          request-free as `wait`; comm-create/-free as `comm`). Collective sites are skipped:
          their records depend on how the runtime lowers collectives.
  timing  DIR/rank<N>.timing: header, then exactly the expected lines, block and loop lines
          followed by their times.
Any mismatch prints `FAIL ...` and exits 1.
"""

import argparse
import os
import subprocess
import sys

DUMP_KIND = {
    "block": "block", "loop": "loop", "init": "init", "finalize": "finalize",
    "send": "start", "recv": "start", "wait": "wait", "probe": "wait",
    "request-free": "wait", "comm-create": "comm", "comm-free": "comm",
}

failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL {msg}", file=sys.stderr)


def read_expect(path):
    """id -> (kind, count, trips); ids lower-cased (Fortran's Z edit writes upper case)."""
    want = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            block, kind, count = parts[0].lower(), parts[1], int(parts[2])
            trips = int(parts[3]) if kind == "loop" else 0
            want[block] = (kind, count, trips)
    return want


def check_trace(mpiete, path, want, who):
    p = subprocess.run([mpiete, "trace", "dump", path], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{who}: mpiete trace dump {path} exited {p.returncode}: {p.stderr.strip()}")
        return
    skip = {b for b, (k, _, _) in want.items() if k == "collective"}
    got = {}
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2 or ":" not in parts[0] or len(parts[0].split(":")[0]) != 8:
            continue  # header lines
        block, kind = parts[0], parts[1]
        if block in skip:
            continue
        if kind not in DUMP_KIND:
            fail(f"{who}: unknown record kind in '{line}'")
            continue
        k = DUMP_KIND[kind]
        trips = 0
        if kind == "loop":
            trips = int(next(x for x in parts if x.startswith("trips=")).split("=")[1])
        old = got.get(block, (k, 0, 0))
        if old[0] != k:
            fail(f"{who}: block {block} recorded as {old[0]} and {k}")
        got[block] = (old[0], old[1] + 1, old[2] + trips)
    expected = {b: v for b, v in want.items() if b not in skip}
    for block in sorted(set(expected) | set(got)):
        if expected.get(block) != got.get(block):
            fail(f"{who}: block {block}: trace has {got.get(block)}, "
                 f"expected {expected.get(block)}")


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def check_timing(path, want, who, rank, np_):
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        fail(f"{who}: cannot read {path}: {e}")
        return
    header = f"# mpiete timing rank {rank} of {np_}"
    if not lines or lines[0] != header:
        fail(f"{who}: header {lines[:1]}, expected '{header}'")
        return
    got = {}
    for line in lines[1:]:
        if line.startswith("#"):
            continue  # further header lines (timer overhead, token passing, cpu)
        parts = line.split()
        if parts and parts[0] in ("segment", "series"):
            # compute segments (timings): `segment FROM TO N TOTAL MIN MAX SD`, `series ...`
            if len(parts) < (8 if parts[0] == "segment" else 5) or not all(
                    is_number(x) for x in parts[3:]):
                fail(f"{who}: malformed line '{line}'")
            continue
        kind = parts[1] if len(parts) > 1 else ""
        fixed = 4 if kind == "loop" else 3
        timed = kind in ("block", "loop")
        if len(parts) < fixed or (timed and len(parts) == fixed) or (
                not timed and len(parts) != fixed) or not all(
                    is_number(x) for x in parts[2:]):
            fail(f"{who}: malformed line '{line}'")
            continue
        trips = int(parts[3]) if kind == "loop" else 0
        got[parts[0]] = (kind, int(parts[2]), trips)
    for block in sorted(set(want) | set(got)):
        if want.get(block) != got.get(block):
            fail(f"{who}: block {block}: timing file has {got.get(block)}, "
                 f"expected {want.get(block)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", choices=("trace", "timing"), required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--mpiete")
    a = ap.parse_args()
    for rank in range(a.np):
        who = f"rank {rank}"
        expect = os.path.join(a.dir, f"rank{rank}.expect")
        if not os.path.isfile(expect):
            fail(f"{who}: the program wrote no {expect}")
            continue
        want = read_expect(expect)
        if a.variant == "trace":
            check_trace(a.mpiete, os.path.join(a.dir, f"rank{rank}.trace"), want, who)
        else:
            check_timing(os.path.join(a.dir, f"rank{rank}.timing"), want, who, rank, a.np)
    if failures:
        sys.exit(1)
    print(f"{a.variant}: {a.np} ranks match their expectations")


if __name__ == "__main__":
    main()

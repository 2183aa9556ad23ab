#!/usr/bin/env bash
# MPI test of `mpiete probe-program` on a real trace probe (the runtime's p2p test program,
# linked against the trace runtime): every rank's trace is there and carries the fingerprint
# of the block map beside the program.
#   probe_program_trace.sh MPIETE TRACE_PROGRAM BLOCKMAP WORKDIR
set -euo pipefail
mpiete=$1 program=$2 blockmap=$3 work=$4
rm -rf "$work" && mkdir -p "$work/bin"
cp "$program" "$work/bin/app.trace"
cp "$blockmap" "$work/bin/app.blocks.yaml"
fp=$(sed -n 's/^fingerprint: *//p' "$blockmap")
for np in 2 3; do
  "$mpiete" probe-program -o "$work/out$np" -np $np --oversubscribe "$work/bin/app.trace"
  for ((r = 0; r < np; ++r)); do
    "$mpiete" trace dump "$work/out$np/rank$r.trace" > "$work/dump$np.$r.txt"
    grep -qx "fingerprint $fp" "$work/dump$np.$r.txt"
    grep -qx "rank $r of $np" "$work/dump$np.$r.txt"
  done
  cmp "$blockmap" "$work/out$np/blocks.yaml"
done
echo "probe-program with the trace runtime ok"

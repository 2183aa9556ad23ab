#!/usr/bin/env bash
# MPI test of `mpiete probe-program` with a stand-in trace probe (fake_trace_probe.c): the
# output directory, the fingerprint of the block map beside the program, the program's own
# arguments, the copy of the block map, and the error when a rank wrote no trace.
#   probe_program.sh MPIETE FAKE_PROBE BLOCKMAP WORKDIR
set -euo pipefail
mpiete=$1 fake=$2 blockmap=$3 work=$4
rm -rf "$work" && mkdir -p "$work/bin"
cp "$fake" "$work/bin/app.trace"
cp "$blockmap" "$work/bin/app.blocks.yaml"
fp=$(sed -n 's/^fingerprint: *//p' "$blockmap")
[ -n "$fp" ]
mkdir -p "$work/out" && echo stale > "$work/out/rank7.trace"
"$mpiete" probe-program -o "$work/out" -np 3 --oversubscribe --map-by slot \
  "$work/bin/app.trace" -np 9 -o x --launcher y
for r in 0 1 2; do
  grep -qx "fingerprint $fp" "$work/out/rank$r.trace"
  grep -qx "args -np 9 -o x --launcher y" "$work/out/rank$r.trace"
done
[ ! -e "$work/out/rank7.trace" ]
cmp "$blockmap" "$work/out/blocks.yaml"
# A rank that writes nothing is an error that names it.
if "$mpiete" probe-program -o "$work/out2" -np 3 --oversubscribe "$work/bin/app.trace" \
  --skip-rank 1 2> "$work/err.txt"; then
  echo "expected a failure"; exit 1
fi
grep -q "1 of 3 traces missing" "$work/err.txt"
grep -q "rank1.trace" "$work/err.txt"
# Without a block map: a warning, no fingerprint, no blocks.yaml.
rm "$work/bin/app.blocks.yaml"
"$mpiete" probe-program -o "$work/out3" -np 2 "$work/bin/app.trace" 2> "$work/warn.txt"
grep -q "no block map" "$work/warn.txt"
grep -qx "fingerprint none" "$work/out3/rank0.trace"
[ ! -e "$work/out3/blocks.yaml" ]
echo "probe-program ok"

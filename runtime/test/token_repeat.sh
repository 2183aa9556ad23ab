#!/bin/sh
# Runs a token-machine scenario twice (the rest of the arguments: the launcher command line)
# and checks that rank 0 wrote the same non-empty wildcard.txt both times.
set -e
out=$1
shift
rm -rf "$out"
for run in 1 2; do
  MPIETE_OUTDIR="$out/run$run" "$@"
done
test -s "$out/run1/wildcard.txt" || { echo "FAIL: no wildcard.txt"; exit 1; }
if ! cmp "$out/run1/wildcard.txt" "$out/run2/wildcard.txt"; then
  echo "FAIL: wildcard receives matched differently in two runs"
  diff "$out/run1/wildcard.txt" "$out/run2/wildcard.txt" || true
  exit 1
fi
echo "wildcard order:" $(cat "$out/run1/wildcard.txt")

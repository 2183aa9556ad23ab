#!/usr/bin/env bash
# MPI test: `mpiete probe-comm` at a small size writes a complete network.yaml.
#   probe_comm.sh MPIETE CHECKER WORKDIR
set -euo pipefail
mpiete=$1 checker=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$mpiete" probe-comm -o "$work/network.yaml" --max-size 16K --step 1K --max-reps 200 \
  --oversubscribe
"$checker" "$work/network.yaml" 16384 1024
grep -q "^  send_buffers: rewritten$" "$work/network.yaml"
# Launcher options keep their values, --linear-only gives seed 004's sweep only and
# --unchanged-buffers the probe's measurement with clean send buffers.
"$mpiete" probe-comm -o "$work/linear.yaml" --max-size 2048 --step 512 --linear-only \
  --unchanged-buffers --mca btl self,vader --verbose 2> "$work/verbose.txt"
grep -q -- "--mca btl self,vader" "$work/verbose.txt"
grep -q -- "comm_probe .*--unchanged-buffers" "$work/verbose.txt"
grep -q "^  send_buffers: unchanged$" "$work/linear.yaml"
rows=$(sed '/^memory_copy:/,$d' "$work/linear.yaml" | grep -c '^    - \[')
[ "$rows" = 5 ] || { echo "expected 5 rows, got $rows"; exit 1; }
# The memory-copy table (issue 13): one row per size too.
copies=$(sed -n '/^memory_copy:/,/^same_buffer:/p' "$work/linear.yaml" | grep -c '^    - \[')
[ "$copies" = 5 ] || { echo "expected 5 memory_copy rows, got $copies"; exit 1; }
# The same-buffer ping-pong (issue 13, ring): one row per size as well.
same=$(sed -n '/^same_buffer:/,/^exchange:/p' "$work/linear.yaml" | grep -c '^    - \[')
[ "$same" = 5 ] || { echo "expected 5 same_buffer rows, got $same"; exit 1; }
# The simultaneous exchange (issue 13, alltoallw-transpose): one row per size; its packed
# variant (pieces of 512 bytes) one per size of at least a piece.
exchange=$(sed -n '/^exchange:/,/^exchange_packed:/p' "$work/linear.yaml" | grep -c '^    - \[')
[ "$exchange" = 5 ] || { echo "expected 5 exchange rows, got $exchange"; exit 1; }
grep -q "^  piece_bytes: 512$" "$work/linear.yaml"
xpacked=$(sed -n '/^exchange_packed:/,/^packed:/p' "$work/linear.yaml" | grep -c '^    - \[')
[ "$xpacked" = 4 ] || { echo "expected 4 exchange_packed rows, got $xpacked"; exit 1; }
# The packed ping-pong (issue 13, alltoallw-transpose): a table per piece length up to the
# largest size (8, 64 and 512 bytes here), a row per size of at least 256 bytes and a piece.
pieces=$(sed -n '/^packed:/,/^unpacked:/p' "$work/linear.yaml" | grep -c '^    - piece_bytes: ')
[ "$pieces" = 3 ] || { echo "expected 3 packed tables, got $pieces"; exit 1; }
packed=$(sed -n '/^packed:/,/^unpacked:/p' "$work/linear.yaml" | grep -c '^        - \[')
[ "$packed" = 12 ] || { echo "expected 12 packed rows, got $packed"; exit 1; }
# Its mirror, sent contiguously and received into the vectors (the receiver's unpacking):
# the same tables and rows.
upieces=$(sed -n '/^unpacked:/,/^memory_copy_packed:/p' "$work/linear.yaml" | grep -c '^    - piece_bytes: ')
[ "$upieces" = 3 ] || { echo "expected 3 unpacked tables, got $upieces"; exit 1; }
unpacked=$(sed -n '/^unpacked:/,/^memory_copy_packed:/p' "$work/linear.yaml" | grep -c '^        - \[')
[ "$unpacked" = 12 ] || { echo "expected 12 unpacked rows, got $unpacked"; exit 1; }
# MPI_Pack of the same vectors on rank 0 (the local copy of an own block with gaps).
pcopies=$(sed -n '/^memory_copy_packed:/,$p' "$work/linear.yaml" | grep -c '^    - piece_bytes: ')
[ "$pcopies" = 3 ] || { echo "expected 3 memory_copy_packed tables, got $pcopies"; exit 1; }
# Errors: no output file; too few ranks for two pairs.
if "$mpiete" probe-comm --max-size 1K 2> "$work/err.txt"; then exit 1; fi
grep -q "give -o FILE" "$work/err.txt"
if "$mpiete" probe-comm -o "$work/x.yaml" --pairs 2 -np 2 2> "$work/err.txt"; then exit 1; fi
grep -q "need -np 4" "$work/err.txt"
echo "probe-comm ok"

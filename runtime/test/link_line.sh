#!/bin/sh
# Builds link_probe.c the way the wrapper builds probes (mpicc, <build>/include, <build>/lib and
# the link flags of docs/runtime-abi.md), runs it on 2 ranks, and checks that its stdout is only
# the program's own and that the output file was written.
# usage: link_line.sh <mpicc> <build dir> <trace|timing> <work dir> <mpiexec> <np flag> [preflags...]
set -eu
cc=$1 build=$2 variant=$3 work=$4 mpiexec=$5 npflag=$6
shift 6
src=$(dirname "$0")/link_probe.c
mkdir -p "$work"
rm -f "$work/probe" "$work/stdout" "$work/out/rank0.$variant" "$work/out/rank0.trace" "$work/out/rank1.trace"
define=""
if [ "$variant" = timing ]; then define=-DPROBE_TIMING; fi
"$cc" -std=c99 -Wall -Wextra -Werror $define -I"$build/include" -c "$src" -o "$work/probe.o"
"$cc" "$work/probe.o" -o "$work/probe" -L"$build/lib" -lmpiete_$variant -lstdc++ -lm
MPIETE_OUTDIR="$work/out" "$mpiexec" "$npflag" 2 "$@" "$work/probe" > "$work/stdout"
printf 'probe: 2 ranks, sum 3\n' > "$work/stdout.expected"
cmp "$work/stdout" "$work/stdout.expected"
for r in 0 1; do
  if [ "$variant" = timing ]; then
    head -n 1 "$work/out/rank$r.timing" | grep -qx "# mpiete $variant rank $r of 2"
  else
    head -c 8 "$work/out/rank$r.trace" | grep -q '^MPIETRC$'
  fi
done
echo "link line ok: -L$build/lib -lmpiete_$variant -lstdc++ -lm"

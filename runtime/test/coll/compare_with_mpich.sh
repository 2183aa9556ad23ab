#!/bin/sh
# Compares, per rank and peer, the messages (count and bytes) mpiete's lowered collectives send
# under MPIETE_COLL_TABLE=mpich with those MPICH itself sends for the same call, counted by
# ucx_spy.so (its UCX tag sends; Debian's MPICH is ch4:ucx). compare_with_ompi.sh's
# cases plus large and non-commutative reduce-scatters (109 per size); one mpiexec per case and
# side, so it takes minutes: run by hand.
# MPICH runs with MPIR_CVAR_NOLOCAL=1 (every rank as if on a node of its own, the case the
# decision table is about: otherwise ch4's node-aware compositions re-route through a node
# leader), and messages a rank sends itself are left out on both sides (they never reach the
# network; mpiete copies locally).
#   compare_with_mpich.sh <coll_messages binary of an MPICH build> <ucx_spy.so> <np>...
# COLLS="bcast scan" (optional) keeps only the cases of those collectives.
# Prints one line per case (same / DIFF) and exits non-zero if any case differs.
set -u
prog=$1 spy=$2; shift 2
mpiexec=${MPIEXEC:-mpiexec.mpich}
cases="bcast:1 bcast:100 bcast:1000 bcast:5000 bcast:20000 bcast:100000 bcast:600000
reduce:4 reduce:12 reduce:100 reduce:1000 reduce:5000 reduce:20000 reduce:100000 reduce:300000
reduce_nc:4 reduce_nc:1000 reduce_nc:100000
allreduce:4 allreduce:100 allreduce:1000 allreduce:10000 allreduce:40000 allreduce:300000
allreduce_nc:100 allreduce_nc:200000
gather:1 gather:3 gather:100 gather:1500 gather:5000 gather:20000 gather:100000
scatter:1 scatter:100 scatter:1500 scatter:3000 scatter:5000 scatter:20000 scatter:100000
gatherv:100 scatterv:100 allgather:1 allgather:100 allgather:5000 allgather:100000
allgatherv:10 allgatherv:1000 allgatherv:5000 allgatherv:50000
alltoall:1 alltoall:100 alltoall:10000 alltoall:20000 alltoallv:100
reduce_scatter_block:4 reduce_scatter_block:100 reduce_scatter_block:5000 reduce_scatter_block:20000
reduce_scatter_block:131072 reduce_scatter_block:150000 reduce_scatter_block:600000
reduce_scatter:100 reduce_scatter:20000 reduce_scatter:300000 reduce_scatter:600000
reduce_scatter_block_nc:100 reduce_scatter_block_nc:20000 reduce_scatter_nc:100
reduce_scatter_nc:20000 reduce_scatter_even_nc:100 reduce_scatter_even_nc:20000
scan:100 exscan:100 barrier:0"
if [ -n "${COLLS:-}" ]; then
  kept=""
  for c in $cases; do
    case " $COLLS " in *" ${c%%:*} "*) kept="$kept $c" ;; esac
  done
  cases=$kept
fi
# The spy must see MPICH's messages at all (a bcast at 2 ranks sends one).
probe=$(LD_PRELOAD=$spy MPIR_CVAR_NOLOCAL=1 "$mpiexec" -n 2 "$prog" real bcast 100 0 2>&1 | grep -c '^I')
if [ "$probe" != 1 ]; then
  echo "compare_with_mpich.sh: no counts from MPICH (is $spy preloaded into an MPICH ch4:ucx?)"
  exit 2
fi
status=0
for np in "$@"; do
  for c in $cases; do
    coll=${c%%:*}; bytes=${c#*:}
    for root in 0 $((np - 1)); do
      case $coll in bcast|reduce|reduce_nc|gather|scatter|gatherv|scatterv) ;;
        *) [ "$root" != 0 ] && continue ;; esac
      real=$(LD_PRELOAD=$spy MPIR_CVAR_NOLOCAL=${MPIR_CVAR_NOLOCAL:-1} "$mpiexec" -n "$np" "$prog" real "$coll" "$bytes" "$root" 2>&1 |
             grep '^I' | awk '$2 != $3' | sort)
      ours=$(MPIETE_COLL_TABLE=mpich "$mpiexec" -n "$np" "$prog" ours "$coll" "$bytes" "$root" 2>&1 |
             grep '^I' | awk '$2 != $3' | sort)
      if [ "$real" = "$ours" ]; then
        echo "same np=$np $coll bytes=$bytes root=$root"
      else
        echo "DIFF np=$np $coll bytes=$bytes root=$root"
        echo "  mpich: $(echo "$real" | tr '\t\n' ' ;')"
        echo "  ours:  $(echo "$ours" | tr '\t\n' ' ;')"
        status=1
      fi
    done
  done
done
exit $status

#!/bin/sh
# Checks the capped-mean header lines of runtime/test/capped.c's timing files: OUT NP MODE.
# The periodic loop runs the warm-up (t = 0) and t = 1..17: its measured iterations make 9
# sendrecv -> sendrecv, 9 sendrecv -> allreduce and 8 allreduce -> sendrecv segments (the
# last allreduce's segment ends after the loop); the warm-up's are left out, and so is the
# sendrecv -> sendrecv that began in the warm-up and ends at t = 1 (8 left); the growing loop
# is never left early, so it has none.
out=$1 np=$2 mode=$3
r=0
while [ "$r" -lt "$np" ]; do
  got=$(grep '^# capped-mean' "$out/rank$r.timing" | awk '{print $3, $4, $5}' | sort)
  if [ "$mode" = growing ]; then
    want=""
  else
    want=$(printf '%s\n' "00abc124:10 00abc124:10 8" "00abc124:10 00abc124:20 9" \
      "00abc124:20 00abc124:10 8" | sort)
  fi
  if [ "$got" != "$want" ]; then
    echo "FAIL rank $r: capped-mean lines (from to occurrences):"
    echo "$got"
    echo "expected:"
    echo "$want"
    exit 1
  fi
  r=$((r + 1))
done
echo "capped-mean lines as expected on $np ranks"

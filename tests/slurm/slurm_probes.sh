#!/usr/bin/env bash
# The probes through a real Slurm: starts a private single-machine Slurm (slurm_cluster.sh),
# builds test-programs/ring with mpiete-cc, then runs with `--launcher srun`:
#   probe-program (srun -n 3), probe-compute (srun -N1 -n 2), probe-comm (srun -N2 when the
#   cluster has two nodes, else -N1 with a note), and estimate on the three files; then the
#   README's batch script (the same four steps) through sbatch --wait.
# Exits 77 (ctest: skipped) with the reason when Slurm cannot start here.
#   slurm_probes.sh <build dir> <work dir> <openmpi|mpich>
set -uo pipefail
build=$(cd "$1" && pwd) work=$2 kind=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/slurm_cluster.sh"
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
fail() { echo "FAIL: $*"; exit 1; }

# Open MPI 4.1 starts under srun through PMIx; MPICH's PMI client speaks Slurm's PMI-2.
case $kind in
  mpich) mpi=--mpi=pmi2 ;;
  *) mpi=--mpi=pmix ;;
esac
export PATH="$build/bin:$PATH" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

slurm_start "$work/slurm" >"$work/why" ||
  { echo "SKIP: a private Slurm cannot start here: $(cat "$work/why")"; exit 77; }
trap slurm_stop EXIT
echo "slurm: $(sinfo -h -o '%P %a %D nodes %N') (config $SLURM_CONF)"

make -s -C "$root/test-programs/ring" CC=mpiete-cc O="$work/bin" >/dev/null || fail "make CC=mpiete-cc"
app=$work/bin/ring
args=(20 4096)

mpiete probe-program --launcher srun -o "$work/program" -np 3 $mpi "$app.trace" "${args[@]}" ||
  fail "probe-program --launcher srun"
for r in 0 1 2; do [[ -s $work/program/rank$r.trace ]] || fail "no rank$r.trace"; done
echo "ok: probe-program through srun -n 3: $(ls "$work/program" | tr '\n' ' ')"

mpiete probe-compute --launcher srun -o "$work/machine.yaml" -N1 -np 2 $mpi "$app.timing" \
  "${args[@]}" || fail "probe-compute --launcher srun -N1"
grep -q '^format: mpiete-compute' "$work/machine.yaml" || fail "machine.yaml: $(head -3 "$work/machine.yaml")"
grep -q 'srun' "$work/machine.yaml" || fail "machine.yaml does not record the srun command"
echo "ok: probe-compute through srun -N1 -n 2"

if ((SLURM_NODES >= 2)); then
  nodes=2
else
  nodes=1
  echo "note: this Slurm has one node: probe-comm runs its pair on one node (srun -N1), an intra-node network"
fi
mpiete probe-comm --launcher srun -o "$work/network.yaml" -N$nodes -np 2 --max-size 65536 $mpi ||
  fail "probe-comm --launcher srun -N$nodes"
grep -q 'srun' "$work/network.yaml" || fail "network.yaml does not record the srun command"
echo "ok: probe-comm through srun -N$nodes -n 2"

mpiete estimate --program "$work/program" --machine "$work/machine.yaml" \
  --network "$work/network.yaml" >"$work/estimate.txt" || fail "estimate"
grep -qi 'predicted' "$work/estimate.txt" || fail "estimate printed: $(cat "$work/estimate.txt")"
echo "ok: estimate from the three base data collected through Slurm"

# The README's batch script, at this cluster's size: sbatch runs the same workflow as a job
# (several options on one #SBATCH line, the probes' srun steps inside the allocation).
cat >"$work/job.sh" <<JOB
#!/bin/bash
#SBATCH --nodes=1 --ntasks-per-node=2 --exclusive --time=00:10:00
#SBATCH --output=$work/job.out
set -e
cd "$work"
mpiete probe-program -o job-prog/ --launcher srun -n 2 $mpi "$app.trace" ${args[*]}
mpiete probe-compute -o job-machine.yaml --launcher srun -N1 -n 2 $mpi "$app.timing" ${args[*]}
mpiete probe-comm -o job-network.yaml --launcher srun -N1 -n 2 --ntasks-per-node=2 --max-size 65536 $mpi
mpiete estimate --program job-prog/ --machine job-machine.yaml --network job-network.yaml
JOB
timeout 300 sbatch --wait "$work/job.sh" >"$work/sbatch.out" 2>&1 ||
  fail "sbatch --wait job.sh: $(cat "$work/sbatch.out"; tail -5 "$work/job.out" 2>/dev/null)"
grep -qi 'predicted' "$work/job.out" || fail "the batch job printed: $(tail -5 "$work/job.out")"
echo "ok: the README's batch script through sbatch: $(grep -i -m1 'predicted' "$work/job.out")"

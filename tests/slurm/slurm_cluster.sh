#!/usr/bin/env bash
# A real single-machine Slurm for the tests: slurmctld + slurmd on this machine with their own
# configuration, state and logs in a temporary directory, so nothing of the system's Slurm (if
# any) is used or changed. Source it, then:
#   slurm_start DIR    starts both daemons; on success exports SLURM_CONF and returns 0; when they
#                      cannot start here (no Slurm installed, not root, no free port) prints why
#                      on stdout and returns 2 (the test then skips)
#   slurm_stop         stops the daemons it started (by their pid files), nothing else
# Authentication is auth/none (no munge daemon needed): only for a private test cluster. The node
# claims 16 processors (config_overrides) so that probes may run more ranks than there are cores,
# as they do under mpirun --oversubscribe.

slurm_start() {
  SLURM_DIR=$1
  local t
  for t in slurmctld slurmd srun sinfo; do
    command -v "$t" >/dev/null 2>&1 || { echo "no '$t' (Debian's slurm-wlm is not installed)"; return 2; }
  done
  [[ $(id -u) == 0 ]] || { echo "slurmd must run as root to start jobs; running as $(id -un)"; return 2; }
  [[ -e /usr/lib/x86_64-linux-gnu/slurm-wlm/auth_none.so || -e /usr/lib/slurm/auth_none.so ]] ||
    echo "note: no auth_none plugin found; slurmctld may refuse the configuration"
  mkdir -p "$SLURM_DIR"/{state,spool,log}
  local host ports
  host=$(hostname -s)
  # Two free TCP ports, so that several test runs (or a system Slurm) do not collide.
  ports=$(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))') || { echo "no free port"; return 2; }
  set -- $ports
  cat > "$SLURM_DIR/slurm.conf" <<CONF
ClusterName=mpiete-test
SlurmctldHost=$host
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool/%n
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/log/slurmctld.log
SlurmdLogFile=$SLURM_DIR/log/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
SlurmdParameters=config_overrides
NodeName=$host CPUs=16 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
CONF
  export SLURM_CONF=$SLURM_DIR/slurm.conf
  slurmctld -f "$SLURM_CONF" -i >"$SLURM_DIR/log/slurmctld.out" 2>&1 ||
    { echo "slurmctld did not start: $(tail -3 "$SLURM_DIR/log/slurmctld.log" 2>/dev/null)"; return 2; }
  slurmd -f "$SLURM_CONF" -N "$host" >"$SLURM_DIR/log/slurmd.out" 2>&1 ||
    { echo "slurmd did not start: $(tail -3 "$SLURM_DIR/log/slurmd.log" 2>/dev/null)"; slurm_stop; return 2; }
  local i
  for i in $(seq 1 60); do
    if sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
      SLURM_NODES=$(sinfo -h -N -o '%N' | sort -u | wc -l)
      export SLURM_NODES
      return 0
    fi
    sleep 0.5
  done
  echo "the node did not come up in 30 s: $(sinfo -N 2>&1 | tail -1); $(tail -2 "$SLURM_DIR/log/slurmd.log")"
  slurm_stop
  return 2
}

slurm_stop() {
  local f pid
  for f in "$SLURM_DIR/slurmd.pid" "$SLURM_DIR/slurmctld.pid"; do
    [[ -s $f ]] || continue
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
}

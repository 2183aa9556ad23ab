# Shared settings of the virtual-cluster scripts (up, down, run, agent); sourced, not run.
# Everything the cluster creates is named from VC_NAME so that down can find it again.
VC_NAME=${VC_NAME:-vc}
VC_STATE=${VC_STATE:-/tmp/mpiete-$VC_NAME}
VC_SUBNET_PREFIX=${VC_SUBNET_PREFIX:-10.77.0}
VC_CGROUP_ROOT=${VC_CGROUP_ROOT:-/sys/fs/cgroup/cpu}
VC_CGROUP=$VC_CGROUP_ROOT/mpiete-$VC_NAME
VC_PERIOD_US=${VC_PERIOD_US:-10000}
VC_SLICE_US=${VC_SLICE_US:-100}   # scheduler slice of a host's processes and hog, --cpu share

vcDie() { echo "vcluster: error: $*" >&2; exit 1; }
vcNs() { echo "$VC_NAME-$1"; }          # namespace of host $1 (also: sw, head)
vcAddr() { echo "$VC_SUBNET_PREFIX.$((10 + ${1#h}))"; }  # address of host hN
vcLoadConfig() {
  [ -r "$VC_STATE/config" ] || vcDie "no virtual cluster is up ($VC_STATE/config missing); run bench/vcluster/up"
  . "$VC_STATE/config"
}

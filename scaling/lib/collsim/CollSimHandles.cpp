// The storage behind MPI's predefined handles for the simulated lowering (CollSim.cpp): Open
// MPI's mpi.h makes MPI_BYTE, MPI_COMM_WORLD, ... addresses of library globals, renamed to
// these for the simulation's objects. This file must not include mpi.h (it declares them as
// incomplete types); only their addresses are ever used.
extern "C" {
alignas(64) char mpiete_sim_byte[64];
alignas(64) char mpiete_sim_datatype_null[64];
alignas(64) char mpiete_sim_comm_world[64];
alignas(64) char mpiete_sim_comm_self[64];
alignas(64) char mpiete_sim_request_null[64];
alignas(64) char mpiete_sim_op_max[64], mpiete_sim_op_min[64], mpiete_sim_op_sum[64],
    mpiete_sim_op_prod[64], mpiete_sim_op_land[64], mpiete_sim_op_band[64], mpiete_sim_op_lor[64],
    mpiete_sim_op_bor[64], mpiete_sim_op_lxor[64], mpiete_sim_op_bxor[64], mpiete_sim_op_minloc[64],
    mpiete_sim_op_maxloc[64], mpiete_sim_op_replace[64], mpiete_sim_op_no_op[64];
}

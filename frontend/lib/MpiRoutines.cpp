// Tables of MPI routines: the rewritten ones come from the runtime's routines.def.
#include "mpiete/frontend/MpiRoutines.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>

namespace mpiete {
namespace {

// The role spellings routines.def uses.
namespace def_roles {
constexpr MpiRole INIT = MpiRole::Init;
constexpr MpiRole FINALIZE = MpiRole::Finalize;
constexpr MpiRole SEND = MpiRole::Send;
constexpr MpiRole RECV = MpiRole::Recv;
constexpr MpiRole SENDRECV = MpiRole::SendRecv;
constexpr MpiRole START = MpiRole::Start;
constexpr MpiRole WAIT = MpiRole::Wait;
constexpr MpiRole PROBE = MpiRole::Probe;
constexpr MpiRole COLLECTIVE = MpiRole::Collective;
constexpr MpiRole COMM = MpiRole::Comm;
constexpr MpiRole ICOLLECTIVE = MpiRole::ICollective;
} // namespace def_roles

/// The names in a stringised argument list: `(buf, count)` 2, `()` 0.
constexpr unsigned countArgs(std::string_view List) {
  unsigned Commas = 0;
  bool Any = false;
  for (char C : List) {
    Commas += C == ',';
    Any |= C != '(' && C != ')' && C != ' ';
  }
  return Any ? Commas + 1 : 0;
}

// The argument list's text after macro expansion (MPIETE_P2P_SEND_ARGS and the like).
#define MPIETE_ARGS_TEXT_(...) #__VA_ARGS__
#define MPIETE_ARGS_TEXT(Args) MPIETE_ARGS_TEXT_(Args)

constexpr MpiRoutineInfo Rewritten[] = {
#define MPIETE_ROUTINE(MpiName, RuntimeName, Role, Params, Args)                                   \
  {#MpiName, #RuntimeName, def_roles::Role, countArgs(MPIETE_ARGS_TEXT(Args))},
#include "mpiete/routines.def"
};

// Routines that neither communicate nor synchronise: left as written, timed as computation.
constexpr std::string_view Local[] = {
    "MPI_Abort",
    "MPI_Add_error_class",
    "MPI_Add_error_code",
    "MPI_Add_error_string",
    "MPI_Address",
    "MPI_Alloc_mem",
    "MPI_Attr_delete",
    "MPI_Attr_get",
    "MPI_Attr_put",
    "MPI_Buffer_attach",
    "MPI_Buffer_detach",
    "MPI_Cart_coords",
    "MPI_Cart_get",
    "MPI_Cart_map",
    "MPI_Cart_rank",
    "MPI_Cart_shift",
    "MPI_Cartdim_get",
    "MPI_Comm_c2f",
    "MPI_Comm_call_errhandler",
    "MPI_Comm_compare",
    "MPI_Comm_create_errhandler",
    "MPI_Comm_create_keyval",
    "MPI_Comm_delete_attr",
    "MPI_Comm_f2c",
    "MPI_Comm_free_keyval",
    "MPI_Comm_get_attr",
    "MPI_Comm_get_errhandler",
    "MPI_Comm_get_info",
    "MPI_Comm_get_name",
    "MPI_Comm_group",
    "MPI_Comm_rank",
    "MPI_Comm_remote_group",
    "MPI_Comm_remote_size",
    "MPI_Comm_set_attr",
    "MPI_Comm_set_errhandler",
    "MPI_Comm_set_info",
    "MPI_Comm_set_name",
    "MPI_Comm_size",
    "MPI_Comm_test_inter",
    "MPI_Dims_create",
    "MPI_Errhandler_create",
    "MPI_Errhandler_free",
    "MPI_Errhandler_get",
    "MPI_Errhandler_set",
    "MPI_Error_class",
    "MPI_Error_string",
    "MPI_Finalized",
    "MPI_Free_mem",
    "MPI_Get_address",
    "MPI_Get_count",
    "MPI_Get_elements",
    "MPI_Get_elements_x",
    "MPI_Get_library_version",
    "MPI_Get_processor_name",
    "MPI_Get_version",
    "MPI_Graph_get",
    "MPI_Graph_map",
    "MPI_Graph_neighbors",
    "MPI_Graph_neighbors_count",
    "MPI_Graphdims_get",
    "MPI_Group_compare",
    "MPI_Group_difference",
    "MPI_Group_excl",
    "MPI_Group_free",
    "MPI_Group_incl",
    "MPI_Group_intersection",
    "MPI_Group_range_excl",
    "MPI_Group_range_incl",
    "MPI_Group_rank",
    "MPI_Group_size",
    "MPI_Group_translate_ranks",
    "MPI_Group_union",
    "MPI_Info_create",
    "MPI_Info_delete",
    "MPI_Info_dup",
    "MPI_Info_free",
    "MPI_Info_get",
    "MPI_Info_get_nkeys",
    "MPI_Info_get_nthkey",
    "MPI_Info_get_valuelen",
    "MPI_Info_set",
    "MPI_Initialized",
    "MPI_Is_thread_main",
    "MPI_Keyval_create",
    "MPI_Keyval_free",
    "MPI_Op_commutative",
    "MPI_Op_create",
    "MPI_Op_free",
    "MPI_Pack",
    "MPI_Pack_external",
    "MPI_Pack_external_size",
    "MPI_Pack_size",
    "MPI_Pcontrol",
    "MPI_Query_thread",
    "MPI_Reduce_local",
    "MPI_Request_get_status",
    "MPI_Sizeof",
    "MPI_Status_set_cancelled",
    "MPI_Status_set_elements",
    "MPI_Status_set_elements_x",
    "MPI_Test_cancelled",
    "MPI_Topo_test",
    "MPI_Type_commit",
    "MPI_Type_contiguous",
    "MPI_Type_create_darray",
    "MPI_Type_create_f90_complex",
    "MPI_Type_create_f90_integer",
    "MPI_Type_create_f90_real",
    "MPI_Type_create_hindexed",
    "MPI_Type_create_hindexed_block",
    "MPI_Type_create_hvector",
    "MPI_Type_create_indexed_block",
    "MPI_Type_create_keyval",
    "MPI_Type_create_resized",
    "MPI_Type_create_struct",
    "MPI_Type_create_subarray",
    "MPI_Type_delete_attr",
    "MPI_Type_dup",
    "MPI_Type_extent",
    "MPI_Type_free",
    "MPI_Type_free_keyval",
    "MPI_Type_get_attr",
    "MPI_Type_get_contents",
    "MPI_Type_get_envelope",
    "MPI_Type_get_extent",
    "MPI_Type_get_extent_x",
    "MPI_Type_get_name",
    "MPI_Type_get_true_extent",
    "MPI_Type_get_true_extent_x",
    "MPI_Type_hindexed",
    "MPI_Type_hvector",
    "MPI_Type_indexed",
    "MPI_Type_lb",
    "MPI_Type_match_size",
    "MPI_Type_set_attr",
    "MPI_Type_set_name",
    "MPI_Type_size",
    "MPI_Type_size_x",
    "MPI_Type_struct",
    "MPI_Type_ub",
    "MPI_Type_vector",
    "MPI_Unpack",
    "MPI_Unpack_external",
    "MPI_Wtick",
    "MPI_Wtime",
    // Handle conversion between languages.
    "MPI_Errhandler_c2f",
    "MPI_Errhandler_f2c",
    "MPI_Group_c2f",
    "MPI_Group_f2c",
    "MPI_Info_c2f",
    "MPI_Info_f2c",
    "MPI_Op_c2f",
    "MPI_Op_f2c",
    "MPI_Request_c2f",
    "MPI_Request_f2c",
    "MPI_Status_c2f",
    "MPI_Status_f2c",
    "MPI_Type_c2f",
    "MPI_Type_f2c",
};

constexpr std::pair<std::string_view, std::string_view> RejectedPrefixes[] = {
    {"MPI_Win_", "one-sided communication"},
    {"MPI_File_", "MPI-IO"},
    {"MPI_Register_datarep", "MPI-IO"},
    {"MPI_Comm_spawn", "dynamic process management"},
    {"MPI_Comm_accept", "dynamic process management"},
    {"MPI_Comm_connect", "dynamic process management"},
    {"MPI_Intercomm_", "inter-communicator"},
    {"MPI_Mprobe", "matched probe"},
    {"MPI_Improbe", "matched probe"},
    {"MPI_Mrecv", "matched probe"},
    {"MPI_Imrecv", "matched probe"},
    {"MPI_Grequest_", "generalized request"},
    {"MPI_Cancel", "request cancellation"},
    {"MPI_Dist_graph_", "distributed graph topology"},
    {"MPI_Graph_create", "graph topology"},
};

// One-sided operations whose names do not start with MPI_Win_.
constexpr std::string_view OneSided[] = {"MPI_Put",          "MPI_Get",
                                         "MPI_Accumulate",   "MPI_Get_accumulate",
                                         "MPI_Fetch_and_op", "MPI_Compare_and_swap",
                                         "MPI_Rput",         "MPI_Rget",
                                         "MPI_Raccumulate",  "MPI_Rget_accumulate"};

constexpr std::string_view PersistentSuffix = "_init";

} // namespace

const MpiRoutineInfo *findRewrittenRoutine(std::string_view Name) {
  for (const MpiRoutineInfo &R : Rewritten)
    if (R.Name == Name)
      return &R;
  return nullptr;
}

unsigned fortranArgsBeforeError(const MpiRoutineInfo &Info) {
  if (Info.Name == "MPI_Init")
    return 0;
  if (Info.Name == "MPI_Init_thread")
    return 2;
  return Info.CArgs;
}

bool isLocalRoutine(std::string_view Name) {
  // MPI_T_*: the tool information interface (control and performance variables), local.
  return Name.starts_with("MPI_T_") ||
         std::find(std::begin(Local), std::end(Local), Name) != std::end(Local);
}

std::string_view unhandledReason(std::string_view Name) {
  if (std::find(std::begin(OneSided), std::end(OneSided), Name) != std::end(OneSided))
    return "one-sided communication";
  for (const auto &[Prefix, Reason] : RejectedPrefixes)
    if (Name.starts_with(Prefix))
      return Reason;
  // Point-to-point ones (MPI_Send_init, ...) are rewritten; MPI-4's persistent collectives
  // (MPI_Allreduce_init, ...) are not.
  if (Name.ends_with(PersistentSuffix))
    return "persistent collective";
  return "routine not supported";
}

bool isRunMpiIoRoutine(std::string_view Name) {
  // MPI_File_iread, MPI_File_iwrite_all, ...: their requests would reach the runtime's waits,
  // which know only its own requests.
  return Name.starts_with("MPI_File_") && !Name.starts_with("MPI_File_i");
}

void diagnoseUnhandledRoutine(const std::string &Name, const DiagLoc &Loc,
                              const std::vector<std::string> &PassThrough, bool PassThroughAll,
                              UnitModel &Model, DiagnosticSink &Diags) {
  if (Name.rfind("PMPI_", 0) == 0) {
    Diags.error(Loc,
                "direct call to profiling routine '" + Name + "' is not supported; call '" +
                    Name.substr(1) + "' instead",
                "unsupported");
    return;
  }
  std::string Reason(unhandledReason(Name));
  if (isRunMpiIoRoutine(Name)) {
    // MPI-IO runs as written; the probes run its collective routines with every member of the
    // file's communicator at once (runtime/lib/Interpose.cpp). No option needed: a program
    // that writes its results with MPI-IO builds as shipped.
    Diags.warning(Loc,
                  "'" + Name +
                      "' (MPI-IO) runs uninstrumented; predictions do not model file I/O "
                      "(collective file calls are left out, the others count as computation)",
                  "io");
    if (std::find(Model.PassedThrough.begin(), Model.PassedThrough.end(), Name) ==
        Model.PassedThrough.end())
      Model.PassedThrough.push_back(Name);
    return;
  }
  if (!PassThroughAll &&
      std::find(PassThrough.begin(), PassThrough.end(), Name) == PassThrough.end()) {
    Diags.error(Loc,
                "'" + Name + "' (" + Reason +
                    ") is not supported by mpiete; pass it through uninstrumented with "
                    "--mpiete-pass-through=" +
                    Name + " (predictions then ignore it)",
                "unsupported");
    return;
  }
  Diags.warning(Loc,
                "'" + Name + "' (" + Reason +
                    ") is passed through uninstrumented; predictions ignore its cost",
                "pass-through");
  if (std::find(Model.PassedThrough.begin(), Model.PassedThrough.end(), Name) ==
      Model.PassedThrough.end())
    Model.PassedThrough.push_back(Name);
}

RoleBlock roleBlock(MpiRole R, unsigned I) {
  switch (R) {
  case MpiRole::Send:
  case MpiRole::Recv:
    return I == 0 ? RoleBlock{BlockKind::Comm, "start"} : RoleBlock{BlockKind::Wait, "wait"};
  case MpiRole::SendRecv:
    return I == 0   ? RoleBlock{BlockKind::Comm, "send-start"}
           : I == 1 ? RoleBlock{BlockKind::Comm, "recv-start"}
                    : RoleBlock{BlockKind::Wait, "waitall"};
  case MpiRole::Start:
    return {BlockKind::Comm, "start"};
  case MpiRole::Wait:
  case MpiRole::Probe:
    return {BlockKind::Wait, "wait"};
  case MpiRole::Collective:
  case MpiRole::ICollective:
    return {BlockKind::Collective, ""};
  case MpiRole::Comm:
    return {BlockKind::CommMgmt, ""};
  case MpiRole::Init:
    return {BlockKind::Init, ""};
  case MpiRole::Finalize:
    return {BlockKind::Finalize, ""};
  }
  return {BlockKind::Comm, ""};
}

unsigned blocksForRole(MpiRole R) {
  switch (R) {
  case MpiRole::Send:
  case MpiRole::Recv:
    return 2;
  case MpiRole::SendRecv:
    return 3;
  default:
    return 1;
  }
}

} // namespace mpiete

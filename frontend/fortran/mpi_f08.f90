! The `mpi_f08` module mpiete's Fortran frontend reads (with Flang) instead of the MPI library's
! own, which Flang cannot read: the handle types with their MPI_VAL, the handle constants as
! values of those types (from the MPI library's mpif.h), the other constants as in mpif.h,
! MPI_Status with its public fields, == and /= on handles, and every MPI routine mpiete knows
! as an external procedure (so that `use mpi_f08, only: MPI_Send` resolves). The routines have
! no explicit interfaces here: the analysis needs their names and arguments, not their types.
! It is used only for the analysis; the program itself is always compiled against the MPI
! library's real module.
module mpiete_mpif_constants
  implicit none
  include 'mpif.h'
end module mpiete_mpif_constants

module mpi_f08
  use mpiete_mpif_constants, &
    f_COMM_NULL => MPI_COMM_NULL, f_COMM_SELF => MPI_COMM_SELF, f_COMM_WORLD => MPI_COMM_WORLD, &
    f_GROUP_EMPTY => MPI_GROUP_EMPTY, f_GROUP_NULL => MPI_GROUP_NULL, &
    f_INFO_NULL => MPI_INFO_NULL, f_REQUEST_NULL => MPI_REQUEST_NULL, &
    f_ERRHANDLER_NULL => MPI_ERRHANDLER_NULL, f_ERRORS_ARE_FATAL => MPI_ERRORS_ARE_FATAL, &
    f_ERRORS_RETURN => MPI_ERRORS_RETURN, f_MESSAGE_NULL => MPI_MESSAGE_NULL, &
    f_MESSAGE_NO_PROC => MPI_MESSAGE_NO_PROC, f_WIN_NULL => MPI_WIN_NULL, &
    f_OP_NULL => MPI_OP_NULL, f_SUM => MPI_SUM, f_PROD => MPI_PROD, f_MAX => MPI_MAX, &
    f_MIN => MPI_MIN, f_LAND => MPI_LAND, f_LOR => MPI_LOR, f_LXOR => MPI_LXOR, &
    f_BAND => MPI_BAND, f_BOR => MPI_BOR, f_BXOR => MPI_BXOR, f_MAXLOC => MPI_MAXLOC, &
    f_MINLOC => MPI_MINLOC, f_REPLACE => MPI_REPLACE, f_NO_OP => MPI_NO_OP, &
    f_DATATYPE_NULL => MPI_DATATYPE_NULL, f_BYTE => MPI_BYTE, f_PACKED => MPI_PACKED, &
    f_CHARACTER => MPI_CHARACTER, f_LOGICAL => MPI_LOGICAL, f_INTEGER => MPI_INTEGER, &
    f_INTEGER1 => MPI_INTEGER1, f_INTEGER2 => MPI_INTEGER2, f_INTEGER4 => MPI_INTEGER4, &
    f_INTEGER8 => MPI_INTEGER8, f_REAL => MPI_REAL, f_REAL4 => MPI_REAL4, &
    f_REAL8 => MPI_REAL8, f_REAL16 => MPI_REAL16, f_DOUBLE_PRECISION => MPI_DOUBLE_PRECISION, &
    f_COMPLEX => MPI_COMPLEX, f_COMPLEX8 => MPI_COMPLEX8, f_COMPLEX16 => MPI_COMPLEX16, &
    f_COMPLEX32 => MPI_COMPLEX32, f_DOUBLE_COMPLEX => MPI_DOUBLE_COMPLEX, &
    f_2REAL => MPI_2REAL, f_2DOUBLE_PRECISION => MPI_2DOUBLE_PRECISION, &
    f_2INTEGER => MPI_2INTEGER, f_AINT => MPI_AINT, f_OFFSET => MPI_OFFSET, &
    f_COUNT => MPI_COUNT, f_CHAR => MPI_CHAR, f_SHORT => MPI_SHORT, f_INT => MPI_INT, &
    f_LONG => MPI_LONG, f_LONG_LONG => MPI_LONG_LONG, f_LONG_LONG_INT => MPI_LONG_LONG_INT, &
    f_SIGNED_CHAR => MPI_SIGNED_CHAR, f_UNSIGNED_CHAR => MPI_UNSIGNED_CHAR, &
    f_UNSIGNED_SHORT => MPI_UNSIGNED_SHORT, f_UNSIGNED => MPI_UNSIGNED, &
    f_UNSIGNED_LONG => MPI_UNSIGNED_LONG, f_UNSIGNED_LONG_LONG => MPI_UNSIGNED_LONG_LONG, &
    f_FLOAT => MPI_FLOAT, f_DOUBLE => MPI_DOUBLE, f_LONG_DOUBLE => MPI_LONG_DOUBLE, &
    f_WCHAR => MPI_WCHAR, f_C_BOOL => MPI_C_BOOL, f_INT8_T => MPI_INT8_T, &
    f_INT16_T => MPI_INT16_T, f_INT32_T => MPI_INT32_T, f_INT64_T => MPI_INT64_T, &
    f_UINT8_T => MPI_UINT8_T, f_UINT16_T => MPI_UINT16_T, f_UINT32_T => MPI_UINT32_T, &
    f_UINT64_T => MPI_UINT64_T, f_C_COMPLEX => MPI_C_COMPLEX, &
    f_C_FLOAT_COMPLEX => MPI_C_FLOAT_COMPLEX, f_C_DOUBLE_COMPLEX => MPI_C_DOUBLE_COMPLEX, &
    f_FLOAT_INT => MPI_FLOAT_INT, f_DOUBLE_INT => MPI_DOUBLE_INT, f_LONG_INT => MPI_LONG_INT, &
    f_2INT => MPI_2INT, f_SHORT_INT => MPI_SHORT_INT, &
    f_STATUS_IGNORE => MPI_STATUS_IGNORE, f_STATUSES_IGNORE => MPI_STATUSES_IGNORE
  implicit none

  type :: MPI_Comm
    integer :: MPI_VAL
  end type MPI_Comm
  type :: MPI_Datatype
    integer :: MPI_VAL
  end type MPI_Datatype
  type :: MPI_Errhandler
    integer :: MPI_VAL
  end type MPI_Errhandler
  type :: MPI_File
    integer :: MPI_VAL
  end type MPI_File
  type :: MPI_Group
    integer :: MPI_VAL
  end type MPI_Group
  type :: MPI_Info
    integer :: MPI_VAL
  end type MPI_Info
  type :: MPI_Message
    integer :: MPI_VAL
  end type MPI_Message
  type :: MPI_Op
    integer :: MPI_VAL
  end type MPI_Op
  type :: MPI_Request
    integer :: MPI_VAL
  end type MPI_Request
  type :: MPI_Win
    integer :: MPI_VAL
  end type MPI_Win
  type :: MPI_Status
    integer :: MPI_SOURCE, MPI_TAG, MPI_ERROR
    integer :: mpiete_rest(MPI_STATUS_SIZE - 3)
  end type MPI_Status

  type(MPI_Comm), parameter :: MPI_COMM_NULL = MPI_Comm(f_COMM_NULL), &
    MPI_COMM_SELF = MPI_Comm(f_COMM_SELF), MPI_COMM_WORLD = MPI_Comm(f_COMM_WORLD)
  type(MPI_Group), parameter :: MPI_GROUP_EMPTY = MPI_Group(f_GROUP_EMPTY), &
    MPI_GROUP_NULL = MPI_Group(f_GROUP_NULL)
  type(MPI_Info), parameter :: MPI_INFO_NULL = MPI_Info(f_INFO_NULL)
  type(MPI_Request), parameter :: MPI_REQUEST_NULL = MPI_Request(f_REQUEST_NULL)
  type(MPI_Errhandler), parameter :: MPI_ERRHANDLER_NULL = MPI_Errhandler(f_ERRHANDLER_NULL), &
    MPI_ERRORS_ARE_FATAL = MPI_Errhandler(f_ERRORS_ARE_FATAL), &
    MPI_ERRORS_RETURN = MPI_Errhandler(f_ERRORS_RETURN)
  type(MPI_Message), parameter :: MPI_MESSAGE_NULL = MPI_Message(f_MESSAGE_NULL), &
    MPI_MESSAGE_NO_PROC = MPI_Message(f_MESSAGE_NO_PROC)
  type(MPI_Win), parameter :: MPI_WIN_NULL = MPI_Win(f_WIN_NULL)
  type(MPI_Op), parameter :: MPI_OP_NULL = MPI_Op(f_OP_NULL), MPI_SUM = MPI_Op(f_SUM), &
    MPI_PROD = MPI_Op(f_PROD), MPI_MAX = MPI_Op(f_MAX), MPI_MIN = MPI_Op(f_MIN), &
    MPI_LAND = MPI_Op(f_LAND), MPI_LOR = MPI_Op(f_LOR), MPI_LXOR = MPI_Op(f_LXOR), &
    MPI_BAND = MPI_Op(f_BAND), MPI_BOR = MPI_Op(f_BOR), MPI_BXOR = MPI_Op(f_BXOR), &
    MPI_MAXLOC = MPI_Op(f_MAXLOC), MPI_MINLOC = MPI_Op(f_MINLOC), &
    MPI_REPLACE = MPI_Op(f_REPLACE), MPI_NO_OP = MPI_Op(f_NO_OP)
  type(MPI_Datatype), parameter :: MPI_DATATYPE_NULL = MPI_Datatype(f_DATATYPE_NULL), &
    MPI_BYTE = MPI_Datatype(f_BYTE), MPI_PACKED = MPI_Datatype(f_PACKED), &
    MPI_CHARACTER = MPI_Datatype(f_CHARACTER), MPI_LOGICAL = MPI_Datatype(f_LOGICAL), &
    MPI_INTEGER = MPI_Datatype(f_INTEGER), MPI_INTEGER1 = MPI_Datatype(f_INTEGER1), &
    MPI_INTEGER2 = MPI_Datatype(f_INTEGER2), MPI_INTEGER4 = MPI_Datatype(f_INTEGER4), &
    MPI_INTEGER8 = MPI_Datatype(f_INTEGER8), MPI_REAL = MPI_Datatype(f_REAL), &
    MPI_REAL4 = MPI_Datatype(f_REAL4), MPI_REAL8 = MPI_Datatype(f_REAL8), &
    MPI_REAL16 = MPI_Datatype(f_REAL16), &
    MPI_DOUBLE_PRECISION = MPI_Datatype(f_DOUBLE_PRECISION), &
    MPI_COMPLEX = MPI_Datatype(f_COMPLEX), MPI_COMPLEX8 = MPI_Datatype(f_COMPLEX8), &
    MPI_COMPLEX16 = MPI_Datatype(f_COMPLEX16), MPI_COMPLEX32 = MPI_Datatype(f_COMPLEX32), &
    MPI_DOUBLE_COMPLEX = MPI_Datatype(f_DOUBLE_COMPLEX), MPI_2REAL = MPI_Datatype(f_2REAL), &
    MPI_2DOUBLE_PRECISION = MPI_Datatype(f_2DOUBLE_PRECISION), &
    MPI_2INTEGER = MPI_Datatype(f_2INTEGER), MPI_AINT = MPI_Datatype(f_AINT), &
    MPI_OFFSET = MPI_Datatype(f_OFFSET), MPI_COUNT = MPI_Datatype(f_COUNT), &
    MPI_CHAR = MPI_Datatype(f_CHAR), MPI_SHORT = MPI_Datatype(f_SHORT), &
    MPI_INT = MPI_Datatype(f_INT), MPI_LONG = MPI_Datatype(f_LONG), &
    MPI_LONG_LONG = MPI_Datatype(f_LONG_LONG), MPI_LONG_LONG_INT = MPI_Datatype(f_LONG_LONG_INT), &
    MPI_SIGNED_CHAR = MPI_Datatype(f_SIGNED_CHAR), &
    MPI_UNSIGNED_CHAR = MPI_Datatype(f_UNSIGNED_CHAR), &
    MPI_UNSIGNED_SHORT = MPI_Datatype(f_UNSIGNED_SHORT), MPI_UNSIGNED = MPI_Datatype(f_UNSIGNED), &
    MPI_UNSIGNED_LONG = MPI_Datatype(f_UNSIGNED_LONG), &
    MPI_UNSIGNED_LONG_LONG = MPI_Datatype(f_UNSIGNED_LONG_LONG), &
    MPI_FLOAT = MPI_Datatype(f_FLOAT), MPI_DOUBLE = MPI_Datatype(f_DOUBLE), &
    MPI_LONG_DOUBLE = MPI_Datatype(f_LONG_DOUBLE), MPI_WCHAR = MPI_Datatype(f_WCHAR), &
    MPI_C_BOOL = MPI_Datatype(f_C_BOOL), MPI_INT8_T = MPI_Datatype(f_INT8_T), &
    MPI_INT16_T = MPI_Datatype(f_INT16_T), MPI_INT32_T = MPI_Datatype(f_INT32_T), &
    MPI_INT64_T = MPI_Datatype(f_INT64_T), MPI_UINT8_T = MPI_Datatype(f_UINT8_T), &
    MPI_UINT16_T = MPI_Datatype(f_UINT16_T), MPI_UINT32_T = MPI_Datatype(f_UINT32_T), &
    MPI_UINT64_T = MPI_Datatype(f_UINT64_T), MPI_C_COMPLEX = MPI_Datatype(f_C_COMPLEX), &
    MPI_C_FLOAT_COMPLEX = MPI_Datatype(f_C_FLOAT_COMPLEX), &
    MPI_C_DOUBLE_COMPLEX = MPI_Datatype(f_C_DOUBLE_COMPLEX), &
    MPI_FLOAT_INT = MPI_Datatype(f_FLOAT_INT), MPI_DOUBLE_INT = MPI_Datatype(f_DOUBLE_INT), &
    MPI_LONG_INT = MPI_Datatype(f_LONG_INT), MPI_2INT = MPI_Datatype(f_2INT), &
    MPI_SHORT_INT = MPI_Datatype(f_SHORT_INT)

  type(MPI_Status) :: MPI_STATUS_IGNORE
  type(MPI_Status) :: MPI_STATUSES_IGNORE(1)

  ! The routines: mpi_f08_externals.inc, written by CMake from routines.def and the routines
  ! MpiRoutines.cpp lists as local (MPI_Wtime and the other functions come from mpif.h).
  include 'mpi_f08_externals.inc'

  interface operator(==)
    module procedure comm_eq, datatype_eq, errhandler_eq, file_eq, group_eq, info_eq, &
      message_eq, op_eq, request_eq, win_eq
  end interface
  interface operator(/=)
    module procedure comm_ne, datatype_ne, errhandler_ne, file_ne, group_ne, info_ne, &
      message_ne, op_ne, request_ne, win_ne
  end interface

  private :: comm_eq, datatype_eq, errhandler_eq, file_eq, group_eq, info_eq, message_eq, &
    op_eq, request_eq, win_eq, comm_ne, datatype_ne, errhandler_ne, file_ne, group_ne, &
    info_ne, message_ne, op_ne, request_ne, win_ne

contains

  elemental logical function comm_eq(a, b)
    type(MPI_Comm), intent(in) :: a, b
    comm_eq = a%MPI_VAL == b%MPI_VAL
  end function
  elemental logical function datatype_eq(a, b)
    type(MPI_Datatype), intent(in) :: a, b
    datatype_eq = a%MPI_VAL == b%MPI_VAL
  end function
  elemental logical function errhandler_eq(a, b)
    type(MPI_Errhandler), intent(in) :: a, b
    errhandler_eq = a%MPI_VAL == b%MPI_VAL
  end function
  elemental logical function file_eq(a, b)
    type(MPI_File), intent(in) :: a, b
    file_eq = a%MPI_VAL == b%MPI_VAL
  end function
  elemental logical function group_eq(a, b)
    type(MPI_Group), intent(in) :: a, b
    group_eq = a%MPI_VAL == b%MPI_VAL
  end function
  elemental logical function info_eq(a, b)
    type(MPI_Info), intent(in) :: a, b
    info_eq = a%MPI_VAL == b%MPI_VAL
  end function
  elemental logical function message_eq(a, b)
    type(MPI_Message), intent(in) :: a, b
    message_eq = a%MPI_VAL == b%MPI_VAL
  end function
  elemental logical function op_eq(a, b)
    type(MPI_Op), intent(in) :: a, b
    op_eq = a%MPI_VAL == b%MPI_VAL
  end function
  elemental logical function request_eq(a, b)
    type(MPI_Request), intent(in) :: a, b
    request_eq = a%MPI_VAL == b%MPI_VAL
  end function
  elemental logical function win_eq(a, b)
    type(MPI_Win), intent(in) :: a, b
    win_eq = a%MPI_VAL == b%MPI_VAL
  end function
  elemental logical function comm_ne(a, b)
    type(MPI_Comm), intent(in) :: a, b
    comm_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  elemental logical function datatype_ne(a, b)
    type(MPI_Datatype), intent(in) :: a, b
    datatype_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  elemental logical function errhandler_ne(a, b)
    type(MPI_Errhandler), intent(in) :: a, b
    errhandler_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  elemental logical function file_ne(a, b)
    type(MPI_File), intent(in) :: a, b
    file_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  elemental logical function group_ne(a, b)
    type(MPI_Group), intent(in) :: a, b
    group_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  elemental logical function info_ne(a, b)
    type(MPI_Info), intent(in) :: a, b
    info_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  elemental logical function message_ne(a, b)
    type(MPI_Message), intent(in) :: a, b
    message_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  elemental logical function op_ne(a, b)
    type(MPI_Op), intent(in) :: a, b
    op_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  elemental logical function request_ne(a, b)
    type(MPI_Request), intent(in) :: a, b
    request_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  elemental logical function win_ne(a, b)
    type(MPI_Win), intent(in) :: a, b
    win_ne = a%MPI_VAL /= b%MPI_VAL
  end function
end module mpi_f08

! The shared data of f90-nbc (module grid_mod): the sizes, the row decomposition, the two
! iterates and the source term, the halo requests and the buffers of the residual reduction.
! The reduction's buffers and requests live in the module on purpose: an MPI_Iallreduce
! writes its result after the call that started it has returned, and a compiler must assume
! that an external call such as MPI_Wait may change module variables, so it cannot keep a
! stale copy of them in a register across the wait (with `use mpi` there is no ASYNCHRONOUS).
module grid_mod
  use mpi
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer(8), parameter :: modulus = 1000000007_8   ! the checksum is taken modulo this prime
  integer, parameter :: tag_up = 41     ! halo row travelling to the rank above (rank - 1)
  integer, parameter :: tag_down = 42   ! halo row travelling to the rank below (rank + 1)
  integer :: n = 0          ! interior points per side of the global grid
  integer :: nloc = 0       ! grid rows this rank owns
  integer :: j0 = 0         ! global index (0-based) of this rank's first row
  integer :: rank = 0, nproc = 1
  integer :: up = MPI_PROC_NULL, down = MPI_PROC_NULL   ! neighbours, MPI_PROC_NULL at the ends
  ! The two iterates (the steps alternate between them) and the source term: columns 0 and
  ! n+1 are the zero boundary, rows 0 and nloc+1 the ghost rows (zero at the global ends).
  real(dp), allocatable :: ua(:, :), ub(:, :), f(:, :)
  integer :: halo_req(4)            ! receives from up and down, then sends up and down
  real(dp) :: res_loc = 0.0_dp      ! this rank's largest change of the last step
  real(dp) :: res_glob = 0.0_dp     ! the global largest change (MPI_MAX: exact)
  integer :: res_req = MPI_REQUEST_NULL

contains

  !> Rows split as evenly as possible, the first mod(n, nproc) ranks one more; allocates and
  !> fills the arrays (the iterate starts at zero).
  subroutine decompose()
    integer :: i, j, r, c
    nloc = n / nproc
    if (rank < mod(n, nproc)) nloc = nloc + 1
    j0 = rank * (n / nproc) + min(rank, mod(n, nproc))
    up = MPI_PROC_NULL
    down = MPI_PROC_NULL
    if (rank > 0) up = rank - 1
    if (rank < nproc - 1) down = rank + 1
    allocate(ua(0:n + 1, 0:nloc + 1), ub(0:n + 1, 0:nloc + 1), f(0:n + 1, 0:nloc + 1))
    ua = 0.0_dp
    ub = 0.0_dp
    f = 0.0_dp
    do j = 1, nloc
      r = j0 + j - 1
      do i = 1, n
        c = i - 1
        f(i, j) = real(mod(r * 37 + c * 91 + mod(r * c, 53), 1000), dp) / 1000.0_dp
      end do
    end do
  end subroutine decompose

end module grid_mod

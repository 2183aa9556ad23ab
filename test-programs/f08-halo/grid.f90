! The decomposition and halo exchange of f08-halo, written against `use mpi_f08` as newer codes
! are: handles are TYPE(MPI_Comm) and friends, and ierror is left out of all calls but one, which
! names it by keyword. A
! rank holds an nx x ny block of a periodic 2-D grid of MPI_Dims_create's process grid; its
! north and south halo rows (fixed i, strided by nx + 2) go as an MPI_Type_vector, its west and
! east columns as contiguous reals.
module grid
  use mpi_f08
  implicit none
  type(MPI_Comm) :: cart
  type(MPI_Datatype) :: row
  integer :: me, nprocs, nx, ny, coords(2)
  integer :: north, south, west, east
  double precision, allocatable :: u(:, :), v(:, :)
contains
  subroutine setup(n)
    integer, intent(in) :: n
    integer :: dims(2), ierr
    logical :: periods(2)
    dims = 0
    periods = .true.
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
    call MPI_Dims_create(nprocs, 2, dims)
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierror=ierr)
    call MPI_Comm_rank(cart, me)
    call MPI_Cart_coords(cart, me, 2, coords)
    call MPI_Cart_shift(cart, 0, 1, north, south)
    call MPI_Cart_shift(cart, 1, 1, west, east)
    nx = n / dims(1)
    ny = n / dims(2)
    allocate(u(0:nx + 1, 0:ny + 1), v(0:nx + 1, 0:ny + 1))
    ! Fortran is column-major: a row of the block (fixed i) is strided by nx + 2.
    call MPI_Type_vector(ny, 1, nx + 2, MPI_DOUBLE_PRECISION, row)
    call MPI_Type_commit(row)
  end subroutine setup

  subroutine exchange()
    type(MPI_Request) :: reqs(4)
    type(MPI_Status) :: stats(4)
    call MPI_Irecv(u(1, 0), nx, MPI_DOUBLE_PRECISION, west, 1, cart, reqs(1))
    call MPI_Irecv(u(1, ny + 1), nx, MPI_DOUBLE_PRECISION, east, 2, cart, reqs(2))
    call MPI_Isend(u(1, ny), nx, MPI_DOUBLE_PRECISION, east, 1, cart, reqs(3))
    call MPI_Isend(u(1, 1), nx, MPI_DOUBLE_PRECISION, west, 2, cart, reqs(4))
    call MPI_Waitall(4, reqs, stats)
    call MPI_Sendrecv(u(nx, 1), 1, row, south, 3, u(0, 1), 1, row, north, 3, &
                      cart, MPI_STATUS_IGNORE)
    call MPI_Sendrecv(u(1, 1), 1, row, north, 4, u(nx + 1, 1), 1, row, south, 4, &
                      cart, stats(1))
    if (stats(1)%MPI_SOURCE /= south) stop 'wrong source'
  end subroutine exchange
end module grid

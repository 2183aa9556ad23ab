! halo.f90: f90-neighbor's grid and its exchanges, through MPI-3 neighbourhood collectives on
! a 2-D Cartesian communicator (periodic along x, walls along y): the four faces with
! MPI_NEIGHBOR_ALLTOALL or MPI_NEIGHBOR_ALLTOALLV (alternating); every rank's block size with
! MPI_NEIGHBOR_ALLGATHER and every rank's grid coordinates with MPI_ALLTOALLW once at the
! start. Neighbour order is MPI's: x-, x+, y-, y+. (Not MPI_NEIGHBOR_ALLTOALLW: Open MPI 4.1's
! Fortran binding converts as many datatypes as the communicator has ranks, not neighbours, and
! fails below 2 x ndims ranks: open-mpi/ompi issue 10740.)
module halo_mod
  use mpi
  implicit none
  integer, parameter :: prime = 1000003
  integer :: cart, dims(2), coords(2), nx, ny, face
  integer, allocatable :: u(:,:), v(:,:), sendbuf(:), recvbuf(:)
  integer :: nbsize(4)
  integer, allocatable :: allcoords(:,:)
contains

  subroutine setup(n)
    integer, intent(in) :: n
    integer :: ierr, rank, size, mine
    logical :: periods(2)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
    dims = 0
    call MPI_DIMS_CREATE(size, 2, dims, ierr)
    periods = (/ .true., .false. /)
    call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
    call MPI_COMM_RANK(cart, rank, ierr)
    call MPI_CART_COORDS(cart, rank, 2, coords, ierr)
    nx = n / dims(1)
    if (coords(1) < mod(n, dims(1))) nx = nx + 1
    ny = n / dims(2)
    if (coords(2) < mod(n, dims(2))) ny = ny + 1
    face = max(nx, ny)
    allocate(u(0:nx+1, 0:ny+1), v(0:nx+1, 0:ny+1), sendbuf(4*face), recvbuf(4*face))
    ! The neighbours' block sizes (a wall's entry stays -1).
    mine = nx * ny
    nbsize = -1
    call MPI_NEIGHBOR_ALLGATHER(mine, 1, MPI_INTEGER, nbsize, 1, MPI_INTEGER, cart, ierr)
    call gather_coords(size)
  end subroutine setup

  ! Every rank's grid coordinates, on every rank, through MPI_ALLTOALLW: the same two integers
  ! to each peer (displacement 0), received at 8 bytes per peer. (Not MPI_IALLTOALLW: the
  ! native program crashed in it with Open MPI 4.1.4, whose Fortran binding has had datatype
  ! lifetime bugs there: open-mpi/ompi issue 8763.)
  subroutine gather_coords(size)
    integer, intent(in) :: size
    integer :: ierr, r
    integer, allocatable :: sc(:), sd(:), st(:), rc(:), rd(:), rt(:)
    allocate(allcoords(2, 0:size-1))
    allocate(sc(size), sd(size), st(size), rc(size), rd(size), rt(size))
    do r = 1, size
      sc(r) = 2
      sd(r) = 0
      st(r) = MPI_INTEGER
      rc(r) = 2
      rd(r) = 8 * (r - 1)
      rt(r) = MPI_INTEGER
    end do
    call MPI_ALLTOALLW(coords, sc, sd, st, allcoords, rc, rd, rt, cart, ierr)
    deallocate(sc, sd, st, rc, rd, rt)
  end subroutine gather_coords

  subroutine exchange(step)
    integer, intent(in) :: step
    integer :: i, j, k, ierr, below, above
    integer :: counts(4), displs(4)
    do j = 1, ny
      sendbuf(j) = u(1, j)
      sendbuf(face + j) = u(nx, j)
    end do
    do i = 1, nx
      sendbuf(2*face + i) = u(i, 1)
      sendbuf(3*face + i) = u(i, ny)
    end do
    if (mod(step, 2) == 0) then
      call MPI_NEIGHBOR_ALLTOALL(sendbuf, face, MPI_INTEGER, recvbuf, face, MPI_INTEGER, &
                                 cart, ierr)
    else
      do k = 1, 4
        counts(k) = ny
        if (k > 2) counts(k) = nx
        displs(k) = (k - 1) * face
      end do
      call MPI_NEIGHBOR_ALLTOALLV(sendbuf, counts, displs, MPI_INTEGER, recvbuf, counts, &
                                  displs, MPI_INTEGER, cart, ierr)
    end if
    call MPI_CART_SHIFT(cart, 1, 1, below, above, ierr)
    do j = 1, ny
      u(0, j) = recvbuf(j)
      u(nx + 1, j) = recvbuf(face + j)
    end do
    do i = 1, nx
      if (below /= MPI_PROC_NULL) u(i, 0) = recvbuf(2*face + i)
      if (above /= MPI_PROC_NULL) u(i, ny + 1) = recvbuf(3*face + i)
    end do
  end subroutine exchange
end module halo_mod

! Fortran runtime test, free form with `use mpi` and a module from another file: collectives
! (MPI_IN_PLACE included) and communicator management through the Fortran entry points,
! called by hand as mpiete-fc's instrumentation calls them. MPIETE_TEST_TIMING selects the
! timing variant's hooks.
program tcoll
  use mpi
  use tcoll_util
  implicit none
  integer :: rank, nproc, ierr, i, j, provided, color, sub, subrank, subsize, root, v, w
  integer :: a(4), b(4), dims(2), dims2(2), coords(2), cart, cart1d, row, dup, left, right
  integer :: crank, status(MPI_STATUS_SIZE)
  integer, allocatable :: sendv(:), recvv(:), gath(:)
  double precision :: x(3), y(3), s
  logical :: periods(2), periods2(2), remain(2)

  call mpiete_init_thread(iu, 1, MPI_THREAD_FUNNELED, provided, ierr)
  call tcheck(ierr == MPI_SUCCESS .and. provided >= MPI_THREAD_SINGLE, 'init_thread')
  call texp(iu, 1, 'init', 1)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)

  ! 1. Allreduce in place, then into another buffer.
  a = [(10 * rank + i, i = 1, 4)]
  call mpiete_allreduce(iu, 10, MPI_IN_PLACE, a, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call texp(iu, 10, 'collective', 1)
  do i = 1, 4
    call tcheck(a(i) == 10 * below_sum(nproc) + nproc * i, '1: allreduce in place')
  end do
  x = [rank + 0.5d0, -dble(rank), 2d0]
  call mpiete_allreduce(iu, 11, x, y, 3, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call texp(iu, 11, 'collective', 1)
  call tcheck(y(1) == nproc - 0.5d0 .and. y(2) == 0d0 .and. y(3) == 2d0, '1: allreduce max')

  ! 2. Bcast from the last rank; Reduce to 0; Reduce in place at root 1.
  root = nproc - 1
  b = 0
  if (rank == root) b = [7, 8, 9, 10]
  call mpiete_bcast(iu, 12, b, 4, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  call texp(iu, 12, 'collective', 1)
  call tcheck(all(b == [7, 8, 9, 10]), '2: bcast')
  v = rank + 1
  w = -1
  call mpiete_reduce(iu, 13, v, w, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call texp(iu, 13, 'collective', 1)
  if (rank == 0) call tcheck(w == below_sum(nproc + 1), '2: reduce')
  a = [(rank * i, i = 1, 4)]
  if (rank == 1) then
    call mpiete_reduce(iu, 14, MPI_IN_PLACE, a, 4, MPI_INTEGER, MPI_MAX, 1, MPI_COMM_WORLD, ierr)
    do i = 1, 4
      call tcheck(a(i) == (nproc - 1) * i, '2: reduce in place')
    end do
  else
    call mpiete_reduce(iu, 14, a, b, 4, MPI_INTEGER, MPI_MAX, 1, MPI_COMM_WORLD, ierr)
  end if
  call texp(iu, 14, 'collective', 1)

  ! 3. Comm_split by parity; Alltoall on the halves.
  color = mod(rank, 2)
  call mpiete_comm_split(iu, 20, MPI_COMM_WORLD, color, rank, sub, ierr)
  call texp(iu, 20, 'comm', 1)
  call mpi_comm_rank(sub, subrank, ierr)
  call mpi_comm_size(sub, subsize, ierr)
  call tcheck(subrank == rank / 2 .and. subsize == (nproc - color + 1) / 2, '3: split')
  allocate(sendv(subsize), recvv(subsize))
  sendv = [(100 * rank + j, j = 1, subsize)]
  recvv = -1
  call mpiete_alltoall(iu, 21, sendv, 1, MPI_INTEGER, recvv, 1, MPI_INTEGER, sub, ierr)
  call texp(iu, 21, 'collective', 1)
  do j = 1, subsize
    call tcheck(recvv(j) == 100 * (2 * (j - 1) + color) + subrank + 1, '3: alltoall')
  end do

  ! 4. A periodic 1-D Cart_create (no reordering): Sendrecv to the Cart_shift neighbours.
  dims(1) = nproc
  periods(1) = .true.
  call mpiete_cart_create(iu, 22, MPI_COMM_WORLD, 1, dims, periods, .false., cart1d, ierr)
  call texp(iu, 22, 'comm', 1)
  call mpi_cart_shift(cart1d, 0, 1, left, right, ierr)
  call mpiete_sendrecv(iu, 23, rank, 1, MPI_INTEGER, right, 3, v, 1, MPI_INTEGER, left, 3, &
                       cart1d, status, ierr)
  call tsendrecv(iu, 23)
  call tcheck(v == mod(rank + nproc - 1, nproc) .and. status(MPI_SOURCE) == left, '4: shift')

  ! 5. A 2-D grid, periodic in the first dimension only (LOGICAL array argument), may
  !    reorder; Cart_sub keeps the second dimension; Allreduce over each row.
  dims = 0
  call mpi_dims_create(nproc, 2, dims, ierr)
  periods = [.true., .false.]
  call mpiete_cart_create(iu, 26, MPI_COMM_WORLD, 2, dims, periods, .true., cart, ierr)
  call texp(iu, 26, 'comm', 1)
  call mpi_cart_get(cart, 2, dims2, periods2, coords, ierr)
  call tcheck(all(dims2 == dims) .and. periods2(1) .and. .not. periods2(2), '5: cart_get')
  call mpi_comm_rank(cart, crank, ierr)
  remain = [.false., .true.]
  call mpiete_cart_sub(iu, 27, cart, remain, row, ierr)
  call texp(iu, 27, 'comm', 1)
  call mpiete_allreduce(iu, 28, crank, w, 1, MPI_INTEGER, MPI_SUM, row, ierr)
  call texp(iu, 28, 'collective', 1)
  call tcheck(w == dims(2) * dims(2) * coords(1) + below_sum(dims(2)), '5: row sum')

  ! 6. Comm_dup; Barrier, Gather, Scatter, Allgather and Scan on the copy; Comm_free.
  call mpiete_comm_dup(iu, 30, MPI_COMM_WORLD, dup, ierr)
  call texp(iu, 30, 'comm', 1)
  call mpiete_barrier(iu, 31, dup, ierr)
  allocate(gath(nproc))
  gath = -1
  call mpiete_gather(iu, 32, 3 * rank, 1, MPI_INTEGER, gath, 1, MPI_INTEGER, 0, dup, ierr)
  if (rank == 0) call tcheck(all(gath == [(3 * i, i = 0, nproc - 1)]), '6: gather')
  if (rank == 0) gath = [(5 * i, i = 0, nproc - 1)]
  call mpiete_scatter(iu, 33, gath, 1, MPI_INTEGER, v, 1, MPI_INTEGER, 0, dup, ierr)
  call tcheck(v == 5 * rank, '6: scatter')
  call mpiete_allgather(iu, 34, rank * rank, 1, MPI_INTEGER, gath, 1, MPI_INTEGER, dup, ierr)
  call tcheck(all(gath == [(i * i, i = 0, nproc - 1)]), '6: allgather')
  call mpiete_scan(iu, 35, rank + 1, v, 1, MPI_INTEGER, MPI_SUM, dup, ierr)
  call tcheck(v == below_sum(rank + 2), '6: scan')
  do i = 31, 35
    call texp(iu, i, 'collective', 1)
  end do
  call mpiete_comm_free(iu, 36, dup, ierr)
  call tcheck(dup == MPI_COMM_NULL, '6: comm_free')
  call mpiete_comm_free(iu, 36, row, ierr)
  call mpiete_comm_free(iu, 36, cart, ierr)
  call mpiete_comm_free(iu, 36, cart1d, ierr)
  call mpiete_comm_free(iu, 36, sub, ierr)
  call texp(iu, 36, 'comm', 5)

  ! 7. A compute loop timed (or counted) whole.
#ifdef MPIETE_TEST_TIMING
  call mpiete_tm_begin(iu, 40)
#endif
  s = 0
  do i = 1, 1000
    s = s + 1d0 / i
  end do
#ifdef MPIETE_TEST_TIMING
  call mpiete_tm_loop_end(iu, 40, 1000_8)
#else
  call mpiete_tr_loop(iu, 40, 1000_8)
#endif
  call texpl(iu, 40, 'loop', 1, 1000_8)
  call tcheck(s > 7d0 .and. s < 8d0, '7: loop')

  call texp(iu, 2, 'finalize', 1)
  call mpiete_finalize(iu, 2, ierr)
  call tcheck(ierr == MPI_SUCCESS, 'finalize')
  call twrite(rank)
  if (rank == 0) print '(A)', 'tcoll: ok'
end program tcoll

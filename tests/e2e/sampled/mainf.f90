! The sampled timing probe's Fortran test program: mpirun -np 2 sampledf [n] [steps]
! steps x (tri(n) of module rows, TRIF(n) of trif.f, MPI_Allreduce); rank 0 prints the rows
! that ran in each kernel.
program sampledf
  use mpi
  use rows
  implicit none
  integer :: ierr, rank, n, steps, step
  integer(8) :: nrun, nrunf
  double precision :: s, sf, total
  character(len=32) :: arg
  common /cnt/ nrunf
  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  n = 400
  steps = 3
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) steps
  end if
  nrun = 0
  nrunf = 0
  do step = 1, steps
    call tri(n, s, nrun)
    call trif(n, sf)
    s = s + sf
    call mpi_allreduce(s, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  if (rank == 0) then
    write (*, '(a, i0, a, i0)') 'rows ', nrun, ' of ', int(n, 8) * steps
    write (*, '(a, i0, a, i0)') 'rowsf ', nrunf, ' of ', int(n, 8) * steps
  end if
  call mpi_finalize(ierr)
end program sampledf

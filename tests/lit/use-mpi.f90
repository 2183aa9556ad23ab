! A free-form program with `use mpi`: MPI_Init and MPI_Finalize are sites; local routines
! (MPI_Comm_rank, MPI_Wtime) are computation; a procedure that does not communicate holds no
! blocks and its calls are opaque computation.
! REQUIRES: fortran
! RUN: %mpiete-instrument --seed-blocks %s -- %mpi-fflags | tee %t.f90 | FileCheck --match-full-lines %s
! RUN: cd %T && %mpif90-syntax %t.f90
! RUN: %mpiete-instrument --seed-blocks --blocks %s -- %mpi-fflags | FileCheck --check-prefix=MAP %s
program hello
  use mpi
  implicit none
  integer :: ierr, rank, nprocs
  double precision :: t0, v
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  t0 = MPI_Wtime()
  v = work(rank)
  call MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print *, 'sum', v, MPI_Wtime() - t0
  call MPI_Finalize(ierr)
contains
  double precision function work(r)
    integer, intent(in) :: r
    work = sqrt(dble(r + 1))
  end function work
end program hello

! CHECK:        double precision :: t0, v
! CHECK-NEXT:   call mpiete_init([[U:-?[0-9]+]], 0, ierr)
! CHECK-NEXT:   call mpiete_tr_block([[U]], 1)
! CHECK-NEXT:   call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
! CHECK-NEXT:   call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
! CHECK-NEXT:   t0 = MPI_Wtime()
! CHECK-NEXT:   v = work(rank)
! CHECK-NEXT:   call mpiete_allreduce([[U]], 2, MPI_IN_PLACE, v, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
! CHECK-NEXT:   call mpiete_tr_block([[U]], 3)
! CHECK-NEXT:   if (rank == 0) print *, 'sum', v, MPI_Wtime() - t0
! CHECK-NEXT:   call mpiete_finalize([[U]], 4, ierr)
! CHECK-NEXT: contains
! CHECK-NEXT:   double precision function work(r)
! CHECK-NEXT:     integer, intent(in) :: r
! CHECK-NEXT:     work = sqrt(dble(r + 1))
! CHECK-NEXT:   end function work

! MAP:      procedures: [hello]
! MAP:      - id: [[U:[0-9a-f]+]]:0
! MAP-NEXT:   kind: init
! MAP:        routine: MPI_Init
! MAP:      - id: [[U]]:1
! MAP-NEXT:   kind: compute
! MAP-NEXT:   file: {{.*}}use-mpi.f90
! MAP-NEXT:   lines: [14, 17]
! MAP-NOT:    opaque_calls
! MAP:      - id: [[U]]:2
! MAP-NEXT:   kind: collective
! MAP:      - id: [[U]]:3
! MAP-NEXT:   kind: compute
! MAP-NEXT:   file: {{.*}}use-mpi.f90
! MAP-NEXT:   lines: [19, 19]
! MAP:      - id: [[U]]:4
! MAP-NEXT:   kind: finalize
! MAP-NOT:  - id:

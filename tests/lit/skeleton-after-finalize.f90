! The skeleton: a STOP after the main program's CALL MPI_FINALIZE decides no MPI call (the
! standard forbids them there), so the program's own check of results behind it (reduced to
! rank 0) is no criterion, and the computation that feeds it goes. A jump that may come into
! those statements (a label after the call that a GOTO names) keeps the STOP and all it reads.
! (A call of a procedure with a name shorter than MPI_'s prefix, `go`, is no MPI_Finalize.)
! REQUIRES: fortran
! RUN: %mpiete-instrument --variant=skeleton %s -- %mpi-fflags | tee %t.f90 | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f90
! RUN: sed -e 's/^!JUMP //' %s > %t.jump.f90
! RUN: %mpiete-instrument --variant=skeleton %t.jump.f90 -- %mpi-fflags | FileCheck --match-full-lines --check-prefix=JUMP %s
program checked
  use mpi
  implicit none
  integer :: ierr, rank, i
  logical :: ok
  double precision :: s, gs
  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call go(s)
  do i = 1, 1000000
    s = s + 1.0d0 / i
  end do
  call mpi_reduce(s, gs, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  ok = rank /= 0 .or. gs > 1.0d0
!JUMP  if (rank < 0) goto 10
  call mpi_finalize(ierr)
!JUMP 10 continue
  if (.not. ok) stop 1
contains
  subroutine go(v)
    double precision :: v
    v = 0
  end subroutine go
end program checked

! CHECK:        call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
! CHECK-EMPTY:
! CHECK-EMPTY:
! CHECK-EMPTY:
! CHECK-EMPTY:
! CHECK-NEXT:   call mpiete_reduce({{.*}}
! CHECK-EMPTY:
! CHECK-NEXT: !JUMP  if (rank < 0) goto 10
! CHECK-NEXT:   call mpiete_finalize({{.*}}
! CHECK-NEXT: !JUMP 10 continue
! CHECK-EMPTY:
! CHECK-NEXT: contains

! JUMP:         call go(s)
! JUMP-NEXT:    do i = 1, 1000000
! JUMP:         ok = rank /= 0 .or. gs > 1.0d0
! JUMP:         if (.not. ok) stop 1

! Segments: loops of pure computation the timing probe may sample (issue 15). A counted DO
! with no MPI call, no call that communicates or that the unit cannot see, no way out but its
! end and another loop in its body, the outermost of such loops, in every procedure (walk_stats
! does not communicate): the timing variant gets `if (mpiete_sample_skip(...) .eq. 1) cycle`
! after the DO statement and `call mpiete_sample_exit(...)` after the loop, the function typed
! by its procedure; the trace variant gets neither. Refused: a loop left by EXIT (its own or
! an outer one's), RETURN or GOTO, one with no loop inside, with an MPI call, with a reference
! to an external function or a CALL of a subroutine that calls an external one (which may
! communicate: the module's facts say so, `? name`), with a CALL of an external subroutine (the
! opaque hooks instead), a DO WHILE (a loop inside it may be sampled, as may one inside a loop
! with MPI calls), a loop in a PURE procedure (no hook may be called there).
! REQUIRES: fortran
! RUN: %mpiete-instrument --sample-loops --variant=timing %s -- %mpi-fflags | tee %t.f90 | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f90
! RUN: %mpiete-instrument %s -- %mpi-fflags | FileCheck --check-prefix=TRACE %s
! Without --sample-loops (mpiete-fc's default) the timing variant has none either.
! RUN: %mpiete-instrument --variant=timing %s -- %mpi-fflags | FileCheck --check-prefix=TRACE %s
! RUN: %mpiete-instrument --blocks %s -- %mpi-fflags | FileCheck --check-prefix=MAP %s
! RUN: rm -rf %t.mod && mkdir %t.mod && %mpiete-instrument --module-dir=%t.mod %s -- %mpi-fflags > /dev/null
! RUN: FileCheck --check-prefix=FACTS %s < %t.mod/stats.mpiete
module stats
  implicit none
contains
  subroutine walk_stats(a, n, m, s)
    integer, intent(in) :: n, m
    double precision, intent(in) :: a(n, m)
    double precision, intent(out) :: s
    integer :: i, j
    s = 0
    do j = 1, m
      if (a(1, j) == 0) cycle
      do i = 1, n
        s = s + a(i, j)
      end do
    end do
  end subroutine walk_stats

  subroutine refusals(a, n, s)
    integer, intent(in) :: n
    double precision, intent(inout) :: a(n, n)
    double precision, intent(out) :: s
    double precision, external :: f
    integer :: i, j, k
    s = 0
    do j = 1, n
      do i = 1, n
        s = s + f(a(i, j))
      end do
    end do
    do j = 1, n
      if (a(1, j) < 0) exit
      do i = 1, n
        s = s + a(i, j)
      end do
    end do
    outer: do k = 1, n
      do j = 1, n
        do i = 1, n
          if (a(i, j) < k) exit outer
        end do
      end do
    end do outer
    do j = 1, n
      do i = 1, n
        if (a(i, j) < 0) return
      end do
    end do
    do j = 1, n
      do i = 1, n
        call wrap(a(i, j))
      end do
    end do
    do j = 1, n
      do i = 1, n
        if (a(i, j) > 1d10) goto 10
      end do
    end do
10  continue
    do i = 1, n
      a(i, 1) = 0
    end do
  end subroutine refusals

  pure function total(a, n) result(s)
    integer, intent(in) :: n
    double precision, intent(in) :: a(n, n)
    double precision :: s
    integer :: i, j
    s = 0
    do j = 1, n
      do i = 1, n
        s = s + a(i, j)
      end do
    end do
  end function total

  subroutine wrap(x)
    double precision, intent(inout) :: x
    call helper(x)
  end subroutine wrap
end module stats

program main
  use mpi
  use stats
  implicit none
  integer :: ierr, rank, i, j, k, t
  double precision :: a(8, 8), s, r
  external :: helper
  call mpi_init(ierr)
  call mpi_comm_rank(mpi_comm_world, rank, ierr)
  do k = 1, 4
    do j = 1, 8
      do i = 1, 8
        a(i, j) = rank + i * j + k
        if (a(i, j) > 100) exit
      end do
    end do
  end do
  t = 0
  do while (t < 3)
    t = t + 1
    do j = 1, 8
      do i = 1, 8
        a(i, j) = a(i, j) * 0.5d0
      end do
    end do
  end do
  do t = 1, 2
    do j = 1, 8
      do i = 1, 8
        a(i, j) = a(i, j) - 1
      end do
    end do
    call mpi_barrier(mpi_comm_world, ierr)
  end do
  do j = 1, 8
    do i = 1, 8
      a(i, j) = a(i, j) + 1
    end do
    call mpi_allreduce(a(1, j), r, 1, mpi_double_precision, mpi_sum, mpi_comm_world, ierr)
  end do
  do j = 1, 8
    do i = 1, 8
      a(i, j) = a(i, j) + 1
    end do
    call helper(a(1, j))
  end do
  call walk_stats(a, 8, 8, s)
  call refusals(a, 8, s)
  call mpi_finalize(ierr)
end program main

! CHECK-LABEL: module stats
! CHECK-NEXT:   implicit none
! CHECK-NEXT: contains
! CHECK-NEXT:   subroutine walk_stats(a, n, m, s)
! CHECK-NEXT:     integer :: mpiete_sample_skip
! CHECK-NEXT:     integer(4) :: mpiete_sample_on
! CHECK-NEXT:     common /mpiete_smpl/ mpiete_sample_on
! CHECK-NEXT:     integer, intent(in) :: n, m
! CHECK-NEXT:     double precision, intent(in) :: a(n, m)
! CHECK-NEXT:     double precision, intent(out) :: s
! CHECK-NEXT:     integer :: i, j
! CHECK-NEXT:     s = 0
! CHECK-NEXT:     do j = 1, m
! CHECK-NEXT:       if (mpiete_sample_on .ne. 0) then
! CHECK-NEXT:         if (mpiete_sample_skip([[U:-?[0-9]+]], 0) .eq. 1) cycle
! CHECK-NEXT:       end if
! CHECK-NEXT:       if (a(1, j) == 0) cycle
! CHECK-NEXT:       do i = 1, n
! CHECK-NEXT:         s = s + a(i, j)
! CHECK-NEXT:       end do
! CHECK-NEXT:     end do
! CHECK-NEXT:     call mpiete_sample_exit([[U]], 0)
! CHECK-NEXT:   end subroutine walk_stats
! CHECK-EMPTY:
! CHECK-NEXT:   subroutine refusals(a, n, s)
! CHECK-NEXT:     integer, intent(in) :: n
! CHECK-NEXT:     double precision, intent(inout) :: a(n, n)
! CHECK-NEXT:     double precision, intent(out) :: s
! CHECK-NEXT:     double precision, external :: f
! CHECK-NEXT:     integer :: i, j, k
! CHECK-NEXT:     s = 0
! CHECK-NEXT:     do j = 1, n
! CHECK-NEXT:       do i = 1, n
! CHECK-NEXT:         s = s + f(a(i, j))
! CHECK-NEXT:       end do
! CHECK-NEXT:     end do
! CHECK-NEXT:     do j = 1, n
! CHECK-NEXT:       if (a(1, j) < 0) exit
! CHECK-NEXT:       do i = 1, n
! CHECK-NEXT:         s = s + a(i, j)
! CHECK-NEXT:       end do
! CHECK-NEXT:     end do
! CHECK-NEXT:     outer: do k = 1, n
! CHECK-NEXT:       do j = 1, n
! CHECK-NEXT:         do i = 1, n
! CHECK-NEXT:           if (a(i, j) < k) exit outer
! CHECK-NEXT:         end do
! CHECK-NEXT:       end do
! CHECK-NEXT:     end do outer
! CHECK-NEXT:     do j = 1, n
! CHECK-NEXT:       do i = 1, n
! CHECK-NEXT:         if (a(i, j) < 0) return
! CHECK-NEXT:       end do
! CHECK-NEXT:     end do
! CHECK-NEXT:     do j = 1, n
! CHECK-NEXT:       do i = 1, n
! CHECK-NEXT:         call wrap(a(i, j))
! CHECK-NEXT:       end do
! CHECK-NEXT:     end do
! CHECK-NEXT:     do j = 1, n
! CHECK-NEXT:       do i = 1, n
! CHECK-NEXT:         if (a(i, j) > 1d10) goto 10
! CHECK-NEXT:       end do
! CHECK-NEXT:     end do
! CHECK-NEXT: 10  continue
! CHECK-NEXT:     do i = 1, n
! CHECK-NEXT:       a(i, 1) = 0
! CHECK-NEXT:     end do
! CHECK-NEXT:   end subroutine refusals
! CHECK-EMPTY:
! CHECK-NEXT:   pure function total(a, n) result(s)
! CHECK-NEXT:     integer, intent(in) :: n
! CHECK-NEXT:     double precision, intent(in) :: a(n, n)
! CHECK-NEXT:     double precision :: s
! CHECK-NEXT:     integer :: i, j
! CHECK-NEXT:     s = 0
! CHECK-NEXT:     do j = 1, n
! CHECK-NEXT:       do i = 1, n
! CHECK-NEXT:         s = s + a(i, j)
! CHECK-NEXT:       end do
! CHECK-NEXT:     end do
! CHECK-NEXT:   end function total
! CHECK-EMPTY:
! CHECK-NEXT:   subroutine wrap(x)
! CHECK-NEXT:     double precision, intent(inout) :: x
! CHECK-NEXT:     call helper(x)
! CHECK-NEXT:   end subroutine wrap
! CHECK-NEXT: end module stats
! CHECK-EMPTY:
! CHECK-NEXT: program main
! CHECK-NEXT:   use mpi
! CHECK-NEXT:   use stats
! CHECK-NEXT:   implicit none
! CHECK-NEXT:   integer :: mpiete_iter_capped
! CHECK-NEXT:   integer :: mpiete_iter_opaque_capped
! CHECK-NEXT:   integer :: mpiete_sample_skip
! CHECK-NEXT:   integer(4) :: mpiete_sample_on
! CHECK-NEXT:   common /mpiete_smpl/ mpiete_sample_on
! CHECK-NEXT:   integer :: ierr, rank, i, j, k, t
! CHECK-NEXT:   double precision :: a(8, 8), s, r
! CHECK-NEXT:   external :: helper
! CHECK-NEXT:   call mpiete_init([[U]], 1, ierr)
! CHECK-NEXT:   call mpi_comm_rank(mpi_comm_world, rank, ierr)
! CHECK-NEXT:   do k = 1, 4
! CHECK-NEXT:     if (mpiete_sample_on .ne. 0) then
! CHECK-NEXT:       if (mpiete_sample_skip([[U]], 2) .eq. 1) cycle
! CHECK-NEXT:     end if
! CHECK-NEXT:     do j = 1, 8
! CHECK-NEXT:       do i = 1, 8
! CHECK-NEXT:         a(i, j) = rank + i * j + k
! CHECK-NEXT:         if (a(i, j) > 100) exit
! CHECK-NEXT:       end do
! CHECK-NEXT:     end do
! CHECK-NEXT:   end do
! CHECK-NEXT:   call mpiete_sample_exit([[U]], 2)
! CHECK-NEXT:   t = 0
! CHECK-NEXT:   do while (t < 3)
! CHECK-NEXT:     t = t + 1
! CHECK-NEXT:     do j = 1, 8
! CHECK-NEXT:       if (mpiete_sample_on .ne. 0) then
! CHECK-NEXT:         if (mpiete_sample_skip([[U]], 3) .eq. 1) cycle
! CHECK-NEXT:       end if
! CHECK-NEXT:       do i = 1, 8
! CHECK-NEXT:         a(i, j) = a(i, j) * 0.5d0
! CHECK-NEXT:       end do
! CHECK-NEXT:     end do
! CHECK-NEXT:     call mpiete_sample_exit([[U]], 3)
! CHECK-NEXT:   end do
! CHECK-NEXT:   do t = 1, 2
! CHECK-NEXT:     if (mpiete_iter_capped([[U]], 4) .ne. 0) exit
! CHECK-NEXT:     do j = 1, 8
! CHECK-NEXT:       if (mpiete_sample_on .ne. 0) then
! CHECK-NEXT:         if (mpiete_sample_skip([[U]], 5) .eq. 1) cycle
! CHECK-NEXT:       end if
! CHECK-NEXT:       do i = 1, 8
! CHECK-NEXT:         a(i, j) = a(i, j) - 1
! CHECK-NEXT:       end do
! CHECK-NEXT:     end do
! CHECK-NEXT:     call mpiete_sample_exit([[U]], 5)
! CHECK-NEXT:     call mpiete_barrier([[U]], 6, mpi_comm_world, ierr)
! CHECK-NEXT:   end do
! CHECK-NEXT:   call mpiete_loop_exit([[U]], 4)
! CHECK-NEXT:   do j = 1, 8
! CHECK-NEXT:     if (mpiete_iter_capped([[U]], 7) .ne. 0) exit
! CHECK-NEXT:     do i = 1, 8
! CHECK-NEXT:       a(i, j) = a(i, j) + 1
! CHECK-NEXT:     end do
! CHECK-NEXT:     call mpiete_allreduce([[U]], 8, a(1, j), r, 1, mpi_double_precision, mpi_sum, mpi_comm_world, ierr)
! CHECK-NEXT:   end do
! CHECK-NEXT:   call mpiete_loop_exit([[U]], 7)
! CHECK-NEXT:   do j = 1, 8
! CHECK-NEXT:     if (mpiete_iter_opaque_capped([[U]], 9) .ne. 0) exit
! CHECK-NEXT:     do i = 1, 8
! CHECK-NEXT:       a(i, j) = a(i, j) + 1
! CHECK-NEXT:     end do
! CHECK-NEXT:     call helper(a(1, j))
! CHECK-NEXT:   end do
! CHECK-NEXT:   call mpiete_loop_exit_opaque([[U]], 9)
! CHECK-NEXT:   call walk_stats(a, 8, 8, s)
! CHECK-NEXT:   call refusals(a, 8, s)
! CHECK-NEXT:   call mpiete_finalize([[U]], 10, ierr)
! CHECK-NEXT: end program main

! TRACE-LABEL: module stats
! TRACE-NOT:   mpiete_sample
! TRACE:       call mpiete_finalize({{.*}}
! TRACE-NOT:   mpiete_sample
! TRACE:       end program main

! MAP:        procedures: [walk_stats, main]
! MAP:        - id: [[U:[0-9a-f]+]]:0
! MAP-NEXT:     kind: loop
! MAP-NEXT:     file: {{.*}}sampled-loops.f90
! MAP-NEXT:     lines: [30, 35]
! MAP-NEXT:     col: 5
! MAP-NEXT:     procedure: walk_stats
! MAP-NEXT:     loops: []
! MAP:        - id: [[U]]:5
! MAP-NEXT:     kind: loop
! MAP-NEXT:     file: {{.*}}sampled-loops.f90
! MAP-NEXT:     lines: [130, 134]
! MAP-NEXT:     col: 5
! MAP-NEXT:     procedure: main
! MAP-NEXT:     loops: [0]

! FACTS:      # mpiete: procedures of module 'stats' that communicate
! FACTS-NEXT: ? refusals
! FACTS-NEXT: ? wrap

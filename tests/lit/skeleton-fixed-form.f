! The skeleton trace probe of a fixed-form unit (docs/skeleton.md): statements no MPI call needs
! are blanked, so every later line keeps its number; a removed labelled statement keeps its
! label as CONTINUE, so the kept loop that shares it as terminal stays valid.
! REQUIRES: fortran
! RUN: %mpiete-instrument --variant=skeleton %s -- %mpi-fflags | tee %t.f | FileCheck --match-full-lines --strict-whitespace %s
! RUN: %mpif90-syntax %t.f
! RUN: %mpiete-instrument --skeleton-out=%t.skel.f %s -- %mpi-fflags
! RUN: FileCheck --check-prefix=LIST %s < %t.skel.f.removed
      PROGRAM SKEL
      INCLUDE 'mpif.h'
      INTEGER N, I, K, IERR, RANK
      DOUBLE PRECISION A(100, 3), S
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      N = 10
      S = 0.0D0
      DO 30 K = 1, 3
        CALL MPI_SEND(A(1, K), N, MPI_DOUBLE_PRECISION, 1 - RANK, K,
     &                MPI_COMM_WORLD, IERR)
        DO 30 I = 1, N
          S = S + I
   30 A(I, K) = S
      PRINT *, S
      CALL MPI_FINALIZE(IERR)
      END

! CHECK:      N = 10
! CHECK-EMPTY:
! CHECK-NEXT:      DO 30 K = 1, 3
! CHECK-NEXT:        IF (MPIETE_ITER_CAPPED({{.*}}) .NE. 0) EXIT
! CHECK-NEXT:        CALL MPIETE_SEND({{.*}}
! CHECK-NEXT:     &{{.*}}A(1, K), N,{{.*}}
! CHECK-NEXT:     &{{.*}}MPI_COMM_WORLD, IERR)
! CHECK-EMPTY:
! CHECK-EMPTY:
! CHECK-NEXT:   30 CONTINUE
! CHECK-NEXT:      CALL MPIETE_LOOP_EXIT{{.*}}
! CHECK-EMPTY:
! CHECK-NEXT:      CALL MPIETE_FINALIZE{{.*}}

! LIST: # {{.*}}skeleton-fixed-form.f: 5 of 11 statements removed; message data kept: no
! LIST-NEXT: {{.*}}skeleton-fixed-form.f:16:7: skel: S = 0.0D0
! LIST-NEXT: {{.*}}skeleton-fixed-form.f:20:9: skel: DO 30 I = 1, N
! LIST-NEXT: {{.*}}skeleton-fixed-form.f:23:7: skel: PRINT *, S

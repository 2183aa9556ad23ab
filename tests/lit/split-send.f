! Fixed form, include 'mpif.h': blocking sends and receives keep their place and arguments;
! the callee is renamed (in the case it was written) and the site's unit and block inserted;
! a line pushed past column 72 is broken after them, the rest keeping its columns.
! REQUIRES: fortran
! RUN: %mpiete-instrument --seed-blocks --unit-path=split-send.f %s -- %mpi-fflags | tee %t.f | FileCheck --match-full-lines %s
! RUN: %mpif90-syntax %t.f
! RUN: %mpiete-instrument --seed-blocks --blocks %s -- %mpi-fflags | FileCheck --check-prefix=MAP %s
      SUBROUTINE SENDS(BUF, N, PEER)
      INCLUDE 'mpif.h'
      INTEGER N, PEER, IERR
      INTEGER STAT(MPI_STATUS_SIZE)
      DOUBLE PRECISION BUF(N)
      CALL MPI_SEND(BUF, N, MPI_DOUBLE_PRECISION, PEER, 1,
     &              MPI_COMM_WORLD, IERR)
      call mpi_ssend(BUF, N, MPI_DOUBLE_PRECISION, PEER, 2,
     &               MPI_COMM_WORLD, IERR)
      CALL MPI_RECV (BUF, N, MPI_DOUBLE_PRECISION, PEER, 3,
     &               MPI_COMM_WORLD, STAT, IERR)
      END

! CHECK:      SUBROUTINE SENDS(BUF, N, PEER)
! CHECK-NEXT:       INCLUDE 'mpif.h'
! CHECK-NEXT:       INTEGER N, PEER, IERR
! CHECK-NEXT:       INTEGER STAT(MPI_STATUS_SIZE)
! CHECK-NEXT:       DOUBLE PRECISION BUF(N)
! CHECK-NEXT:       CALL MPIETE_SEND([[U:-?[0-9]+]], 0,
! CHECK-NEXT:      &              BUF, N, MPI_DOUBLE_PRECISION, PEER, 1,
! CHECK-NEXT:      &              MPI_COMM_WORLD, IERR)
! CHECK-NEXT:       call mpiete_ssend([[U]], 2,
! CHECK-NEXT:      &               BUF, N, MPI_DOUBLE_PRECISION, PEER, 2,
! CHECK-NEXT:      &               MPI_COMM_WORLD, IERR)
! CHECK-NEXT:       CALL MPIETE_RECV ([[U]], 4,
! CHECK-NEXT:      &               BUF, N, MPI_DOUBLE_PRECISION, PEER, 3,
! CHECK-NEXT:      &               MPI_COMM_WORLD, STAT, IERR)
! CHECK-NEXT:       END

! MAP:      language: fortran
! MAP:      procedures: [sends]
! MAP:      blocks:
! MAP-NEXT:   - id: [[U:[0-9a-f]+]]:0
! MAP-NEXT:     kind: comm
! MAP-NEXT:     phase: start
! MAP-NEXT:     file: {{.*}}split-send.f
! MAP-NEXT:     lines: [13, 14]
! MAP-NEXT:     col: 12
! MAP-NEXT:     procedure: sends
! MAP-NEXT:     loops: []
! MAP-NEXT:     routine: MPI_Send
! MAP-NEXT:     call: "MPI_SEND(BUF, N, MPI_DOUBLE_PRECISION, PEER, 1, MPI_COMM_WORLD, IERR)"
! MAP-NEXT:   - id: [[U]]:1
! MAP-NEXT:     kind: wait
! MAP-NEXT:     phase: wait
! MAP:          routine: MPI_Send
! MAP:        - id: [[U]]:2
! MAP-NEXT:     kind: comm
! MAP:          routine: MPI_Ssend
! MAP:        - id: [[U]]:4
! MAP-NEXT:     kind: comm
! MAP:          lines: [17, 18]
! MAP:          routine: MPI_Recv
! MAP-NEXT:     call: "MPI_RECV (BUF, N, MPI_DOUBLE_PRECISION, PEER, 3, MPI_COMM_WORLD, STAT, IERR)"
! MAP:        - id: [[U]]:5
! MAP-NEXT:     kind: wait
! MAP-NOT:    - id:

! --unit-path: the unit id (a hash of the path) and so the lines it pushes past column 72
! stay the same wherever the checkout lies.

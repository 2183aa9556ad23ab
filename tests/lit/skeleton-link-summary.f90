! A Fortran unit's link summary (--summary-out, docs/skeleton.md "Whole program"): procedures by
! gfortran's linker names; what a sliced procedure reads is what its kept statements read with
! no other unit's needs (a packed send buffer is not read), its dummies' storage apart from
! their contents (SIZE, a message buffer), and the bounds an explicit-shape dummy is declared
! with; module variables by name, an allocatable's allocation as NAME#storage.
! REQUIRES: fortran
! RUN: %mpiete-instrument --summary-out=%t.summary %s -- %mpi-fflags
! RUN: FileCheck --input-file=%t.summary %s
module field
  use mpi
  implicit none
  real(8), allocatable :: t(:)
  integer :: n = 0, peer = 0
contains
  subroutine exchange(u)
    real(8), intent(inout) :: u(:)
    real(8), allocatable :: sbuf(:)
    integer :: ierr
    allocate(sbuf(size(u)))
    sbuf = 2 * u
    call mpi_send(sbuf, size(sbuf), MPI_DOUBLE_PRECISION, peer, 1, MPI_COMM_WORLD, ierr)
    deallocate(sbuf)
  end subroutine exchange
  subroutine grow(m)
    integer, intent(in) :: m
    n = m
    allocate(t(m))
    t = 0
  end subroutine grow
end module field

subroutine relax(u, m, steps)
  use field
  implicit none
  integer, intent(in) :: m, steps
  real(8), intent(inout) :: u(m)
  integer :: s
  do s = 1, steps
    call exchange(u)
    u = 0.5d0 * u
  end do
end subroutine relax

! CHECK:      kind: unit
! CHECK:      - name: __field_MOD_exchange
! CHECK-NEXT:   communicates: true
! CHECK-NEXT:   calls: []
! CHECK-NEXT:   writes_params: []
! CHECK-NEXT:   reads_params: []
! CHECK-NEXT:   escapes_params: []
! CHECK-NEXT:   storage_reads_params: [0]
! CHECK-NEXT:   storage_writes_params: []
! CHECK:        send_kinds: [point-to-point]
! CHECK:      - name: __field_MOD_grow
! CHECK-NEXT:   communicates: false
! CHECK-NEXT:   calls: []
! CHECK-NEXT:   writes_params: []
! CHECK-NEXT:   reads_params: [0]
! CHECK-NEXT:   escapes_params: []
! CHECK-NEXT:   writes_globals: [__field_MOD_n, __field_MOD_t, __field_MOD_t#storage]
! CHECK:      - name: relax_
! CHECK-NEXT:   communicates: true
! CHECK-NEXT:   calls: []
! CHECK-NEXT:   writes_params: [0]
! CHECK-NEXT:   reads_params: [1, 2]
! CHECK-NEXT:   escapes_params: []
! CHECK-NEXT:   storage_reads_params: [0]

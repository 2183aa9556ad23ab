! The halo exchange and the Jacobi sweep of f90-nbc (external subroutines on the arrays of
! module grid_mod).  The caller posts the exchange, computes the rows that need no ghost row,
! completes the four requests with MPI_Waitall (halo_wait), then computes the edge rows.

!> Posts the halo exchange of a: receives into ghost rows 0 and nloc+1, sends of the first and
!> last owned rows (MPI_PROC_NULL at the global ends: nothing moves there).
subroutine halo_post(a)
  use grid_mod
  implicit none
  real(dp), intent(inout) :: a(0:n + 1, 0:nloc + 1)
  integer :: ierr
  call MPI_Irecv(a(0, 0), n + 2, MPI_DOUBLE_PRECISION, up, tag_down, MPI_COMM_WORLD, &
                 halo_req(1), ierr)
  call MPI_Irecv(a(0, nloc + 1), n + 2, MPI_DOUBLE_PRECISION, down, tag_up, MPI_COMM_WORLD, &
                 halo_req(2), ierr)
  call MPI_Isend(a(0, 1), n + 2, MPI_DOUBLE_PRECISION, up, tag_up, MPI_COMM_WORLD, &
                 halo_req(3), ierr)
  call MPI_Isend(a(0, nloc), n + 2, MPI_DOUBLE_PRECISION, down, tag_down, MPI_COMM_WORLD, &
                 halo_req(4), ierr)
end subroutine halo_post

!> Completes the exchange (the iterates are module arrays: the compiler must assume this
!> external call changes them) with MPI_Waitall and checks both receives: right sender, tag and
!> length (a receive from MPI_PROC_NULL has source MPI_PROC_NULL and no element).
subroutine halo_wait()
  use grid_mod
  implicit none
  integer :: ierr, k, from, tag, cnt, want, st(MPI_STATUS_SIZE, 4)
  call MPI_Waitall(4, halo_req, st, ierr)
  do k = 1, 2
    if (k == 1) then
      from = up
      tag = tag_down
    else
      from = down
      tag = tag_up
    end if
    want = n + 2
    if (from == MPI_PROC_NULL) want = 0
    call MPI_Get_count(st(:, k), MPI_DOUBLE_PRECISION, cnt, ierr)
    if (st(MPI_SOURCE, k) /= from .or. cnt /= want .or. &
        (from /= MPI_PROC_NULL .and. st(MPI_TAG, k) /= tag)) then
      write(0, '(A,I0,A,I0)') 'f90-nbc: wrong halo receive status on rank ', rank, &
                              ', request ', k
      call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
    end if
  end do
end subroutine halo_wait

!> One Jacobi sweep for -Laplace(u) = f (unit mesh width) on owned rows j1..j2:
!> b = (sum of the four neighbours of a + f) / 4; chg = max(chg, largest |b - a|).
subroutine sweep_rows(a, b, j1, j2, chg)
  use grid_mod
  implicit none
  real(dp), intent(in) :: a(0:n + 1, 0:nloc + 1)
  real(dp), intent(inout) :: b(0:n + 1, 0:nloc + 1)
  integer, intent(in) :: j1, j2
  real(dp), intent(inout) :: chg
  integer :: i, j
  do j = j1, j2
    do i = 1, n
      b(i, j) = 0.25_dp * (((a(i - 1, j) + a(i + 1, j)) + (a(i, j - 1) + a(i, j + 1))) + f(i, j))
      chg = max(chg, abs(b(i, j) - a(i, j)))
    end do
  end do
end subroutine sweep_rows

!> This rank's share of the checksum: sum of round(a * 1e6) weighted by the global position,
!> modulo modulus (integers: the same in any order and decomposition).
subroutine local_checksum(a, sum)
  use grid_mod
  implicit none
  real(dp), intent(in) :: a(0:n + 1, 0:nloc + 1)
  integer(8), intent(out) :: sum
  integer(8) :: v, r, c
  integer :: i, j
  sum = 0
  do j = 1, nloc
    r = j0 + j - 1
    do i = 1, n
      c = i - 1
      v = modulo(floor(a(i, j) * 1.0e6_dp + 0.5_dp, kind=8), modulus)
      sum = modulo(sum + v * (1 + modulo(r * 131 + c * 71, 1000_8)), modulus)
    end do
  end do
end subroutine local_checksum

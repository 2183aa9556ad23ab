! The module of the free-form Fortran runtime test (tcoll.F90), in its own file: the test's
! unit id and the values its checks expect.
module tcoll_util
  implicit none
  ! Unit id 00F90001.
  integer, parameter :: iu = 16318465

contains

  !> 0 + 1 + ... + (n - 1)
  integer function below_sum(n)
    integer, intent(in) :: n
    below_sum = n * (n - 1) / 2
  end function below_sum

end module tcoll_util

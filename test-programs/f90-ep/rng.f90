! Pseudo-random numbers of f90-ep: Marsaglia's xorshift generator on 64-bit integers (shifts
! and exclusive ors only, so no signed overflow), one independent stream per walk.
module rng
  implicit none
  private
  public :: seed_stream, next_bits

contains

  !> The state of stream w: its number spread over the bits, then mixed.
  integer(8) function seed_stream(w)
    integer, intent(in) :: w
    integer(8) :: s
    integer :: i
    s = ieor(int(w, 8), ishft(int(w, 8), 32))
    s = ieor(s, int(z'2545F4914F6CDD1D', 8))
    do i = 1, 8
      call next_bits(s)
    end do
    seed_stream = s
  end function seed_stream

  !> Advances the state.
  subroutine next_bits(s)
    integer(8), intent(inout) :: s
    s = ieor(s, ishft(s, 13))
    s = ieor(s, ishft(s, -7))
    s = ieor(s, ishft(s, 17))
  end subroutine next_bits

end module rng

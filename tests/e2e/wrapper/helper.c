/* helper.c: a plain C library (no MPI) the wrapper tests link with -L/-l. */
long helper_scale(long x)
{
    return 7 * x + 1;
}

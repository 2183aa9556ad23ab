/* layout_kernel.c: computation without MPI calls (e2e.wrapper.align_loops): its loops lie
   where the program has them in the timing probe too. */
void smooth(double *v, const double *u, int n, int reps)
{
    int r, i;
    for (r = 0; r < reps; r++)
        for (i = 1; i < n - 1; i++)
            v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1] + (double)r;
}

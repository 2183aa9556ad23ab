/* util.h: the communicating helpers of the wrapper-test fixture program. */
#ifndef UTIL_H
#define UTIL_H

long ring_sum(long value); /* sum over all ranks, passed round a ring with MPI_Sendrecv */
long all_max(long value);  /* maximum over all ranks with MPI_Allreduce */

#endif

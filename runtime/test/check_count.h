/* A check that counts failures and lets the test go on to report them all (the test returns
 * `failures != 0`), for the runtime tests that do not use test_util.h's expected output. */
#ifndef MPIETE_RUNTIME_CHECK_COUNT_H
#define MPIETE_RUNTIME_CHECK_COUNT_H

#include <stdio.h>

static int failures = 0;
#define CHECK(c, ...)                                                                              \
  do {                                                                                             \
    if (!(c)) {                                                                                    \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                         \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

#endif

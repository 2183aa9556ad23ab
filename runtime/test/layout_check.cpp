// The runtime's datatype layouts (trace format 4, runtime/lib/Layout.h) on the MPI library's
// own types: each type's class of mean contiguous piece, and the cache that must not outlive a
// freed type whose handle MPI hands out again. One rank; prints "layouts right" when all agree.
#include "Layout.h"

#include "mpiete/TraceFormat.h"

#include <mpi.h>

#include <cstdio>

namespace {

int Failures = 0;

void expect(const char *What, int Count, MPI_Datatype Type, int Expected) {
  const int Got = mpiete::layoutOf(Count, Type);
  const int Again = mpiete::layoutOf(Count, Type); // from the cache
  if (Got != Expected || Again != Expected) {
    std::fprintf(stderr, "layout_check: %s: class %d then %d, expected %d\n", What, Got, Again,
                 Expected);
    ++Failures;
  }
}

MPI_Datatype committed(MPI_Datatype T) {
  MPI_Type_commit(&T);
  return T;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Datatype T;
  expect("MPI_DOUBLE", 10, MPI_DOUBLE, 0);
  expect("nothing", 0, MPI_DOUBLE, 0);

  MPI_Type_contiguous(10, MPI_DOUBLE, &T);
  expect("contiguous", 3, committed(T), 0);
  MPI_Type_free(&T);

  // A column of a row-major matrix: 100 pieces of 8 bytes.
  MPI_Type_vector(100, 1, 4, MPI_DOUBLE, &T);
  expect("vector of single doubles", 1, committed(T), 1);
  if (mpiete::piecesOf(T) != 100) {
    std::fprintf(stderr, "layout_check: vector pieces %g, expected 100\n", mpiete::piecesOf(T));
    ++Failures;
  }
  MPI_Type_free(&T);
  // Probably the same handle again, now with pieces of 128 bytes: the cache went with the type.
  MPI_Type_vector(100, 16, 32, MPI_DOUBLE, &T);
  expect("vector of 16 doubles", 2, committed(T), 3);
  MPI_Type_free(&T);

  // alltoallw-transpose's block: 1200 rows of 1200 of a 2400-long row, 9600-byte pieces.
  {
    int Sizes[2] = {1200, 2400}, Sub[2] = {1200, 1200}, Start[2] = {0, 1200};
    MPI_Type_create_subarray(2, Sizes, Sub, Start, MPI_ORDER_C, MPI_LONG, &T);
    expect("subarray block", 1, committed(T), 6);
    MPI_Type_free(&T);
  }
  // Whole rows: one piece. Alone it is contiguous; two in a row have the array's gap between.
  {
    int Sizes[2] = {10, 20}, Sub[2] = {5, 20}, Start[2] = {2, 0};
    MPI_Type_create_subarray(2, Sizes, Sub, Start, MPI_ORDER_C, MPI_DOUBLE, &T);
    committed(T);
    expect("subarray of whole rows", 1, T, 0);
    expect("two subarrays of whole rows", 2, T, 4); // 800-byte pieces
    MPI_Type_free(&T);
    int FSizes[2] = {20, 10}, FSub[2] = {20, 5}, FStart[2] = {0, 2};
    MPI_Type_create_subarray(2, FSizes, FSub, FStart, MPI_ORDER_FORTRAN, MPI_DOUBLE, &T);
    expect("Fortran subarray of whole columns", 1, committed(T), 0);
    MPI_Type_free(&T);
    int CutStart[2] = {0, 0}, Part[2] = {10, 4};
    MPI_Type_create_subarray(2, FSizes, Part, CutStart, MPI_ORDER_FORTRAN, MPI_DOUBLE, &T);
    expect("Fortran subarray of half columns", 1, committed(T), 3); // 80-byte pieces
    MPI_Type_free(&T);
  }
  // A struct with a gap: an int, 4 bytes of padding, a double: 2 pieces of 6 bytes on average.
  {
    int Lengths[2] = {1, 1};
    MPI_Aint Displs[2] = {0, 8};
    MPI_Datatype Types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, Lengths, Displs, Types, &T);
    expect("struct with a gap", 4, committed(T), 1);
    MPI_Type_free(&T);
  }
  // Indexed blocks of 2 and 4 ints (an empty one between): 12-byte pieces.
  {
    int Lengths[3] = {2, 0, 4}, Displs[3] = {0, 10, 20};
    MPI_Type_indexed(3, Lengths, Displs, MPI_INT, &T);
    expect("indexed", 1, committed(T), 1);
    MPI_Type_free(&T);
  }
  // A vector of vectors (a face of a 3-D array): pieces of the inner vector's 64-byte blocks.
  {
    MPI_Datatype Inner;
    MPI_Type_vector(4, 8, 16, MPI_DOUBLE, &Inner);
    MPI_Type_create_hvector(3, 1, 16 * 16 * 8, Inner, &T);
    expect("hvector of vectors", 1, committed(T), 3);
    MPI_Type_free(&T);
    MPI_Type_free(&Inner);
  }
  if (Failures == 0)
    std::printf("layouts right\n");
  MPI_Finalize();
  return Failures == 0 ? 0 : 1;
}

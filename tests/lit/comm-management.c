// Communicator creation and release are collective: comm-mgmt blocks. Local queries
// (Comm_rank, Comm_size, Cart_coords) stay as written inside compute blocks.
// RUN: %mpiete-instrument --coarse-blocks %s -- %mpi-cflags | tee %t.c | FileCheck --match-full-lines %s
// RUN: %mpicc-syntax %t.c
// RUN: %mpiete-instrument --coarse-blocks --blocks %s -- %mpi-cflags | FileCheck --check-prefix=MAP %s
#include <mpi.h>

int comms(void) {
  MPI_Comm row, dup, sub, cart, node;
  MPI_Group g;
  int rank, dims[2] = {0, 0}, periods[2] = {1, 1}, keep[2] = {1, 0}, coords[2];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &row);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_dup(row, &dup);
  MPI_Comm_group(dup, &g);
  MPI_Comm_create(dup, g, &sub);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Cart_coords(cart, rank, 2, coords);
  MPI_Cart_sub(cart, keep, &sub);
  MPI_Comm_free(&row);
  return coords[0];
}

// CHECK:      int comms(void) {
// CHECK-NEXT:   MPI_Comm row, dup, sub, cart, node;
// CHECK-NEXT:   MPI_Group g;
// CHECK-NEXT:   int rank, dims[2] = {0, 0}, periods[2] = {1, 1}, keep[2] = {1, 0}, coords[2];
// CHECK-NEXT:   mpiete_tr_block(MPIETE_B(0)); MPI_Comm_rank(MPI_COMM_WORLD, &rank);
// CHECK-NEXT:   mpiete_comm_split(MPIETE_B(1), MPI_COMM_WORLD, rank % 2, rank, &row);
// CHECK-NEXT:   mpiete_comm_split_type(MPIETE_B(2), MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
// CHECK-NEXT:   mpiete_comm_dup(MPIETE_B(3), row, &dup);
// CHECK-NEXT:   mpiete_tr_block(MPIETE_B(4)); MPI_Comm_group(dup, &g);
// CHECK-NEXT:   mpiete_comm_create(MPIETE_B(5), dup, g, &sub);
// CHECK-NEXT:   mpiete_cart_create(MPIETE_B(6), MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
// CHECK-NEXT:   mpiete_tr_block(MPIETE_B(7)); MPI_Cart_coords(cart, rank, 2, coords);
// CHECK-NEXT:   mpiete_cart_sub(MPIETE_B(8), cart, keep, &sub);
// CHECK-NEXT:   mpiete_comm_free(MPIETE_B(9), &row);
// CHECK-NEXT:   return coords[0];
// CHECK-NEXT: }

// MAP:      - id: [[U:[0-9a-f]+]]:0
// MAP-NEXT:   kind: compute
// MAP:      - id: [[U]]:1
// MAP-NEXT:   kind: comm-mgmt
// MAP:        routine: MPI_Comm_split
// MAP:      - id: [[U]]:2
// MAP-NEXT:   kind: comm-mgmt
// MAP:        routine: MPI_Comm_split_type
// MAP:      - id: [[U]]:3
// MAP-NEXT:   kind: comm-mgmt
// MAP:        routine: MPI_Comm_dup
// MAP:      - id: [[U]]:4
// MAP-NEXT:   kind: compute
// MAP:      - id: [[U]]:5
// MAP-NEXT:   kind: comm-mgmt
// MAP:        routine: MPI_Comm_create
// MAP:      - id: [[U]]:6
// MAP-NEXT:   kind: comm-mgmt
// MAP:        routine: MPI_Cart_create
// MAP:      - id: [[U]]:7
// MAP-NEXT:   kind: compute
// MAP:      - id: [[U]]:8
// MAP-NEXT:   kind: comm-mgmt
// MAP:        routine: MPI_Cart_sub
// MAP:      - id: [[U]]:9
// MAP-NEXT:   kind: comm-mgmt
// MAP:        routine: MPI_Comm_free
// MAP-NEXT:   call: "MPI_Comm_free(&row)"
// MAP-NOT:  - id:

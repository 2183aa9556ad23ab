/* tree.h: a broadcast from rank 0 and a sum to rank 0 along a binomial
 * tree, written by hand the textbook way (rank r's parent is r minus its
 * highest bit, its children r + 2^j above its highest bit). */
#ifndef TREESUM_TREE_H
#define TREESUM_TREE_H

void tree_bcast(double *buf, int count, int rank, int nproc);
void tree_sum(double *buf, int count, int rank, int nproc);

#endif

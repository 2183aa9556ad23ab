// Non-negative least squares (Lawson and Hanson's active-set method): the fit seed 002 asks for
// so that a scaling model never predicts a negative time when it extrapolates.
#ifndef MPIETE_SCALING_NNLS_H
#define MPIETE_SCALING_NNLS_H

#include <cstddef>
#include <vector>

namespace mpiete::scaling {

/// A dense row-major matrix, small (a few dozen rows, a handful of columns).
struct Matrix {
  size_t Rows = 0, Cols = 0;
  std::vector<double> Data;
  Matrix() = default;
  Matrix(size_t R, size_t C) : Rows(R), Cols(C), Data(R * C, 0.0) {}
  double &operator()(size_t R, size_t C) { return Data[R * Cols + C]; }
  double operator()(size_t R, size_t C) const { return Data[R * Cols + C]; }
};

struct NnlsResult {
  std::vector<double> X;  ///< the solution, every entry >= 0
  double Residual = 0;    ///< ||A x - b||_2
  bool Converged = false; ///< false: the iteration limit was hit (X is the last iterate)
};

/// min ||A x - b||_2 subject to x >= 0.
NnlsResult solveNnls(const Matrix &A, const std::vector<double> &B);

/// Unconstrained least squares on the columns Cols of A (Householder QR); columns that are
/// numerically dependent on earlier ones get 0. Used by solveNnls for its passive set.
std::vector<double> leastSquares(const Matrix &A, const std::vector<double> &B,
                                 const std::vector<size_t> &Cols);

} // namespace mpiete::scaling

#endif

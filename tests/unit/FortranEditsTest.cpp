// Unit tests of the Fortran edits on hand-made models: unit literals, hooks on shared lines,
// fixed-form re-breaking at the last column, free-form long lines, sampled loops.
#include "mpiete/transforms/FortranEdits.h"

#include <gtest/gtest.h>

#include <sstream>

namespace mpiete {
namespace {

std::string edit(const UnitModel &M, const std::string &Text, Variant V = Variant::Trace,
                 bool SampleHooks = false) {
  std::string Error;
  auto Out = instrumentFortran(M, Text, V, Error, SampleHooks);
  EXPECT_TRUE(Out.has_value()) << Error;
  return Out.value_or("<conflict: " + Error + ">");
}

/// A compute block over [Begin, End) of Text.
void addCompute(UnitModel &M, unsigned Begin, unsigned End) {
  Block B;
  B.Index = M.Blocks.size();
  B.Compute = M.Computes.size();
  ComputeEdits E;
  E.Begin = Begin;
  E.End = End;
  M.Computes.push_back(E);
  M.Blocks.push_back(B);
}

/// A rewritten call of Name written at Text's first occurrence of Name.
void addSite(UnitModel &M, const std::string &Text, const std::string &Name,
             const std::string &Runtime, unsigned Blocks) {
  CallSite S;
  S.Routine = Name;
  S.RuntimeName = Runtime;
  S.FirstBlock = M.Blocks.size();
  size_t At = Text.find(Name);
  S.Edits.CalleeBegin = At;
  S.Edits.CalleeEnd = At + Name.size();
  S.Edits.ArgsBegin = Text.find('(', At) + 1;
  M.Sites.push_back(S);
  for (unsigned I = 0; I < Blocks; ++I) {
    Block B;
    B.Index = M.Blocks.size();
    B.Site = M.Sites.size() - 1;
    M.Blocks.push_back(B);
  }
}

/// A loop site (segments) with its iteration hook after the DO statement ending at BodyBegin and
/// its exit hook after LoopEnd (none when 0).
void addLoop(UnitModel &M, unsigned BodyBegin, unsigned LoopEnd, bool Leaves = false,
             unsigned LoopBegin = 0) {
  Block B;
  B.Index = M.Blocks.size();
  B.Kind = BlockKind::Loop;
  B.Compute = M.Computes.size();
  ComputeEdits E;
  E.BodyBegin = BodyBegin;
  E.LoopEnd = E.End = E.BodyEnd = LoopEnd;
  E.LoopBegin = E.Begin = LoopBegin;
  E.Leaves = Leaves;
  M.Computes.push_back(E);
  M.Blocks.push_back(B);
}

TEST(FortranEditsTest, LoopHooksInBothVariantsAndNoExitWithoutAPlace) {
  UnitModel M;
  M.UnitId = 7;
  M.FixedForm = true;
  std::string Text = "      DO 10 J = 1, N\n"
                     "      DO 10 I = 1, N\n"
                     "        X = X + 1\n"
                     "   10 CONTINUE\n";
  unsigned Do1 = Text.find('\n'), Do2 = Text.find('\n', Do1 + 1);
  unsigned End = Text.size() - 1;
  addLoop(M, Do1, End);
  addLoop(M, Do2, 0);
  std::string Want = "      DO 10 J = 1, N\n"
                     "      CALL MPIETE_ITER(7, 0)\n"
                     "      DO 10 I = 1, N\n"
                     "        CALL MPIETE_ITER(7, 1)\n"
                     "        X = X + 1\n"
                     "   10 CONTINUE\n"
                     "      CALL MPIETE_LOOP_EXIT(7, 0)\n";
  EXPECT_EQ(edit(M, Text, Variant::Trace), Want);
  EXPECT_EQ(edit(M, Text, Variant::Timing), Want);
}

TEST(FortranEditsTest, LeavingLoopHooksAndTheirDeclaration) {
  // The cap's hook leaves the loop; its function's type is declared with the counters; a loop
  // an OpenMP directive governs keeps the plain hook.
  UnitModel M;
  M.UnitId = 7;
  std::string Text = "subroutine s(n)\n"
                     "  implicit none\n"
                     "  integer :: n, i, j\n"
                     "  do i = 1, n\n"
                     "    call mpi_barrier(0, j)\n"
                     "  end do\n"
                     "  !$omp parallel do\n"
                     "  do j = 1, n\n"
                     "    call mpi_barrier(0, i)\n"
                     "  end do\n"
                     "end\n";
  unsigned Do1 = Text.find("  do i"), Do2 = Text.find("  do j");
  addLoop(M, Text.find('\n', Do1), Text.find("end do", Do1) + 6, true, Do1 + 2);
  addLoop(M, Text.find('\n', Do2), Text.find("end do", Do2) + 6, true, Do2 + 2);
  CounterDecl D;
  D.Offset = Text.find("implicit none") + 13;
  D.CapHook = true;
  M.CounterDecls.push_back(D);
  std::string Want = "subroutine s(n)\n"
                     "  implicit none\n"
                     "  integer :: mpiete_iter_capped\n"
                     "  integer :: n, i, j\n"
                     "  do i = 1, n\n"
                     "    if (mpiete_iter_capped(7, 0) .ne. 0) exit\n"
                     "    call mpi_barrier(0, j)\n"
                     "  end do\n"
                     "  call mpiete_loop_exit(7, 0)\n"
                     "  !$omp parallel do\n"
                     "  do j = 1, n\n"
                     "    call mpiete_iter(7, 1)\n"
                     "    call mpi_barrier(0, i)\n"
                     "  end do\n"
                     "  call mpiete_loop_exit(7, 1)\n"
                     "end\n";
  EXPECT_EQ(edit(M, Text, Variant::Trace), Want);
  EXPECT_EQ(edit(M, Text, Variant::Timing), Want);
}

TEST(FortranEditsTest, UnitIdsAreSignedDefaultIntegers) {
  EXPECT_EQ(fortranUnitLiteral(5), "5");
  EXPECT_EQ(fortranUnitLiteral(0xffffffffu), "-1");
  EXPECT_EQ(fortranUnitLiteral(0xabcdef01u), "-1412567295");
  // -2147483648 is no literal: 2147483648 overflows a default INTEGER before the minus.
  EXPECT_EQ(fortranUnitLiteral(0x80000000u), "(-2147483647-1)");
}

TEST(FortranEditsTest, HooksShareALineWithSemicolons) {
  UnitModel M;
  M.UnitId = 7;
  std::string Text = "subroutine s(a, b)\n  a = 1; b = 2; a = b\nend\n";
  unsigned B = Text.find("b = 2"), E = B + 5;
  addCompute(M, B, E);
  EXPECT_EQ(edit(M, Text, Variant::Timing),
            "subroutine s(a, b)\n  a = 1; call mpiete_tm_begin(7, 0); b = 2; "
            "call mpiete_tm_end(7, 0); a = b\nend\n");
}

TEST(FortranEditsTest, FixedFormLinePastColumn72IsBrokenAfterTheSiteArguments) {
  UnitModel M;
  M.UnitId = 0x80000000u;
  M.FixedForm = true;
  std::string Call = "      CALL MPI_BCAST(BUFFER, COUNT, MPI_DOUBLE_PRECISION, 0, COMM, IE)";
  ASSERT_LE(Call.size(), 72u);
  std::string Text = "      SUBROUTINE S\n" + Call + "\n      END\n";
  addSite(M, Text, "MPI_BCAST", "mpiete_bcast", 1);
  std::string Out = edit(M, Text);
  EXPECT_EQ(Out, "      SUBROUTINE S\n"
                 "      CALL MPIETE_BCAST((-2147483647-1), 0,\n"
                 "     &               BUFFER, COUNT, MPI_DOUBLE_PRECISION, 0, COMM, IE)\n"
                 "      END\n");
  std::istringstream IS(Out);
  for (std::string Line; std::getline(IS, Line);)
    EXPECT_LE(Line.size(), 72u) << Line;
}

TEST(FortranEditsTest, WiderFixedFormKeepsTheLine) {
  UnitModel M;
  M.UnitId = 1;
  M.FixedForm = true;
  M.FixedColumns = 132;
  std::string Text = "      CALL MPI_BCAST(BUFFER, COUNT, MPI_DOUBLE_PRECISION, 0, COMM, IE)\n";
  addSite(M, Text, "MPI_BCAST", "mpiete_bcast", 1);
  EXPECT_EQ(edit(M, Text),
            "      CALL MPIETE_BCAST(1, 0, BUFFER, COUNT, MPI_DOUBLE_PRECISION, 0, COMM, IE)\n");
}

TEST(FortranEditsTest, FreeFormLinePast132IsContinued) {
  UnitModel M;
  M.UnitId = 3;
  std::string Args(100, 'x');
  std::string Text = "  call MPI_Barrier(" + Args + ", ierr)\n";
  ASSERT_LE(Text.size() - 1, 132u);
  addSite(M, Text, "MPI_Barrier", "mpiete_barrier", 1);
  EXPECT_EQ(edit(M, Text), "  call mpiete_barrier(3, 0, &\n      &" + Args + ", ierr)\n");
}

TEST(FortranEditsTest, WholeLoopCounterIsDeclaredAndCounted) {
  UnitModel M;
  M.UnitId = 9;
  std::string Text = "subroutine s(x)\n  implicit none\n  real :: x(4)\n  integer :: i\n"
                     "  do i = 1, 4\n    x(i) = 0\n  end do\nend\n";
  Block B;
  B.Compute = 0;
  B.WholeLoop = true;
  M.Blocks.push_back(B);
  ComputeEdits E;
  E.WholeLoop = true;
  E.LoopBegin = E.Begin = Text.find("do i");
  E.BodyBegin = Text.find("4\n    x") + 1;
  E.LoopEnd = E.End = Text.find("end do") + 6;
  M.Computes.push_back(E);
  CounterDecl D;
  D.Offset = Text.find("implicit none") + 13;
  D.Blocks = {0};
  M.CounterDecls.push_back(D);
  EXPECT_EQ(edit(M, Text, Variant::Timing),
            "subroutine s(x)\n  implicit none\n  integer(kind=8) :: mpiete_n0\n  real :: x(4)\n"
            "  integer :: i\n  mpiete_n0 = 0\n  call mpiete_tm_begin(9, 0)\n  do i = 1, 4\n"
            "    mpiete_n0 = mpiete_n0 + 1\n    x(i) = 0\n  end do\n"
            "  call mpiete_tm_loop_end(9, 0, mpiete_n0)\nend\n");
}

/// A sampled loop (segments): its hooks after the DO statement ending at BodyBegin and after
/// LoopEnd.
void addSampled(UnitModel &M, unsigned LoopBegin, unsigned BodyBegin, unsigned LoopEnd) {
  addLoop(M, BodyBegin, LoopEnd, /*Leaves=*/false, LoopBegin);
  M.Computes.back().SampledLoop = true;
}

TEST(FortranEditsTest, SampledLoopHooksInTheTimingVariantOnly) {
  // The skip hook's function is typed by the procedure; a loop an OpenMP directive governs
  // gets no hooks; the trace variant (and so the skeleton) gets none at all.
  UnitModel M;
  M.UnitId = 7;
  std::string Text = "subroutine s(a, n)\n"
                     "  implicit none\n"
                     "  integer :: n, i, j\n"
                     "  real :: a(n, n)\n"
                     "  do j = 1, n\n"
                     "    do i = 1, n\n"
                     "      a(i, j) = 0\n"
                     "    end do\n"
                     "  end do\n"
                     "  !$omp parallel do\n"
                     "  do j = 1, n\n"
                     "    a(:, j) = 1\n"
                     "  end do\n"
                     "end\n";
  unsigned Do1 = Text.find("  do j"), Do2 = Text.find("  do j", Do1 + 1);
  addSampled(M, Do1 + 2, Text.find('\n', Do1), Text.find("  end do\n  !") + 8);
  addSampled(M, Do2 + 2, Text.find('\n', Do2), Text.find("end do", Do2) + 6);
  CounterDecl D;
  D.Offset = Text.find("implicit none") + 13;
  D.SampleHook = true;
  M.CounterDecls.push_back(D);
  EXPECT_EQ(edit(M, Text, Variant::Trace, /*SampleHooks=*/true), Text);
  std::string Error;
  EXPECT_EQ(skeletonFortran(M, Text, Error).value_or(Error), Text);
  EXPECT_EQ(edit(M, Text, Variant::Timing, /*SampleHooks=*/true),
            "subroutine s(a, n)\n"
            "  implicit none\n"
            "  integer :: mpiete_sample_skip\n"
            "  integer(4) :: mpiete_sample_on\n"
            "  common /mpiete_smpl/ mpiete_sample_on\n"
            "  integer :: n, i, j\n"
            "  real :: a(n, n)\n"
            "  do j = 1, n\n"
            "    if (mpiete_sample_on .ne. 0) then\n"
            "      if (mpiete_sample_skip(7, 0) .eq. 1) cycle\n"
            "    end if\n"
            "    do i = 1, n\n"
            "      a(i, j) = 0\n"
            "    end do\n"
            "  end do\n"
            "  call mpiete_sample_exit(7, 0)\n"
            "  !$omp parallel do\n"
            "  do j = 1, n\n"
            "    a(:, j) = 1\n"
            "  end do\n"
            "end\n");
}

TEST(FortranEditsTest, FixedFormSampledLoopHookStaysInTheStatementField) {
  // Indented past what column 72 leaves room for, the skip hook starts in column 7; the exit
  // hook goes after the terminal statement.
  UnitModel M;
  M.UnitId = 0x80000000u;
  M.FixedForm = true;
  std::string Text = "                           DO 95 K = 1, M\n"
                     "                              DO 95 J = 1, N\n"
                     "                                 A(J) = A(J) + K\n"
                     "   95                      CONTINUE\n";
  addSampled(M, Text.find("DO 95 K"), Text.find('\n'), Text.size() - 1);
  EXPECT_EQ(edit(M, Text, Variant::Timing, /*SampleHooks=*/true),
            "                           DO 95 K = 1, M\n"
            "                              IF (MPIETE_SAMPLE_ON .NE. 0) THEN\n"
            "        IF (MPIETE_SAMPLE_SKIP((-2147483647-1), 0) .EQ. 1) CYCLE\n"
            "                              END IF\n"
            "                              DO 95 J = 1, N\n"
            "                                 A(J) = A(J) + K\n"
            "   95                      CONTINUE\n"
            "                           CALL MPIETE_SAMPLE_EXIT((-2147483647-1), 0)\n");
}

} // namespace
} // namespace mpiete

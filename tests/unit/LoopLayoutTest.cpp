// The timing probe's loop placement (tools/lib/LoopLayout.cpp): listings scanned for loop
// heads, loops matched to the original's, labels padded to their offsets.
#include "mpiete/tools/LoopLayout.h"

#include <gtest/gtest.h>

using namespace mpiete::tools::layout;

namespace {

// A GCC-style listing: main in .text.startup with an outer loop (.L3, with a call) and an inner
// loop (.L4), a helper in .text with one loop. Extra: lines inserted before the inner loop.
std::string listing(const std::string &Extra, const std::string &InnerReg = "%rcx") {
  return "\t.text\n"
         "\t.p2align 4\n"
         "\t.globl\thelper\n"
         "\t.type\thelper, @function\n"
         "helper:\n"
         ".LFB0:\n"
         "\txorl\t%eax, %eax\n"
         "\t.p2align 4,,10\n"
         "\t.p2align 3\n"
         ".L2:\n"
         "\taddl\t$1, %eax\n"
         "\tcmpl\t%edi, %eax\n"
         "\tjne\t.L2\n"
         "\tret\n"
         "\t.size\thelper, .-helper\n"
         "\t.section\t.text.startup,\"ax\",@progbits\n"
         "\t.p2align 4\n"
         "\t.globl\tmain\n"
         "\t.type\tmain, @function\n"
         "main:\n"
         "\tpushq\t%rbx\n"
         ".L3:\n"
         "\tcall\tMPI_Barrier\n" +
         Extra +
         "\t.p2align 4,,10\n"
         "\t.p2align 3\n"
         ".L4:\n"
         "\tmovsd\t(%rax), %xmm0\n"
         "\tmovq\t%rax, " +
         InnerReg +
         "\n"
         "\taddq\t$8, %rax\n"
         "\tcmpq\t%rsi, %rax\n"
         "\tjne\t.L4\n"
         "\tsubl\t$1, %ebx\n"
         "\tjne\t.L3\n"
         "\tpopq\t%rbx\n"
         "\tret\n"
         "\t.size\tmain, .-main\n";
}

// The original object of listing(""): helper at 0x10 of .text, its loop at 0x30; main at 0 of
// .text.startup, .L3 at 0x1, .L4 at 0x10.
std::vector<ElfSymbol> originalSymbols() {
  return {{"helper", ".text", 0x10, true, false},
          {".L2", ".text", 0x30, false, true},
          {"main", ".text.startup", 0x0, true, false},
          {".L3", ".text.startup", 0x1, false, true},
          {".L4", ".text.startup", 0x10, false, true}};
}

} // namespace

TEST(LoopLayoutTest, ScanFindsLoopHeadsPerFunctionAndSection) {
  std::vector<AsmFunction> F = scanAssembly(listing(""));
  ASSERT_EQ(F.size(), 2u);
  EXPECT_EQ(F[0].Name, "helper");
  EXPECT_EQ(F[0].Section, ".text");
  ASSERT_EQ(F[0].Loops.size(), 1u);
  EXPECT_EQ(F[0].Loops[0].Label, ".L2");
  EXPECT_EQ(F[0].Loops[0].Instructions, 3u);
  EXPECT_EQ(F[1].Name, "main");
  EXPECT_EQ(F[1].Section, ".text.startup");
  ASSERT_EQ(F[1].Loops.size(), 2u);
  EXPECT_EQ(F[1].Loops[0].Label, ".L3"); // the outer loop, in text order
  EXPECT_EQ(F[1].Loops[1].Label, ".L4");
  EXPECT_EQ(F[1].Loops[1].Instructions, 5u);
  // A forward jump makes no loop; a jump to another function's label neither.
  EXPECT_TRUE(scanAssembly("\t.type\tf, @function\nf:\n\tjmp\t.L9\n.L9:\n\tret\n\t.size\tf, .-f\n")
                  .front()
                  .Loops.empty());
}

// ep's hot loop as GCC -O2 laid it out: the rare branch (sqrt of a negative number) is a cold
// block after the function's return that jumps back to where the hot path joins (.L22). That
// label is no loop head: padding before it would run on every iteration of the loop around it.
// A loop head's jump back is reached from it within the text between them.
TEST(LoopLayoutTest, AJoinAColdBlockJumpsBackToIsNoLoopHead) {
  const std::string F = "\t.type\tf, @function\n"
                        "f:\n"
                        "\tpushq\t%rbx\n"
                        ".L4:\n" // the real loop
                        "\tucomisd\t%xmm0, %xmm2\n"
                        "\tja\t.L58\n" // to the cold block
                        "\tsqrtsd\t%xmm0, %xmm0\n"
                        ".L22:\n" // the join
                        "\tmulpd\t%xmm1, %xmm0\n"
                        "\tsubl\t$1, %ebx\n"
                        "\tjne\t.L4\n"
                        "\tpopq\t%rbx\n"
                        "\tret\n"
                        ".L58:\n"
                        "\tcall\tsqrt@PLT\n"
                        "\tjmp\t.L22\n" // later in the text, but not from within a loop
                        "\t.size\tf, .-f\n";
  std::vector<AsmFunction> A = scanAssembly(F);
  ASSERT_EQ(A.size(), 1u);
  ASSERT_EQ(A[0].Loops.size(), 1u);
  EXPECT_EQ(A[0].Loops[0].Label, ".L4");
  EXPECT_EQ(A[0].Loops[0].Instructions, 6u);

  // A rotated loop, entered by a jump into its middle: its head is not passed on the way in,
  // but its body lies between the head and the jump back, and padding before it never runs.
  const std::string R = "\t.type\tr, @function\n"
                        "r:\n"
                        "\tjmp\t.L3\n"
                        ".L2:\n"
                        "\taddl\t$1, %eax\n"
                        ".L3:\n"
                        "\tcmpl\t%edi, %eax\n"
                        "\tjne\t.L2\n"
                        "\tret\n"
                        "\t.size\tr, .-r\n";
  A = scanAssembly(R);
  ASSERT_EQ(A.size(), 1u);
  ASSERT_EQ(A[0].Loops.size(), 1u);
  EXPECT_EQ(A[0].Loops[0].Label, ".L2");
  // Its padding follows an unconditional jump: no jump over it is added.
  const std::string Placed = applyPlacements(R, {{A[0].Loops[0].Line, 8}});
  EXPECT_NE(Placed.find("\tjmp\t.L3\n\t.p2align 6\n\t.nops 8\n.L2:\n"), std::string::npos);
  EXPECT_EQ(Placed.find("jmp\t.L2"), std::string::npos);

  // The same cold block inside a loop of its own (it jumps back to the loop's head) keeps it.
  const std::string G = "\t.type\tg, @function\n"
                        "g:\n"
                        ".L2:\n"
                        "\tja\t.L9\n"
                        "\tsubl\t$1, %ebx\n"
                        "\tjne\t.L2\n"
                        "\tret\n"
                        ".L9:\n"
                        "\tcall\tsqrt@PLT\n"
                        "\tjmp\t.L2\n"
                        "\t.size\tg, .-g\n";
  A = scanAssembly(G);
  ASSERT_EQ(A.size(), 1u);
  ASSERT_EQ(A[0].Loops.size(), 1u);
  EXPECT_EQ(A[0].Loops[0].Label, ".L2");
  EXPECT_EQ(A[0].Loops[0].Instructions, 6u); // to the last jump back, the cold block's

  // A jump table's targets are reached through the indirect jump: a case that jumps back to
  // the switch's head makes it a loop head, and so does a case's own loop.
  const std::string H = "\t.type\th, @function\n"
                        "h:\n"
                        ".L3:\n"
                        "\tnotrack jmp\t*%rax\n"
                        "\t.section\t.rodata\n"
                        ".L5:\n"
                        "\t.long\t.L6-.L5\n"
                        "\t.long\t.L7-.L5\n"
                        "\t.text\n"
                        ".L6:\n"
                        "\taddl\t$1, %eax\n"
                        "\tjmp\t.L3\n"
                        ".L7:\n"
                        "\tsubl\t$1, %eax\n"
                        "\tjne\t.L7\n"
                        "\tret\n"
                        "\t.size\th, .-h\n";
  A = scanAssembly(H);
  ASSERT_EQ(A.size(), 1u);
  ASSERT_EQ(A[0].Loops.size(), 2u);
  EXPECT_EQ(A[0].Loops[0].Label, ".L3");
  EXPECT_EQ(A[0].Loops[1].Label, ".L7");
}

TEST(LoopLayoutTest, PlacesEachLoopAtItsTwinsOffset) {
  // The program: helper at 0x1240 (.text at 0x1230), main at 0x1005 (.text.startup there).
  const std::vector<ElfSymbol> Orig = originalSymbols();
  std::vector<ElfSymbol> Program = {{"helper", ".text", 0x1240, true, false},
                                    {"main", ".text", 0x1005, true, false}};
  // The probe: extra code before the inner loop, another register inside it.
  const std::string Timing = listing("\tmovabsq\t$42, %rdi\n\tleaq\t8(%rsp), %rsi\n", "%r15");
  LayoutResult R = placeLoops(listing(""), Orig, Program, Timing);
  EXPECT_EQ(R.Loops, 3u);
  ASSERT_EQ(R.Placements.size(), 3u) << (R.Unmatched.empty() ? "" : R.Unmatched[0]);
  // helper's .L2: 0x1230 + 0x30 = 0x1260 -> 32; main's .L3: 0x1006 -> 6; .L4: 0x1015 -> 21.
  EXPECT_EQ(R.Placements[0].Offset, 32u);
  EXPECT_EQ(R.Placements[1].Offset, 6u);
  EXPECT_EQ(R.Placements[2].Offset, 21u);
  const std::string Out = applyPlacements(Timing, R.Placements);
  // GCC's own alignment of the placed labels is replaced, nothing else is.
  EXPECT_EQ(Out.find("\t.p2align 4,,10\n"), std::string::npos);
  // Code that runs on into a placed loop jumps over its padding.
  EXPECT_NE(Out.find("\tjmp\t.L4\n\t.p2align 6\n\t.nops 21\n.L4:\n"), std::string::npos);
  EXPECT_NE(Out.find("\tjmp\t.L2\n\t.p2align 6\n\t.nops 32\n.L2:\n"), std::string::npos);
  EXPECT_NE(Out.find("\t.p2align 4\n\t.globl\tmain\n"), std::string::npos);
  EXPECT_NE(Out.find("\tmovabsq\t$42, %rdi\n"), std::string::npos);
}

TEST(LoopLayoutTest, LeavesWhatItCannotPlace) {
  const std::vector<ElfSymbol> Orig = originalSymbols();
  // helper twice in the program (another unit's static helper): .text has no known address.
  std::vector<ElfSymbol> Program = {{"helper", ".text", 0x1240, true, true},
                                    {"helper", ".text", 0x2240, true, true},
                                    {"main", ".text", 0x1005, true, false}};
  LayoutResult R = placeLoops(listing(""), Orig, Program, listing(""));
  EXPECT_EQ(R.Placements.size(), 2u); // main's loops only
  ASSERT_EQ(R.Unmatched.size(), 1u);
  EXPECT_NE(R.Unmatched[0].find("helper"), std::string::npos);
  // A loop whose code differs (another inner loop body) keeps the in-order twins it has.
  const std::string Other =
      listing("") +
      "\t.text\n\t.type\tg, @function\ng:\n.L7:\n\tnop\n\tjmp\t.L7\n\t.size\tg, .-g\n";
  R = placeLoops(listing(""), Orig, {{"main", ".text", 0x1005, true, false}}, Other);
  EXPECT_EQ(R.Placements.size(), 2u);
  EXPECT_EQ(R.Loops, 4u);
}

TEST(LoopLayoutTest, ReadsNoSymbolsFromWhatIsNotElf) {
  std::string Error;
  EXPECT_FALSE(readElfSymbols("/nonexistent/file.o", Error));
  EXPECT_FALSE(Error.empty());
}

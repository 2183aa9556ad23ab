// Loop placement for the timing probe: its hot loops at the program's own offsets within their
// 64-byte lines (docs/probes.md, "Loop alignment").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mpiete::tools::layout {

/// A loop head of an assembly listing: a local label that a later jump of the same function
/// goes back to.
struct AsmLoop {
  std::string Label;
  size_t Line = 0;         ///< 0-based line of the label
  size_t Instructions = 0; ///< instructions from the label to the last jump back to it
  uint64_t Shape = 0;      ///< a hash of those instructions' mnemonics (not their operands)
};

/// A function of an assembly listing (GCC's `.type NAME, @function` ... `.size NAME`), with its
/// section and its loop heads in the order of the text.
struct AsmFunction {
  std::string Name;
  std::string Section;
  std::vector<AsmLoop> Loops;
};

/// The functions of GCC's (GNU as syntax) assembly output for x86-64.
std::vector<AsmFunction> scanAssembly(std::string_view Text);

/// A symbol of an ELF file's .symtab: in a relocatable object Value is the offset in Section,
/// in a linked program its address.
struct ElfSymbol {
  std::string Name;
  std::string Section;
  uint64_t Value = 0;
  bool Function = false;
  bool Local = false;
};

/// The defined symbols of Path's symbol table; nullopt with Error when the file is not a
/// 64-bit little-endian ELF file or has no symbol table (a stripped program).
std::optional<std::vector<ElfSymbol>> readElfSymbols(const std::string &Path, std::string &Error);

/// Where one of the timing listing's loop heads goes: Offset within a 64-byte line.
struct Placement {
  size_t Line = 0; ///< the label's line in the timing listing
  unsigned Offset = 0;
};

/// What placing one unit's loops found.
struct LayoutResult {
  std::vector<Placement> Placements;
  size_t Loops = 0;                   ///< loop heads of the timing listing
  std::vector<std::string> Unmatched; ///< functions (or sections) left as compiled, with why
};

/// Matches the loops of the timing listing to the original's, function by function (same name;
/// in order, all of them where both have as many loops of about as many instructions each, else
/// the longest in-order sequence of loops with the same mnemonics), and places each where the
/// program has its twin: the original object's label offset (Orig, assembled with --keep-locals)
/// plus its section's address in the program (from a function whose name is unique there).
LayoutResult placeLoops(std::string_view OrigAsm, const std::vector<ElfSymbol> &Orig,
                        const std::vector<ElfSymbol> &Program, std::string_view TimingAsm);

/// TimingAsm with each placed loop head's alignment directives replaced by `.p2align 6` and
/// `.nops Offset`: the label then lies Offset bytes into a 64-byte line wherever the linker puts
/// its section (the directive makes the section 64-byte aligned). Where the code before the
/// label runs on into it, a `jmp` to the label goes before the padding, so the padding never
/// runs.
std::string applyPlacements(std::string_view TimingAsm, const std::vector<Placement> &P);

} // namespace mpiete::tools::layout

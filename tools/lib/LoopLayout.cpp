// Loop placement for the timing probe (docs/probes.md, "Loop alignment").
//
// The ELF symbol table is read by hand (<elf.h>'s structures, some fifty lines): the wrapper
// needs names, sections and values only, and linking LLVM's object library would multiply the
// size of mpiete-cc and mpiete-fc, which link no LLVM today.
#include "mpiete/tools/LoopLayout.h"

#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

namespace mpiete::tools::layout {
namespace {

std::string_view trim(std::string_view S) {
  while (!S.empty() && (S.front() == ' ' || S.front() == '\t'))
    S.remove_prefix(1);
  while (!S.empty() && (S.back() == ' ' || S.back() == '\t' || S.back() == '\r'))
    S.remove_suffix(1);
  return S;
}

std::vector<std::string_view> splitLines(std::string_view Text) {
  std::vector<std::string_view> Lines;
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t End = Text.find('\n', Pos);
    if (End == std::string_view::npos)
      End = Text.size();
    Lines.push_back(Text.substr(Pos, End - Pos));
    Pos = End + 1;
  }
  return Lines;
}

/// The first operand word of a directive line (`.section .text.startup,"ax"` -> .text.startup).
std::string_view firstOperand(std::string_view Rest) {
  Rest = trim(Rest);
  size_t End = Rest.find_first_of(", \t");
  return Rest.substr(0, End);
}

/// A label definition at the start of Line (`name:`), or empty.
std::string_view labelOf(std::string_view Line) {
  if (Line.empty() || Line[0] == '\t' || Line[0] == ' ' || Line[0] == '#')
    return {};
  size_t Colon = Line.find(':');
  if (Colon == std::string_view::npos || Colon == 0)
    return {};
  std::string_view Name = Line.substr(0, Colon);
  if (Name.find_first_of(" \t\"") != std::string_view::npos)
    return {};
  return Name;
}

/// Each name of Symbols, with its symbol where it occurs once, nullptr where more often.
std::map<std::string, const ElfSymbol *, std::less<>>
uniqueNames(const std::vector<ElfSymbol> &Symbols) {
  std::map<std::string, const ElfSymbol *, std::less<>> Out;
  for (const ElfSymbol &S : Symbols)
    if (auto [It, New] = Out.try_emplace(S.Name, &S); !New)
      It->second = nullptr;
  return Out;
}

/// Whether directive line T (trimmed) switches sections, as scanAssembly follows them.
bool isSectionSwitch(std::string_view T) {
  for (std::string_view D : {".text", ".data", ".bss"})
    if (T.starts_with(D) && (T.size() == D.size() || T[D.size()] == ' ' || T[D.size()] == '\t'))
      return true;
  return T.starts_with(".section") || T.starts_with(".pushsection") ||
         T.starts_with(".popsection") || T.starts_with(".previous");
}

bool isAlignDirective(std::string_view T) {
  return T.starts_with(".p2align") || T.starts_with(".balign") || T.starts_with(".align");
}

/// How an instruction passes control on: to the next one, to a label (and the next one), to a
/// label only, to a jump table's labels, or nowhere.
enum class Flow : uint8_t { Next, Branch, Jump, Table, Stop };

/// An instruction of a function's listing, for its control flow.
struct FlowInsn {
  Flow F = Flow::Next;
  size_t Target = SIZE_MAX; ///< Branch, Jump: the instruction at the label (SIZE_MAX: none)
};

/// How the instruction line T (trimmed) passes control on; Target, when given, gets the local
/// label a Branch or Jump goes to (empty otherwise). A prefix (`notrack jmp *%rax`, `bnd jmp`,
/// `rep ret`) is skipped.
Flow flowOf(std::string_view T, std::string_view *Target = nullptr) {
  const size_t End = T.find_first_of(" \t");
  std::string_view Op = T.substr(0, End), Operand = End == std::string_view::npos
                                                        ? std::string_view{}
                                                        : trim(T.substr(End));
  if ((Op == "notrack" || Op == "bnd" || Op == "rep" || Op == "repz") && !Operand.empty()) {
    const size_t E2 = Operand.find_first_of(" \t");
    Op = Operand.substr(0, E2);
    Operand = E2 == std::string_view::npos ? std::string_view{} : trim(Operand.substr(E2));
  }
  const bool LocalTarget =
      Operand.starts_with(".L") && Operand.find_first_of(" ,(*") == std::string_view::npos;
  Flow F = Flow::Next;
  if (Op.starts_with("ret") || Op == "ud2" || Op == "hlt")
    F = Flow::Stop;
  else if (Op == "jmp" || Op == "jmpq")
    F = Operand.starts_with("*") ? Flow::Table : LocalTarget ? Flow::Jump : Flow::Stop;
  else if ((Op[0] == 'j' || Op.starts_with("loop")) && LocalTarget)
    F = Flow::Branch;
  if (Target != nullptr)
    *Target = F == Flow::Jump || F == Flow::Branch ? Operand : std::string_view{};
  return F;
}

/// Whether instruction Jump is reached from instruction Head by a path that stays between the
/// two in the text (Head <= every instruction on it <= Jump): the loop's code lies between its
/// head and the jump back, as the placement assumes. A rotated loop (entered by a jump into its
/// middle) qualifies, since its body runs from the head to the jump back; a cold block placed
/// after the function's return that jumps back to where the hot path joins does not: it is
/// entered only from before the join.
bool loopsBack(const std::vector<FlowInsn> &Code, const std::vector<size_t> &TableTargets,
               size_t Head, size_t Jump) {
  if (Head > Jump || Jump >= Code.size())
    return false;
  std::vector<bool> Seen(Jump - Head + 1, false);
  std::vector<size_t> Work{Head};
  Seen[0] = true;
  auto push = [&](size_t K) {
    if (K >= Head && K <= Jump && !Seen[K - Head]) {
      Seen[K - Head] = true;
      Work.push_back(K);
    }
  };
  while (!Work.empty()) {
    const size_t K = Work.back();
    Work.pop_back();
    if (K == Jump)
      return true;
    const FlowInsn &I = Code[K];
    if (I.F == Flow::Next || I.F == Flow::Branch)
      push(K + 1);
    if (I.F == Flow::Branch || I.F == Flow::Jump)
      push(I.Target);
    if (I.F == Flow::Table)
      for (size_t T : TableTargets)
        push(T);
  }
  return false;
}

} // namespace

std::vector<AsmFunction> scanAssembly(std::string_view Text) {
  std::vector<std::string_view> Lines = splitLines(Text);
  std::set<std::string, std::less<>> Functions;
  for (std::string_view L : Lines) {
    std::string_view T = trim(L);
    if (T.starts_with(".type")) {
      std::string_view Rest = T.substr(5);
      size_t Comma = Rest.find(',');
      if (Comma != std::string_view::npos && trim(Rest.substr(Comma + 1)).starts_with("@function"))
        Functions.emplace(trim(Rest.substr(0, Comma)));
    }
  }
  std::vector<AsmFunction> Out;
  std::string Section = ".text", Previous = ".text";
  std::vector<std::string> Stack;
  AsmFunction *Cur = nullptr;
  // Per function until its .size: local labels (line), and per instruction its line, its
  // mnemonic's hash, how it passes control on and the local label it jumps to (empty: none).
  std::map<std::string, size_t, std::less<>> Labels;
  std::vector<size_t> InstructionLines;
  std::vector<uint64_t> Mnemonics;
  std::vector<Flow> Flows;
  std::vector<std::string_view> Targets; // views into Text
  std::vector<std::string> TableLabels;  // labels a jump table of the function names
  auto finish = [&] {
    if (Cur == nullptr)
      return;
    // The function's flow graph, instruction by instruction: a label leads to the first
    // instruction after it.
    auto at = [&](std::string_view Label) -> size_t {
      auto It = Labels.find(Label);
      if (It == Labels.end())
        return SIZE_MAX;
      return size_t(std::lower_bound(InstructionLines.begin(), InstructionLines.end(), It->second) -
                    InstructionLines.begin());
    };
    std::vector<FlowInsn> Code(Flows.size());
    for (size_t K = 0; K < Flows.size(); ++K) {
      Code[K].F = Flows[K];
      if (!Targets[K].empty())
        Code[K].Target = at(Targets[K]);
    }
    std::vector<size_t> TableTargets;
    for (const std::string &L : TableLabels)
      if (size_t K = at(L); K != SIZE_MAX)
        TableTargets.push_back(K);
    // A loop head is a label a later jump goes back to from within the loop: the jump is
    // reached from the label without leaving the text between them (loopsBack). A later jump
    // that does not qualify is a cold block placed after the function's body, jumping back to
    // where the hot path joins (ep's sqrt of a negative number): padding there would run
    // inside the loop around it. Per head, the line of its last jump back.
    // A jump goes back where its label's first instruction is at or before it.
    std::map<std::string_view, size_t, std::less<>> LastJump;
    for (size_t K = 0; K < Code.size(); ++K) {
      const size_t Head = Code[K].Target;
      if (Head > K || !loopsBack(Code, TableTargets, Head, K))
        continue;
      size_t &Last = LastJump[Targets[K]];
      Last = std::max(Last, InstructionLines[K]);
    }
    for (const auto &[Label, Line] : Labels) {
      auto J = LastJump.find(Label);
      if (J == LastJump.end())
        continue;
      AsmLoop Loop{Label, Line, 0};
      const size_t First = at(Label);
      const size_t Last =
          size_t(std::upper_bound(InstructionLines.begin(), InstructionLines.end(), J->second) -
                 InstructionLines.begin());
      Loop.Instructions = Last - First;
      uint64_t H = 1469598103934665603ull;
      for (size_t K = First; K < Last; ++K)
        H = (H ^ Mnemonics[K]) * 1099511628211ull;
      Loop.Shape = H;
      Cur->Loops.push_back(std::move(Loop));
    }
    std::sort(Cur->Loops.begin(), Cur->Loops.end(),
              [](const AsmLoop &A, const AsmLoop &B) { return A.Line < B.Line; });
    Cur = nullptr;
    Labels.clear();
    InstructionLines.clear();
    Mnemonics.clear();
    Flows.clear();
    Targets.clear();
    TableLabels.clear();
  };
  for (size_t I = 0; I < Lines.size(); ++I) {
    std::string_view L = Lines[I];
    if (std::string_view Label = labelOf(L); !Label.empty()) {
      if (Functions.count(Label)) {
        finish();
        Out.push_back({std::string(Label), Section, {}});
        Cur = &Out.back();
      } else if (Cur != nullptr && Label.starts_with(".L")) {
        Labels.emplace(std::string(Label), I);
      }
      continue;
    }
    std::string_view T = trim(L);
    if (T.empty() || T[0] == '#')
      continue;
    if (T[0] == '.') {
      // A jump table's entry (`.long .L7-.L4`, `.quad .L7`): its first label is a target of the
      // function's indirect jumps.
      if (Cur != nullptr && (T.starts_with(".long") || T.starts_with(".quad"))) {
        std::string_view Rest = trim(T.substr(5));
        if (Rest.starts_with(".L"))
          TableLabels.emplace_back(Rest.substr(0, Rest.find_first_of("-+, \t")));
      }
      auto setSection = [&](std::string S) {
        Previous = Section;
        Section = std::move(S);
      };
      if (T == ".text" || T.starts_with(".text ") || T.starts_with(".text\t"))
        setSection(".text");
      else if (T == ".data" || T == ".bss" || T.starts_with(".data ") || T.starts_with(".bss "))
        setSection(std::string(T.substr(0, T.find_first_of(" \t"))));
      else if (T.starts_with(".section"))
        setSection(std::string(firstOperand(T.substr(8))));
      else if (T.starts_with(".pushsection")) {
        Stack.push_back(Section);
        setSection(std::string(firstOperand(T.substr(12))));
      } else if (T.starts_with(".popsection") && !Stack.empty()) {
        setSection(Stack.back());
        Stack.pop_back();
      } else if (T.starts_with(".previous"))
        std::swap(Section, Previous);
      else if (T.starts_with(".size") && Cur != nullptr) {
        std::string_view Rest = T.substr(5);
        if (trim(Rest.substr(0, Rest.find(','))) == Cur->Name)
          finish();
      }
      continue;
    }
    if (Cur == nullptr)
      continue;
    InstructionLines.push_back(I);
    std::string_view Mnemonic = T.substr(0, T.find_first_of(" \t"));
    uint64_t H = 1469598103934665603ull;
    for (char C : Mnemonic)
      H = (H ^ uint8_t(C)) * 1099511628211ull;
    Mnemonics.push_back(H);
    // A jump to a local label (`jne .L23`, `jmp .L5`, `loop .L7`) is a candidate loop edge.
    std::string_view Target;
    Flows.push_back(flowOf(T, &Target));
    Targets.emplace_back(Target);
  }
  finish();
  return Out;
}

std::optional<std::vector<ElfSymbol>> readElfSymbols(const std::string &Path, std::string &Error) {
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    Error = "cannot open";
    return std::nullopt;
  }
  std::string Data{std::istreambuf_iterator<char>(In), std::istreambuf_iterator<char>()};
  auto fits = [&](uint64_t Off, uint64_t Len) {
    return Off <= Data.size() && Len <= Data.size() - Off;
  };
  if (!fits(0, sizeof(Elf64_Ehdr)) || std::memcmp(Data.data(), ELFMAG, SELFMAG) != 0 ||
      Data[EI_CLASS] != ELFCLASS64 || Data[EI_DATA] != ELFDATA2LSB) {
    Error = "not a 64-bit little-endian ELF file";
    return std::nullopt;
  }
  Elf64_Ehdr H;
  std::memcpy(&H, Data.data(), sizeof H);
  if (H.e_shentsize != sizeof(Elf64_Shdr) ||
      !fits(H.e_shoff, uint64_t(H.e_shnum) * sizeof(Elf64_Shdr)) || H.e_shstrndx >= H.e_shnum) {
    Error = "bad section header table";
    return std::nullopt;
  }
  std::vector<Elf64_Shdr> Sec(H.e_shnum);
  std::memcpy(Sec.data(), Data.data() + H.e_shoff, Sec.size() * sizeof(Elf64_Shdr));
  auto stringAt = [&](const Elf64_Shdr &Table, uint64_t Off) -> std::string {
    if (Off >= Table.sh_size || !fits(Table.sh_offset, Table.sh_size))
      return {};
    const char *P = Data.data() + Table.sh_offset + Off;
    return std::string(P, strnlen(P, Table.sh_size - Off));
  };
  const Elf64_Shdr &Names = Sec[H.e_shstrndx];
  for (const Elf64_Shdr &S : Sec) {
    if (S.sh_type != SHT_SYMTAB)
      continue;
    if (S.sh_entsize != sizeof(Elf64_Sym) || S.sh_link >= Sec.size() ||
        !fits(S.sh_offset, S.sh_size)) {
      Error = "bad symbol table";
      return std::nullopt;
    }
    const Elf64_Shdr &Strings = Sec[S.sh_link];
    std::vector<ElfSymbol> Out;
    for (uint64_t Off = 0; Off + sizeof(Elf64_Sym) <= S.sh_size; Off += sizeof(Elf64_Sym)) {
      Elf64_Sym Sym;
      std::memcpy(&Sym, Data.data() + S.sh_offset + Off, sizeof Sym);
      if (Sym.st_shndx == SHN_UNDEF || Sym.st_shndx >= Sec.size())
        continue;
      const unsigned Type = ELF64_ST_TYPE(Sym.st_info);
      if (Type == STT_SECTION || Type == STT_FILE)
        continue;
      ElfSymbol E;
      E.Name = stringAt(Strings, Sym.st_name);
      if (E.Name.empty())
        continue;
      E.Section = stringAt(Names, Sec[Sym.st_shndx].sh_name);
      E.Value = Sym.st_value;
      E.Function = Type == STT_FUNC;
      E.Local = ELF64_ST_BIND(Sym.st_info) == STB_LOCAL;
      Out.push_back(std::move(E));
    }
    return Out;
  }
  Error = "no symbol table (stripped?)";
  return std::nullopt;
}

LayoutResult placeLoops(std::string_view OrigAsm, const std::vector<ElfSymbol> &Orig,
                        const std::vector<ElfSymbol> &Program, std::string_view TimingAsm) {
  LayoutResult R;
  std::vector<AsmFunction> O = scanAssembly(OrigAsm), T = scanAssembly(TimingAsm);
  for (const AsmFunction &F : T)
    R.Loops += F.Loops.size();
  const std::map<std::string, const ElfSymbol *, std::less<>> InProgram = uniqueNames(Program),
                                                              InObject = uniqueNames(Orig);
  // Each section's address in the program, from every function of it named once in both; a
  // section whose functions disagree (the name is another unit's) is left alone.
  std::map<std::string, std::optional<uint64_t>, std::less<>> Base;
  for (const ElfSymbol &S : Orig) {
    auto P = InProgram.find(S.Name);
    if (!S.Function || P == InProgram.end() || !P->second || !InObject.at(S.Name))
      continue;
    const uint64_t B = P->second->Value - S.Value;
    auto [It, New] = Base.try_emplace(S.Section, B);
    if (!New && It->second && *It->second != B)
      It->second = std::nullopt;
  }
  std::map<std::string, const AsmFunction *, std::less<>> ByName;
  for (const AsmFunction &F : O)
    ByName[F.Name] = &F;
  for (const AsmFunction &F : T) {
    if (F.Loops.empty())
      continue;
    auto It = ByName.find(F.Name);
    if (It == ByName.end()) {
      R.Unmatched.push_back(F.Name + ": not in the original");
      continue;
    }
    const AsmFunction &G = *It->second;
    auto B = Base.find(G.Section);
    if (B == Base.end() || !B->second) {
      R.Unmatched.push_back(F.Name + ": section " + G.Section + " not found in the program");
      continue;
    }
    // Pairs (timing loop, original loop). As many loops of about as many instructions each
    // (an MPI call's arguments differ, a loop's code hardly): all, in order. Otherwise (the
    // hooks of a loop that calls MPI changed the compiler's loop transformations) the longest
    // in-order sequence of loops with the same mnemonics.
    std::vector<std::pair<size_t, size_t>> Pairs;
    const size_t NT = F.Loops.size(), NO = G.Loops.size();
    bool Similar = NT == NO;
    for (size_t K = 0; K < NT && Similar; ++K) {
      const size_t A = F.Loops[K].Instructions, C = G.Loops[K].Instructions;
      Similar = 4 * std::max(A, C) <= 5 * std::min(A, C) + 8;
    }
    if (Similar) {
      for (size_t K = 0; K < NT; ++K)
        Pairs.emplace_back(K, K);
    } else {
      std::vector<std::vector<uint32_t>> L(NT + 1, std::vector<uint32_t>(NO + 1, 0));
      for (size_t A = NT; A-- > 0;)
        for (size_t C = NO; C-- > 0;)
          L[A][C] = F.Loops[A].Shape == G.Loops[C].Shape ? L[A + 1][C + 1] + 1
                                                         : std::max(L[A + 1][C], L[A][C + 1]);
      for (size_t A = 0, C = 0; A < NT && C < NO;) {
        if (F.Loops[A].Shape == G.Loops[C].Shape && L[A][C] == L[A + 1][C + 1] + 1)
          Pairs.emplace_back(A++, C++);
        else if (L[A + 1][C] >= L[A][C + 1])
          ++A;
        else
          ++C;
      }
      if (Pairs.size() < NT)
        R.Unmatched.push_back(F.Name + ": " + std::to_string(NT - Pairs.size()) + " of " +
                              std::to_string(NT) + " loops without a twin of the same code");
    }
    std::vector<Placement> Mine;
    bool Kept = true;
    for (const auto &[A, C] : Pairs) {
      auto S = InObject.find(G.Loops[C].Label);
      if (S == InObject.end() || !S->second || S->second->Section != G.Section) {
        Kept = false;
        break;
      }
      Mine.push_back({F.Loops[A].Line, unsigned((*B->second + S->second->Value) & 63)});
    }
    if (!Kept) {
      R.Unmatched.push_back(F.Name + ": the original object has not kept its labels");
      continue;
    }
    R.Placements.insert(R.Placements.end(), Mine.begin(), Mine.end());
  }
  return R;
}

namespace {

/// Whether the code before Line (a label) runs on into it: the last instruction before it, past
/// directives and other local labels, neither jumps away unconditionally nor returns. The start
/// of a function or a section has nothing before it.
bool fallsInto(const std::vector<std::string_view> &Lines, size_t Line) {
  for (size_t K = Line; K-- > 0;) {
    std::string_view L = Lines[K];
    if (std::string_view Label = labelOf(L); !Label.empty()) {
      if (!Label.starts_with(".L"))
        return false;
      continue;
    }
    std::string_view T = trim(L);
    if (T.empty() || T[0] == '#')
      continue;
    if (T[0] == '.') {
      if (isSectionSwitch(T))
        return false;
      continue;
    }
    const Flow F = flowOf(T);
    return F == Flow::Next || F == Flow::Branch;
  }
  return false;
}

} // namespace

std::string applyPlacements(std::string_view TimingAsm, const std::vector<Placement> &P) {
  std::vector<std::string_view> Lines = splitLines(TimingAsm);
  std::map<size_t, unsigned> At;
  for (const Placement &X : P)
    At[X.Line] = X.Offset;
  std::vector<bool> Drop(Lines.size(), false);
  for (const auto &[Line, Offset] : At)
    for (size_t K = Line; K-- > 0 && isAlignDirective(trim(Lines[K]));)
      Drop[K] = true;
  std::string Out;
  Out.reserve(TimingAsm.size() + P.size() * 48);
  for (size_t I = 0; I < Lines.size(); ++I) {
    if (Drop[I])
      continue;
    if (auto It = At.find(I); It != At.end()) {
      // Code that runs on into the loop jumps over the padding: up to 126 bytes of NOPs would
      // otherwise run at every entry, and a loop entered so from an enclosing hot loop (ep's
      // rejection loop, after each accepted pair's tally) pays them on every outer iteration.
      if (fallsInto(Lines, I))
        Out += "\tjmp\t" + std::string(labelOf(Lines[I])) + "\n";
      Out += "\t.p2align 6\n";
      if (It->second != 0)
        Out += "\t.nops " + std::to_string(It->second) + "\n";
    }
    Out += Lines[I];
    Out += '\n';
  }
  return Out;
}

} // namespace mpiete::tools::layout

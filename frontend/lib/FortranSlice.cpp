// The skeleton slice of a Fortran unit (docs/skeleton.md): a dependence graph over the statements
// of its procedures that may communicate, through Flang's semantic symbols, searched backwards
// from the MPI calls (SliceGraph.h); the removals are whole lines of the user's text.
#include "FortranSlice.h"
#include "SliceGraph.h"

#include "mpiete/basedata/LinkSummary.h"

#include "flang/Semantics/tools.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace mpiete {
using namespace fortran;

namespace {

namespace sem = Fortran::semantics;
using Fortran::common::Indirection;

/// Something the slice does not model: the unit keeps its full trace variant.
struct Unsupported {
  p::CharBlock Where;
  std::string What;
};

/// What a statement (or a procedure's whole body) defines and uses, as memory classes.
struct Fx {
  std::set<unsigned> Defs, Uses;
  std::vector<slice::GraphCall> Calls;
  bool Criterion = false;
  bool Communicates = false; ///< a rewritten MPI routine, or a call the unit cannot see
  /// Communicates by itself: a rewritten MPI routine or a call through a procedure pointer
  /// (not a call of another unit's procedure, which the link step's solve decides).
  bool OwnComm = false;
  /// Ends the program or touches what other calls see (STOP, input and file statements): a
  /// call of a procedure that does is kept. (A jump inside a procedure is not: a removed call
  /// takes its jumps with it.)
  bool Ends = false;
  std::set<size_t> Callees; ///< procedures of the unit it calls (indices into the procedures)
  /// Procedures of other units it calls, by their linker names (LinkSummary.h).
  std::set<std::string> ExternalCalls;
  /// Each such call: the callee and, per argument, the class of the variable passed (-1 for
  /// an expression; -2 for a keyword argument, whose place this unit may not know).
  std::vector<std::pair<std::string, std::vector<int>>> ExternalArgs;
  void add(const Fx &O) {
    Defs.insert(O.Defs.begin(), O.Defs.end());
    Uses.insert(O.Uses.begin(), O.Uses.end());
    Calls.insert(Calls.end(), O.Calls.begin(), O.Calls.end());
    Criterion |= O.Criterion;
    Communicates |= O.Communicates;
    OwnComm |= O.OwnComm;
    Ends |= O.Ends;
    Callees.insert(O.Callees.begin(), O.Callees.end());
    ExternalCalls.insert(O.ExternalCalls.begin(), O.ExternalCalls.end());
    ExternalArgs.insert(ExternalArgs.end(), O.ExternalArgs.begin(), O.ExternalArgs.end());
  }
};

/// Message buffer arguments of an MPI routine (0-based): S sent, R received, B both.
struct BufferArg {
  unsigned Index;
  char Kind;
};

std::vector<BufferArg> bufferArgs(const std::string &Routine) {
  std::string R = lower(Routine);
  R = R.substr(R.find('_') + 1); // without mpi_ / pmpi_
  if (R.size() > 1 && R[0] == 'i' && R != "irecv" && R != "isend" && R != "issend" &&
      R != "irsend" && R != "ibsend")
    R = R.substr(1); // nonblocking collectives have their blocking twin's buffers
  static const std::map<std::string, std::vector<BufferArg>> Table = {
      {"send", {{0, 'S'}}},
      {"isend", {{0, 'S'}}},
      {"ssend", {{0, 'S'}}},
      {"issend", {{0, 'S'}}},
      {"rsend", {{0, 'S'}}},
      {"irsend", {{0, 'S'}}},
      {"bsend", {{0, 'S'}}},
      {"ibsend", {{0, 'S'}}},
      {"send_init", {{0, 'S'}}},
      {"ssend_init", {{0, 'S'}}},
      {"rsend_init", {{0, 'S'}}},
      {"bsend_init", {{0, 'S'}}},
      {"recv", {{0, 'R'}}},
      {"irecv", {{0, 'R'}}},
      {"recv_init", {{0, 'R'}}},
      {"sendrecv", {{0, 'S'}, {5, 'R'}}},
      {"sendrecv_replace", {{0, 'B'}}},
      {"bcast", {{0, 'B'}}},
      {"reduce", {{0, 'S'}, {1, 'R'}}},
      {"allreduce", {{0, 'S'}, {1, 'R'}}},
      {"scan", {{0, 'S'}, {1, 'R'}}},
      {"exscan", {{0, 'S'}, {1, 'R'}}},
      {"reduce_scatter", {{0, 'S'}, {1, 'R'}}},
      {"reduce_scatter_block", {{0, 'S'}, {1, 'R'}}},
      {"gather", {{0, 'S'}, {3, 'R'}}},
      {"allgather", {{0, 'S'}, {3, 'R'}}},
      {"gatherv", {{0, 'S'}, {3, 'R'}}},
      {"allgatherv", {{0, 'S'}, {3, 'R'}}},
      {"scatter", {{0, 'S'}, {3, 'R'}}},
      {"alltoall", {{0, 'S'}, {3, 'R'}}},
      {"scatterv", {{0, 'S'}, {4, 'R'}}},
      {"alltoallv", {{0, 'S'}, {4, 'R'}}},
      {"alltoallw", {{0, 'S'}, {4, 'R'}}},
      {"neighbor_allgather", {{0, 'S'}, {3, 'R'}}},
      {"neighbor_allgatherv", {{0, 'S'}, {3, 'R'}}},
      {"neighbor_alltoall", {{0, 'S'}, {3, 'R'}}},
      {"neighbor_alltoallv", {{0, 'S'}, {4, 'R'}}},
      {"neighbor_alltoallw", {{0, 'S'}, {4, 'R'}}},
  };
  auto It = Table.find(R);
  return It == Table.end() ? std::vector<BufferArg>{} : It->second;
}

/// One statement the slice judges: an action statement, the head of a DO, IF or SELECT CASE
/// construct (standing for the whole construct when removed), or a construct it keeps whole.
struct Node {
  slice::GraphNode G;
  p::CharBlock Span; ///< the statement, or the whole construct
  std::string Procedure;
  bool Judged = true; ///< counted in the header (not the synthetic exported-procedure node)
  bool Exit = false;  ///< the exported procedure's synthetic node: its callers' reads
  std::set<unsigned> ExitDummies, ExitGlobals; ///< of those, the dummies' and globals' contents
  std::set<size_t> Callees;                    ///< the unit's procedures it calls
  std::vector<std::pair<std::string, std::vector<int>>> ExternalArgs; ///< as in Fx
  bool Removable = false;      ///< its text is whole lines the edit may blank
  unsigned Begin = 0, End = 0; ///< those lines: [start of the first, end of the last)
};

/// The first name under a node (a designator's base).
struct FirstName {
  const p::Name *N = nullptr;
  template <typename T> bool Pre(const T &) { return !N; }
  template <typename T> void Post(const T &) {}
  bool Pre(const p::Name &Nm) {
    if (!N)
      N = &Nm;
    return false;
  }
};

/// The names and symbols of the unit's subprograms.
struct ProcedureFinder {
  std::vector<std::pair<std::string, const Fortran::semantics::Symbol *>> Found;
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  void add(const p::Name &N) {
    if (N.symbol)
      Found.emplace_back(lower(N.ToString()), N.symbol);
  }
  bool Pre(const p::SubroutineStmt &S) {
    add(std::get<p::Name>(S.t));
    return false;
  }
  bool Pre(const p::FunctionStmt &S) {
    add(std::get<p::Name>(S.t));
    return false;
  }
  bool Pre(const p::MpSubprogramStmt &S) {
    add(S.v);
    return false;
  }
  bool Pre(const p::ExecutionPart &) { return false; }
};

/// The labelled statements under a node (offset of the statement, label), and whether it
/// holds a FORMAT, DATA, NAMELIST or ENTRY statement, which a removal may not blank.
struct LabelsWalker {
  const SourceMap &SM;
  std::vector<std::pair<unsigned, uint64_t>> Found;
  bool Bad = false;
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  template <typename T> bool Pre(const p::Statement<T> &St) {
    if (St.label) {
      auto O = SM.beginOf(St.source);
      if (!O)
        Bad = true;
      else
        Found.emplace_back(*O, *St.label);
    }
    return true;
  }
  bool Pre(const p::ExecutionPartConstruct &EPC) {
    Bad |= !std::holds_alternative<p::ExecutableConstruct>(EPC.u);
    return true;
  }
};

/// Calls Fn on every name under a node.
template <typename F> struct EveryName {
  F Fn;
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  bool Pre(const p::Name &N) {
    Fn(N);
    return false;
  }
};
template <typename F> EveryName(F) -> EveryName<F>;

/// The variables ALLOCATE statements allocate.
struct AllocatedFinder {
  std::set<const Fortran::semantics::Symbol *> Found;
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  bool Pre(const p::AllocateStmt &A) {
    for (const p::Allocation &X : std::get<std::list<p::Allocation>>(A.t)) {
      FirstName F;
      p::Walk(std::get<p::AllocateObject>(X.t), F);
      if (F.N && F.N->symbol)
        Found.insert(&F.N->symbol->GetUltimate());
    }
    return false;
  }
};

struct ProcSym {
  const sem::Symbol *Sym = nullptr;
  size_t Index = 0; ///< into the procedures
};

class FortranSlicer;

/// Effects of a parse-tree node: defined variables (assignment targets, DO variables, input
/// items, actual arguments, STAT= ...), used variables, calls and what makes it a criterion.
struct EffectsWalker {
  FortranSlicer &S;
  Fx &E;
  bool DefineNext = false;
  bool SkipNext = false; ///< the next name is an argument bound by reference: not read here
  template <typename T> bool Pre(const T &) { return true; }
  template <typename T> void Post(const T &) {}
  bool Pre(const p::Name &N);
  bool Pre(const p::Keyword &) { return false; }
  bool Pre(const p::Variable &V) {
    if (DefineNext)
      return true; // inside define(): its first name is the one defined
    define(V);
    return false;
  }
  bool Pre(const p::IoUnit &U) {
    if (const auto *V = std::get_if<p::Variable>(&U.u)) { // an internal file: read or written
      define(*V);
      // ... and read: walked below the Variable, whose Pre would only define it again.
      EffectsWalker W{S, E};
      Fortran::common::visit([&W](const auto &X) { p::Walk(X.value(), W); }, V->u);
      return false;
    }
    return true;
  }
  template <typename V, typename B> bool Pre(const p::LoopBounds<V, B> &L) {
    define(L.name);
    p::Walk(L.lower, *this);
    p::Walk(L.upper, *this);
    p::Walk(L.step, *this);
    return false;
  }
  bool Pre(const p::ConcurrentControl &C) {
    define(std::get<p::Name>(C.t));
    p::Walk(std::get<1>(C.t), *this);
    p::Walk(std::get<2>(C.t), *this);
    p::Walk(std::get<3>(C.t), *this);
    return false;
  }
  bool Pre(const p::AllocateObject &O) {
    if (DefineNext)
      return true;
    define(O);
    storage(O, true, true); // ALLOCATE and DEALLOCATE need what was allocated before
    return false;
  }
  bool Pre(const p::PointerObject &O) {
    if (DefineNext)
      return true;
    define(O);
    storage(O, true, false);
    return false;
  }
  bool Pre(const p::AssignmentStmt &A);
  bool Pre(const p::PointerAssignmentStmt &A) {
    define(std::get<p::DataRef>(A.t));
    storage(std::get<p::DataRef>(A.t), true, false);
    p::Walk(std::get<p::PointerAssignmentStmt::Bounds>(A.t), *this);
    p::Walk(std::get<p::Expr>(A.t), *this);
    return false;
  }
  bool Pre(const p::CallStmt &C);
  bool Pre(const p::FunctionReference &F);
  // Jumps, and what ends the program: kept whatever, with what decides them.
#define MPIETE_CRITERION(Type)                                                                     \
  bool Pre(const p::Type &) {                                                                      \
    E.Criterion = true;                                                                            \
    return true;                                                                                   \
  }
  MPIETE_CRITERION(GotoStmt)
  MPIETE_CRITERION(ComputedGotoStmt)
  MPIETE_CRITERION(AssignedGotoStmt)
  MPIETE_CRITERION(ArithmeticIfStmt)
  MPIETE_CRITERION(AssignStmt)
  MPIETE_CRITERION(ReturnStmt)
  MPIETE_CRITERION(ExitStmt)
  MPIETE_CRITERION(CycleStmt)
  MPIETE_CRITERION(ErrLabel)
  MPIETE_CRITERION(EndLabel)
  MPIETE_CRITERION(EorLabel)
  MPIETE_CRITERION(AltReturnSpec)
#undef MPIETE_CRITERION
  // What ends the program, and input (it may steer the program; the file statements decide
  // what it reads): kept, and so is every call of a procedure that holds one.
#define MPIETE_ENDS(Type)                                                                          \
  bool Pre(const p::Type &) {                                                                      \
    E.Criterion = E.Ends = true;                                                                   \
    return true;                                                                                   \
  }
  MPIETE_ENDS(StopStmt)
  MPIETE_ENDS(FailImageStmt)
  MPIETE_ENDS(ReadStmt)
  MPIETE_ENDS(OpenStmt)
  MPIETE_ENDS(CloseStmt)
  MPIETE_ENDS(BackspaceStmt)
  MPIETE_ENDS(EndfileStmt)
  MPIETE_ENDS(RewindStmt)
  MPIETE_ENDS(FlushStmt)
  MPIETE_ENDS(WaitStmt)
  MPIETE_ENDS(InquireStmt)
  MPIETE_ENDS(SyncAllStmt)
  MPIETE_ENDS(SyncImagesStmt)
  MPIETE_ENDS(SyncMemoryStmt)
  MPIETE_ENDS(SyncTeamStmt)
  MPIETE_ENDS(EventPostStmt)
  MPIETE_ENDS(EventWaitStmt)
  MPIETE_ENDS(LockStmt)
  MPIETE_ENDS(UnlockStmt)
  MPIETE_ENDS(FormTeamStmt)
#undef MPIETE_ENDS

  template <typename T> void define(const T &Node) {
    DefineNext = true;
    p::Walk(Node, *this);
    DefineNext = false;
  }
  /// The storage (allocation, association) of the variable a node names: defined, used.
  template <typename T> void storage(const T &Node, bool Def, bool Use);
};

class FortranSlicer {
public:
  FortranSlicer(const SourceMap &SM, const std::string &Main, const CommunicationAnalysis &CA,
                const std::vector<ProcInfo> &Procs, const p::Program &Prog,
                const std::function<bool(const p::Name &)> &Quiet, UnitModel &Model,
                const LinkSummary *Program)
      : SM(SM), Main(Main), CA(CA), Procs(Procs), Prog(Prog), Quiet(Quiet), Fixed(Model.FixedForm),
        Model(Model), Program(Program) {}

  void run() {
    External = fresh();
    LibState = fresh();
    Pointers = fresh();
    procedureSymbols();
    // Pass 0: a class for every variable the unit names (declarations too), so every COMMON
    // member's place and every module variable is known before a summary names one.
    EveryName Register{[this](const p::Name &N) {
      if (N.symbol && isVariable(*N.symbol)) {
        classOf(*N.symbol);
        storageOf(*N.symbol);
      }
    }};
    p::Walk(Prog, Register);
    AllocatedFinder Allocations;
    p::Walk(Prog, Allocations);
    Allocated = std::move(Allocations.Found);
    // Pass 1: classes, and every actual argument joined with the dummy it is bound to (by
    // reference), so a procedure's dummies are the variables its callers pass.
    for (size_t I = 0; I < Procs.size(); ++I) {
      Binding = true;
      Fx Ignored;
      EffectsWalker W{*this, Ignored};
      p::Walk(*Procs[I].Exec, W);
      Binding = false;
    }
    // Pass 2: what each procedure does, through its callees; which may communicate.
    Local.resize(Procs.size());
    for (size_t I = 0; I < Procs.size(); ++I) {
      EffectsWalker W{*this, Local[I]};
      p::Walk(*Procs[I].Exec, W);
      std::set<unsigned> Shaped;
      boundEffects(I, Local[I].Uses, Shaped); // it reads its arrays' bounds when it runs
    }
    summarise();
    // Pass 3: the nodes of the procedures that may communicate.
    Noded.assign(Procs.size(), 0);
    for (size_t I = 0; I < Procs.size(); ++I) {
      if (!MayCommunicate[I])
        continue;
      if (!Procs[I].Aliases.empty())
        throw Unsupported{Procs[I].UnitStmt, "a procedure with ENTRY statements"};
      auto B = SM.beginOf(spanOf(*Procs[I].Exec));
      if (!B && !spanOf(*Procs[I].Exec).empty())
        continue; // from an included file: kept whole
      Noded[I] = 1;
      Procedure = Procs[I].Name;
      // On entry, the bounds of its explicit-shape dummies and automatic arrays: what reads
      // one of those arrays (or its storage) needs what its bounds read.
      Node Entry;
      Entry.Judged = false;
      Entry.Procedure = Procedure;
      boundEffects(I, Entry.G.Uses, Entry.G.Defs);
      if (!Entry.G.Uses.empty())
        Nodes.push_back(std::move(Entry));
      const bool MainProgram =
          !Procs[I].Scope || Procs[I].Scope->kind() == sem::Scope::Kind::MainProgram;
      if (MainProgram)
        mainBlock(Procs[I].Exec->v);
      else
        block(Procs[I].Exec->v, -1);
      if (exported(I))
        exportedNode(I);
    }
    solve();
  }

  // ---- memory classes ------------------------------------------------------------------------

  unsigned fresh() {
    Parent.push_back(unsigned(Parent.size()));
    return unsigned(Parent.size() - 1);
  }
  unsigned find(unsigned C) {
    while (Parent[C] != C)
      C = Parent[C] = Parent[Parent[C]];
    return C;
  }
  void join(unsigned A, unsigned B) {
    A = find(A);
    B = find(B);
    if (A != B)
      Parent[std::max(A, B)] = std::min(A, B);
  }

  static bool isVariable(const sem::Symbol &S) {
    const sem::Symbol &U = S.GetUltimate();
    if (U.attrs().test(sem::Attr::PARAMETER) || U.owner().IsDerivedType())
      return false;
    return U.has<sem::ObjectEntityDetails>() || U.has<sem::AssocEntityDetails>() ||
           U.has<sem::EntityDetails>();
  }

  /// The class of a variable: COMMON members by their place in the block (members of two
  /// procedures' declarations that overlap are one class), EQUIVALENCE sets and every POINTER
  /// or TARGET object merged.
  unsigned classOf(const sem::Symbol &S0) {
    const sem::Symbol &S = S0.GetUltimate();
    auto It = Classes.find(&S);
    if (It != Classes.end())
      return It->second;
    unsigned C = fresh();
    Classes[&S] = C;
    if (S.Rank() > 0)
      ArrayClasses.insert(C);
    const auto *Obj = S.detailsIf<sem::ObjectEntityDetails>();
    if (const sem::Symbol *Block = Obj ? Obj->commonBlock() : nullptr) {
      const std::string BlockName = commonName(*Block);
      auto &Members = Commons[BlockName];
      for (const auto &[Off, Size, Other] : Members)
        if (S.size() == 0 || Size == 0 || (S.offset() < Off + Size && Off < S.offset() + S.size()))
          join(C, Other);
      Members.emplace_back(S.offset(), S.size(), C);
      Globals.push_back(C);
      // Another unit's summary named the block before this unit's member was met.
      if (auto It = Named.find(BlockName); It != Named.end())
        join(C, It->second);
      GlobalNames.emplace_back(
          BlockName + "@" + std::to_string(S.offset()) + ":" + std::to_string(S.size()), C);
    } else if (S.owner().IsModule()) {
      Globals.push_back(C);
      const std::string Name = moduleName(S);
      if (auto It = Named.find(Name); It != Named.end())
        join(C, It->second);
      GlobalNames.emplace_back(Name, C);
    }
    if (S.attrs().test(sem::Attr::POINTER) || S.attrs().test(sem::Attr::TARGET))
      join(C, Pointers);
    if (EquivalencedScopes.insert(&S.owner()).second)
      for (const sem::EquivalenceSet &Set : S.owner().equivalenceSets())
        for (const sem::EquivalenceObject &O : Set)
          join(classOf(O.symbol), classOf(Set.front().symbol));
    return C;
  }

  /// The class of a variable's storage (its allocation or pointer association, its shape),
  /// apart from its contents: an MPI buffer or SIZE needs the one and not the other. Only
  /// allocatables, pointers and dummy arrays (bound to their actuals' storage) have one; -1
  /// for the others (their storage is their declaration's).
  int storageOf(const sem::Symbol &S0) {
    const sem::Symbol &S = S0.GetUltimate();
    if (!isVariable(S))
      return -1;
    if (!S.attrs().test(sem::Attr::ALLOCATABLE) && !S.attrs().test(sem::Attr::POINTER) &&
        !(sem::IsDummy(S) && S.Rank() > 0))
      return -1;
    if (auto It = Storage.find(&S); It != Storage.end())
      return int(It->second);
    const unsigned C = fresh();
    Storage[&S] = C;
    StorageClasses.insert(C);
    const auto *Obj = S.detailsIf<sem::ObjectEntityDetails>();
    if (S.owner().IsModule()) {
      Globals.push_back(C);
      const std::string Name = moduleName(S) + "#storage";
      if (auto It = Named.find(Name); It != Named.end())
        join(C, It->second);
      GlobalNames.emplace_back(Name, C);
    } else if (Obj && Obj->commonBlock()) {
      Globals.push_back(C); // a COMMON pointer: the other units' hidden state stands for it
      join(C, External);
    }
    return int(C);
  }

  /// The variables the declared bounds of a procedure's arrays read (explicit-shape dummies,
  /// automatic arrays: evaluated on entry) into Uses, and those arrays (contents and storage)
  /// into Shaped.
  void boundEffects(size_t I, std::set<unsigned> &Uses, std::set<unsigned> &Shaped) {
    if (!Procs[I].Scope)
      return;
    for (const auto &[Name, Ref] : *Procs[I].Scope) {
      const sem::Symbol &S = *Ref;
      const auto *Obj = S.detailsIf<sem::ObjectEntityDetails>();
      if (!Obj || Obj->shape().empty())
        continue;
      std::set<unsigned> Reads;
      for (const sem::ShapeSpec &Spec : Obj->shape())
        for (const sem::Bound *B : {&Spec.lbound(), &Spec.ubound()})
          if (const auto &X = B->GetExplicit())
            for (sem::SymbolRef V : Fortran::evaluate::CollectSymbols(*X))
              if (isVariable(*V))
                Reads.insert(classOf(*V));
      if (Reads.empty())
        continue;
      Uses.insert(Reads.begin(), Reads.end());
      Shaped.insert(classOf(S));
      if (const int St = storageOf(S); St >= 0)
        Shaped.insert(unsigned(St));
    }
  }

  /// A variable's storage defined (ALLOCATE, DEALLOCATE, NULLIFY, =>) or used.
  void storageName(const p::Name &N, Fx &E, bool Def, bool Use) {
    if (!N.symbol)
      return;
    const int C = storageOf(*N.symbol);
    if (C < 0)
      return;
    if (Def)
      E.Defs.insert(unsigned(C));
    if (Use)
      E.Uses.insert(unsigned(C));
  }

  // ---- names the linker sees (gfortran's), for the link summary ------------------------------

  static std::string commonName(const sem::Symbol &Block) {
    const std::string N = lower(Block.name().ToString());
    return N.empty() ? "__BLNK__" : N + "_";
  }
  /// A module's variable or procedure: __<module>_MOD_<name>.
  static std::string moduleName(const sem::Symbol &S) {
    const sem::Symbol *Mod = S.owner().symbol();
    return "__" + (Mod ? lower(Mod->name().ToString()) : std::string()) + "_MOD_" +
           lower(S.name().ToString());
  }
  /// A procedure: its binding label, a module procedure's module name, or name_ (an
  /// external procedure; an interface body in a module declares an external one).
  static std::string linkName(const sem::Symbol &S0) {
    const sem::Symbol &S = S0.GetUltimate();
    if (const std::string *Bind = S.GetBindName())
      return *Bind;
    const auto *Sub = S.detailsIf<sem::SubprogramDetails>();
    if (S.owner().IsModule() && !(Sub && Sub->isInterface()) && !S.has<sem::ProcEntityDetails>())
      return moduleName(S);
    return lower(S.name().ToString()) + "_";
  }

  /// The class of a global another unit's summary names: this unit's variable (a COMMON
  /// member `block_@offset:size` stands for the members it overlaps), or a class of its own
  /// for a name this unit does not declare (it reaches that storage only through calls).
  std::set<unsigned> named(const std::string &Name) {
    std::set<unsigned> Out;
    std::string Base = Name;
    long Off = -1, Size = 0;
    if (size_t At = Name.find('@'); At != std::string::npos) {
      Base = Name.substr(0, At);
      char *End = nullptr;
      Off = std::strtol(Name.c_str() + At + 1, &End, 10);
      Size = *End == ':' ? std::strtol(End + 1, nullptr, 10) : 0;
    }
    if (auto It = Commons.find(Base); It != Commons.end()) {
      for (const auto &[O, Sz, C] : It->second)
        if (Off < 0 || Size == 0 || Sz == 0 || (long(O) < Off + Size && Off < long(O + Sz)))
          Out.insert(C);
      if (!Out.empty())
        return Out;
    }
    for (const auto &[N, C] : GlobalNames)
      if (N == Base)
        Out.insert(C);
    if (!Out.empty())
      return Out;
    auto [It, New] = Named.try_emplace(Base, 0);
    if (New) {
      It->second = fresh();
      Globals.push_back(It->second);
    }
    return {It->second};
  }

  // ---- effects -------------------------------------------------------------------------------

  void name(const p::Name &N, Fx &E, bool Define) {
    if (!N.symbol)
      return;
    if (!isVariable(*N.symbol)) {
      // A procedure named outside a call (an actual argument, a pointer's target): it may be
      // called from where this unit cannot see.
      const sem::Symbol &U = N.symbol->GetUltimate();
      if (U.has<sem::SubprogramDetails>() || U.has<sem::SubprogramNameDetails>() ||
          (U.has<sem::ProcEntityDetails>() && !U.attrs().test(sem::Attr::POINTER)))
        AddressTaken.insert(linkName(U));
      return;
    }
    unsigned C = classOf(*N.symbol);
    (Define ? E.Defs : E.Uses).insert(C);
  }

  /// Everything another unit can reach: its storage, the libraries' and every global.
  void world(Fx &E) {
    for (unsigned C : {External, LibState}) {
      E.Defs.insert(C);
      E.Uses.insert(C);
    }
    E.Defs.insert(Globals.begin(), Globals.end());
    E.Uses.insert(Globals.begin(), Globals.end());
  }

  static const p::Expr *argExpr(const p::ActualArgSpec &A) {
    const auto &Arg = std::get<p::ActualArg>(A.t);
    if (const auto *X = std::get_if<Indirection<p::Expr>>(&Arg.u))
      return &X->value();
    return nullptr;
  }
  /// The variable an actual argument names (its base), or null for an expression.
  static const p::Name *argVariable(const p::ActualArgSpec &A) {
    const p::Expr *X = argExpr(A);
    if (!X)
      return nullptr;
    const auto *D = std::get_if<Indirection<p::Designator>>(&X->u);
    if (!D)
      return nullptr;
    FirstName F;
    p::Walk(D->value(), F);
    return F.N && F.N->symbol && isVariable(*F.N->symbol) ? F.N : nullptr;
  }

  /// The arguments of a call: read, and (Write) written when they are variables, with their
  /// storage.
  void args(const std::list<p::ActualArgSpec> &Args, Fx &E, bool Write) {
    for (const p::ActualArgSpec &A : Args) {
      EffectsWalker W{*this, E};
      p::Walk(std::get<p::ActualArg>(A.t), W);
      if (const p::Name *V = argVariable(A)) {
        name(*V, E, Write);
        storageName(*V, E, Write, true);
      }
    }
  }

  void call(const p::Call &C, Fx &E, bool Function) {
    const auto &Args = std::get<std::list<p::ActualArgSpec>>(C.t);
    const p::Name *N = designatorName(C);
    if (!N) { // a procedure component or pointer: anything
      E.Criterion = E.Communicates = E.OwnComm = true;
      world(E);
      args(Args, E, true);
      return;
    }
    const std::string L = calleeName(*N);
    if (isMpiName(L) && !CA.defined(L))
      return mpi(L, Args, E);
    const sem::Symbol *Sym = N->symbol ? &N->symbol->GetUltimate() : nullptr;
    if (Sym && Sym->attrs().test(sem::Attr::INTRINSIC)) {
      if (L == "exit" || L == "abort" || L == "execute_command_line" || L == "system")
        E.Criterion = E.Ends = true;
      if (L == "random_number" || L == "random_seed") {
        E.Defs.insert(LibState);
        E.Uses.insert(LibState);
      }
      // An inquiry of an allocatable, a pointer or a dummy array reads its storage (shape,
      // allocation, association), not its contents.
      static const std::set<std::string> Inquiry{
          "size",       "shape",         "lbound",       "ubound",   "allocated",
          "associated", "is_contiguous", "storage_size", "c_sizeof", "sizeof",
          "rank",       "lcobound",      "ucobound"};
      if (Inquiry.count(L)) {
        for (const p::ActualArgSpec &A : Args) {
          const p::Name *V = argVariable(A);
          const int St = V ? storageOf(*V->symbol) : -1;
          EffectsWalker W{*this, E};
          W.SkipNext = St >= 0;
          p::Walk(std::get<p::ActualArg>(A.t), W);
          if (St >= 0)
            E.Uses.insert(unsigned(St));
        }
        return;
      }
      args(Args, E, !Function);
      return;
    }
    if (const auto *Sub = Sym ? Sym->detailsIf<sem::SubprogramDetails>() : nullptr)
      if (Sub->stmtFunction())
        throw Unsupported{N->source, "a statement function"};
    auto Def = ByName.find(L);
    if (Def != ByName.end()) {
      unitCall(Def->second, Args, E);
      return;
    }
    const std::string Link = Sym ? linkName(*Sym) : L + "_";
    E.ExternalCalls.insert(Link);
    {
      std::vector<int> Passed;
      for (const p::ActualArgSpec &A : Args) {
        const p::Name *V = argVariable(A);
        Passed.push_back(std::get<std::optional<p::Keyword>>(A.t) ? -2
                         : V                                      ? int(classOf(*V->symbol))
                                                                  : -1);
      }
      E.ExternalArgs.emplace_back(Link, std::move(Passed));
    }
    // What the link step knows of it (LinkSummary.h).
    if (const ProcedureSummary *Known = Program ? Program->find(Link) : nullptr) {
      knownCall(*Known, Args, E);
      return;
    }
    // A module procedure of another file whose facts say it does not communicate: what it
    // may touch, but no criterion.
    if (Quiet(*N) && Sym) {
      const auto *Sub = Sym->detailsIf<sem::SubprogramDetails>();
      size_t I = 0;
      for (const p::ActualArgSpec &A : Args) {
        EffectsWalker W{*this, E};
        p::Walk(std::get<p::ActualArg>(A.t), W);
        const sem::Symbol *Dummy = nullptr;
        if (Sub && I < Sub->dummyArgs().size())
          Dummy = Sub->dummyArgs()[I];
        if (const auto &K = std::get<std::optional<p::Keyword>>(A.t); K && Sub)
          for (const sem::Symbol *D : Sub->dummyArgs())
            if (D && lower(D->name().ToString()) == lower(K->v.ToString()))
              Dummy = D;
        bool In = Dummy && Dummy->attrs().test(sem::Attr::INTENT_IN);
        if (const p::Name *V = argVariable(A); V && !In)
          name(*V, E, true);
        if (const p::Name *V = argVariable(A))
          storageName(*V, E, !In, true);
        ++I;
      }
      world(E);
      return;
    }
    // A procedure this unit cannot see: it may communicate and touch anything it can reach.
    E.Criterion = E.Communicates = true;
    world(E);
    args(Args, E, true);
  }

  /// A call of another unit's procedure whose effects the link step's program summary gives:
  /// its arguments by position (a keyword argument by its dummy's place in the interface
  /// this unit sees, else every argument it may be), its globals by name.
  void knownCall(const ProcedureSummary &K, const std::list<p::ActualArgSpec> &Args, Fx &E) {
    if (K.Communicates)
      E.Criterion = E.Communicates = true;
    // Message data some unit's kept statements steer on: what it sends (among what it
    // writes: an MPI call defines its buffers) is read by the call.
    bool Sends = false;
    for (const std::string &Kind : K.SendKinds)
      Sends |= Kind == AnyKind ? !Program->Steered.empty() : Program->Steered.count(Kind) > 0;
    size_t I = 0;
    for (const p::ActualArgSpec &A : Args) {
      EffectsWalker W{*this, E};
      W.SkipNext = argVariable(A) != nullptr;
      p::Walk(std::get<p::ActualArg>(A.t), W); // subscripts and expressions: read here
      std::set<unsigned> At{unsigned(I)};
      if (std::get<std::optional<p::Keyword>>(A.t)) // its place is not known here: any
        for (unsigned J = 0; J < 64; ++J)
          At.insert(J);
      bool Wr = false, Rd = false;
      for (unsigned J : At) {
        Wr |= K.WritesParams.count(J) > 0;
        Rd |= K.ReadsParams.count(J) > 0 || (Sends && K.WritesParams.count(J) > 0);
      }
      if (const p::Name *V = argVariable(A)) {
        const unsigned C = classOf(*V->symbol);
        if (Binding)
          for (unsigned J : At)
            if (K.EscapesParams.count(J))
              join(C, External);
        if (Wr)
          E.Defs.insert(C);
        if (Rd)
          E.Uses.insert(C);
        bool StWr = false, StRd = false;
        for (unsigned J : At) {
          StWr |= K.StorageWritesParams.count(J) > 0;
          StRd |= K.StorageReadsParams.count(J) > 0;
        }
        storageName(*V, E, StWr, StRd);
      }
      ++I;
    }
    for (const std::string &G : K.WritesGlobals)
      for (unsigned C : named(G))
        E.Defs.insert(C);
    for (const std::string &G : K.ReadsGlobals)
      for (unsigned C : named(G))
        E.Uses.insert(C);
    if (Sends)
      for (const std::string &G : K.WritesGlobals)
        for (unsigned C : named(G))
          E.Uses.insert(C);
    if (K.HiddenState)
      for (unsigned C : {External, LibState}) {
        E.Defs.insert(C);
        E.Uses.insert(C);
      }
  }

  void unitCall(const ProcSym &P, const std::list<p::ActualArgSpec> &Args, Fx &E) {
    const auto *Sub = P.Sym->detailsIf<sem::SubprogramDetails>();
    if (Binding && Sub) {
      size_t I = 0;
      for (const p::ActualArgSpec &A : Args) {
        const sem::Symbol *Dummy = I < Sub->dummyArgs().size() ? Sub->dummyArgs()[I] : nullptr;
        if (const auto &K = std::get<std::optional<p::Keyword>>(A.t))
          for (const sem::Symbol *D : Sub->dummyArgs())
            if (D && lower(D->name().ToString()) == lower(K->v.ToString()))
              Dummy = D;
        if (const p::Name *V = argVariable(A); V && Dummy && isVariable(*Dummy)) {
          join(classOf(*V->symbol), classOf(*Dummy));
          const int SA = storageOf(*V->symbol), SD = storageOf(*Dummy);
          if (SA >= 0 && SD >= 0)
            join(unsigned(SA), unsigned(SD));
        }
        ++I;
      }
    }
    // Bound arguments are the dummies' classes: what the callee does to them is its summary.
    // The rest (subscripts, expressions) is read here.
    for (const p::ActualArgSpec &A : Args) {
      EffectsWalker W{*this, E};
      W.SkipNext = argVariable(A) != nullptr;
      p::Walk(std::get<p::ActualArg>(A.t), W);
    }
    if (Sub && Sub->isFunction())
      E.Uses.insert(classOf(Sub->result()));
    E.Callees.insert(P.Index);
  }

  void mpi(const std::string &L, const std::list<p::ActualArgSpec> &Args, Fx &E) {
    const std::string Routine = canonicalMpi(L);
    if (Routine == "MPI_Wtime" || Routine == "MPI_Wtick")
      return; // the clock decides no call
    E.Criterion = true;
    E.Communicates |= findRewrittenRoutine(Routine) != nullptr;
    E.OwnComm |= E.Communicates;
    slice::GraphCall Call;
    Call.Routine = Routine;
    Call.PointToPoint = L.find("send") != std::string::npos || L.find("recv") != std::string::npos;
    std::vector<BufferArg> Buffers = bufferArgs(Routine);
    // MPI_IN_PLACE: the receive buffer holds what is sent too.
    for (const p::ActualArgSpec &A : Args)
      if (const p::Name *V = argVariable(A); V && lower(V->ToString()) == "mpi_in_place")
        for (BufferArg &B : Buffers)
          B.Kind = 'B';
    unsigned I = 0;
    for (const p::ActualArgSpec &A : Args) {
      char Kind = 0;
      for (const BufferArg &B : Buffers)
        if (B.Index == I)
          Kind = B.Kind;
      Fx Arg;
      const p::Name *V = argVariable(A);
      const int Base = V ? int(classOf(*V->symbol)) : -1;
      EffectsWalker W{*this, Arg};
      W.SkipNext = Kind && Base >= 0;
      p::Walk(std::get<p::ActualArg>(A.t), W);
      if (Kind && Base >= 0) {
        // A message buffer: its storage must be there; its contents matter only when
        // received data steers.
        storageName(*V, Arg, false, true);
        if (Kind != 'R')
          Call.SendBuffers.insert(unsigned(Base));
        if (Kind != 'S') {
          Call.RecvBuffers.insert(unsigned(Base));
          Arg.Defs.insert(unsigned(Base));
        }
      } else if (Base >= 0) {
        Arg.Defs.insert(unsigned(Base)); // requests, statuses, ierr, results: written
      } else if (Kind == 'S') {
        // An expression sent (MPI_ALLREDUCE(local_max(u), ...)): the arrays it reads are
        // message data as a buffer's contents are; what it reads besides (bounds, sizes)
        // must be right, as the statement runs.
        for (auto It = Arg.Uses.begin(); It != Arg.Uses.end();)
          if (ArrayClasses.count(*It)) {
            Call.SendBuffers.insert(*It);
            It = Arg.Uses.erase(It);
          } else {
            ++It;
          }
      }
      E.add(Arg);
      ++I;
    }
    E.Calls.push_back(std::move(Call));
  }

  // ---- procedures ----------------------------------------------------------------------------

  void procedureSymbols() {
    ProcedureFinder F;
    p::Walk(Prog, F);
    for (size_t I = 0; I < Procs.size(); ++I)
      for (const auto &[Name, Sym] : F.Found)
        if (Name == Procs[I].Name && !ByName.count(Name))
          ByName[Name] = {Sym, I};
  }

  /// Which procedures may communicate (they call MPI or what the unit cannot see, directly or
  /// through their callees), and each one's transitive effects.
  void summarise() {
    Summary = Local;
    MayCommunicate.assign(Procs.size(), false);
    for (size_t I = 0; I < Procs.size(); ++I)
      MayCommunicate[I] = Procs[I].Direct || Local[I].Communicates;
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (size_t I = 0; I < Procs.size(); ++I)
        for (size_t J : Summary[I].Callees) {
          Fx &S = Summary[I];
          const size_t Before = S.Defs.size() + S.Uses.size() + S.ExternalCalls.size();
          const bool Ends = S.Ends, Own = S.OwnComm;
          S.Defs.insert(Summary[J].Defs.begin(), Summary[J].Defs.end());
          S.Uses.insert(Summary[J].Uses.begin(), Summary[J].Uses.end());
          S.ExternalCalls.insert(Summary[J].ExternalCalls.begin(), Summary[J].ExternalCalls.end());
          S.Ends |= Summary[J].Ends;
          S.OwnComm |= Summary[J].OwnComm;
          if (MayCommunicate[J] && !MayCommunicate[I])
            MayCommunicate[I] = Changed = true;
          if (S.Defs.size() + S.Uses.size() + S.ExternalCalls.size() != Before || S.Ends != Ends ||
              S.OwnComm != Own)
            Changed = true;
        }
    }
  }
  /// A procedure other units may call: what it leaves in its dummies and globals may be
  /// needed there.
  bool exported(size_t I) const {
    auto It = ByName.find(Procs[I].Name);
    if (It == ByName.end())
      return false; // the main program
    const sem::Symbol &S = *It->second.Sym;
    if (S.owner().IsGlobal())
      return true;
    return S.owner().IsModule() && !S.attrs().test(sem::Attr::PRIVATE);
  }

  void exportedNode(size_t I) {
    Node N;
    N.Judged = false;
    N.Exit = true;
    N.Procedure = Procs[I].Name;
    N.G.Criterion = true;
    const sem::Symbol &S = *ByName.at(Procs[I].Name).Sym;
    // With the whole program, every caller seen: only what some caller's kept statements read.
    const ProcedureSummary *Known = Program ? Program->find(linkName(S)) : nullptr;
    if (Known && !Known->CallersKnown)
      Known = nullptr;
    if (const auto *Sub = S.detailsIf<sem::SubprogramDetails>()) {
      unsigned Index = 0;
      for (const sem::Symbol *D : Sub->dummyArgs()) {
        if (D && isVariable(*D) && (!Known || Known->DemandedParams.count(Index))) {
          N.G.Uses.insert(classOf(*D));
          N.ExitDummies.insert(classOf(*D));
        }
        // What it allocates for its callers stays, demanded or not (cheap, and a caller may
        // need only the storage: a message buffer).
        if (D && isVariable(*D))
          if (const int St = storageOf(*D); St >= 0)
            N.G.Uses.insert(unsigned(St));
        ++Index;
      }
      if (Sub->isFunction())
        N.G.Uses.insert(classOf(Sub->result()));
    }
    // The globals it leaves behind: per unit every one; with the whole program (a flow-
    // insensitive graph covers this unit's own reads) those another unit's kept statements
    // read. Storage always stays.
    if (Program) {
      for (const std::string &G : Program->DemandedGlobals)
        for (unsigned C : named(G))
          N.G.Uses.insert(C);
    } else {
      for (unsigned C : Globals)
        if (!StorageClasses.count(C)) {
          N.G.Uses.insert(C);
          N.ExitGlobals.insert(C);
        }
    }
    N.G.Uses.insert(StorageClasses.begin(), StorageClasses.end());
    N.G.Uses.insert(External);
    Nodes.push_back(std::move(N));
  }

  // ---- nodes ---------------------------------------------------------------------------------

  template <typename T> Fx effects(const T &X) {
    Fx E;
    EffectsWalker W{*this, E};
    p::Walk(X, W);
    for (size_t J : E.Callees) {
      const Fx &Sum = Summary[J];
      if (MayCommunicate[J]) {
        E.Criterion = true; // its own statements are nodes: it needs what they need
        continue;
      }
      E.Defs.insert(Sum.Defs.begin(), Sum.Defs.end());
      E.Uses.insert(Sum.Uses.begin(), Sum.Uses.end());
      E.Criterion |= Sum.Ends; // its own jumps go with it when the call goes
      E.Ends |= Sum.Ends;
    }
    return E;
  }

  template <typename T> int add(const Fx &E, const T &X, p::CharBlock Span, int ParentNode) {
    Node N;
    // After the main program's MPI_Finalize, ending the run decides no call (mainBlock).
    // (One that reads nothing, a plain STOP, costs nothing: it stays.)
    const bool Ends =
        AfterFinalize && E.Calls.empty() && !E.Communicates && E.Callees.empty() && !E.Uses.empty();
    N.G.Defs = E.Defs;
    N.G.Uses = E.Uses;
    N.G.Calls = E.Calls;
    N.G.Criterion = E.Criterion && !Ends;
    N.Callees = E.Callees;
    N.ExternalArgs = E.ExternalArgs;
    N.G.Parent = ParentNode;
    N.Span = Span;
    N.Procedure = Procedure;
    place(N, X);
    if (!N.Removable)
      N.G.Criterion = true; // kept as written: what it reads must be right
    Nodes.push_back(std::move(N));
    return int(Nodes.size() - 1);
  }

  void block(const p::Block &B, int ParentNode) {
    for (const p::ExecutionPartConstruct &EPC : B)
      block1(EPC, ParentNode);
  }

  void block1(const p::ExecutionPartConstruct &EPC, int ParentNode) {
    if (const auto *EC = std::get_if<p::ExecutableConstruct>(&EPC.u)) {
      construct(*EC, ParentNode);
      return;
    }
    if (std::holds_alternative<p::ErrorRecovery>(EPC.u) ||
        std::holds_alternative<p::Statement<Indirection<p::EntryStmt>>>(EPC.u))
      throw Unsupported{spanOf(EPC), "an ENTRY statement or a statement Flang could not read"};
    // FORMAT, DATA, NAMELIST: not executed, never removed.
  }

  /// A label of a statement inside X that some jump goes to.
  struct TargetFinder {
    const std::set<p::Label> &Targets;
    bool Found = false;
    template <typename T> bool Pre(const T &) { return !Found; }
    template <typename T> void Post(const T &) {}
    template <typename T> bool Pre(const p::Statement<T> &S) {
      Found = Found || (S.label && Targets.count(*S.label));
      return !Found;
    }
  };

  static bool isFinalizeCall(const p::ExecutionPartConstruct &EPC) {
    const auto *EC = std::get_if<p::ExecutableConstruct>(&EPC.u);
    const auto *S = EC ? std::get_if<p::Statement<p::ActionStmt>>(&EC->u) : nullptr;
    const auto *C = S ? std::get_if<Indirection<p::CallStmt>>(&S->statement.u) : nullptr;
    const p::Name *N = C ? designatorName(C->value().call) : nullptr;
    const std::string L = N ? calleeName(*N) : std::string();
    return isMpiName(L) && canonicalMpi(L) == "MPI_Finalize";
  }

  /// The main program's statements. Those after its `CALL MPI_FINALIZE` (at the top level:
  /// every later statement runs after it) can change no MPI call, which the standard forbids
  /// after MPI_Finalize: a STOP there (f90-moddata's `if (.not. ok) stop 1`, the check of
  /// results the capped probe skipped) or a CALL EXIT ends a run whose trace is complete, so
  /// it is no criterion, and what decides it (the reduced error) no longer keeps the
  /// computation. Not where a jump may come into those statements from before the call (a
  /// label there that some jump names), and never for a statement with calls.
  void mainBlock(const p::Block &B) {
    TargetCollector Jumps;
    p::Walk(B, Jumps);
    const auto Fin = std::find_if(B.begin(), B.end(), isFinalizeCall);
    const bool Tail = Fin != B.end() && std::none_of(std::next(Fin), B.end(), [&](const auto &EPC) {
                        TargetFinder F{Jumps.Targets};
                        p::Walk(EPC, F);
                        return F.Found;
                      });
    bool After = false;
    for (auto It = B.begin(); It != B.end(); ++It) {
      AfterFinalize = Tail && After;
      block1(*It, -1);
      After = After || It == Fin;
    }
    AfterFinalize = false;
  }

  void construct(const p::ExecutableConstruct &EC, int ParentNode) {
    if (const auto *S = std::get_if<p::Statement<p::ActionStmt>>(&EC.u)) {
      if (std::holds_alternative<p::ContinueStmt>(S->statement.u))
        return; // executes nothing; a label on it stays
      add(effects(S->statement), *S, S->source, ParentNode);
      return;
    }
    if (const auto *D = std::get_if<Indirection<p::DoConstruct>>(&EC.u)) {
      const auto &DoS = std::get<p::Statement<p::NonLabelDoStmt>>(D->value().t);
      int Head = add(effects(DoS.statement), D->value(), spanOf(D->value()), ParentNode);
      block(std::get<p::Block>(D->value().t), Head);
      return;
    }
    if (const auto *I = std::get_if<Indirection<p::IfConstruct>>(&EC.u)) {
      const p::IfConstruct &If = I->value();
      Fx Head = effects(std::get<p::Statement<p::IfThenStmt>>(If.t));
      for (const auto &EI : std::get<std::list<p::IfConstruct::ElseIfBlock>>(If.t))
        Head.add(effects(std::get<p::Statement<p::ElseIfStmt>>(EI.t)));
      int N = add(Head, If, spanOf(If), ParentNode);
      block(std::get<p::Block>(If.t), N);
      for (const auto &EI : std::get<std::list<p::IfConstruct::ElseIfBlock>>(If.t))
        block(std::get<p::Block>(EI.t), N);
      if (const auto &E = std::get<std::optional<p::IfConstruct::ElseBlock>>(If.t))
        block(std::get<p::Block>(E->t), N);
      return;
    }
    if (const auto *C = std::get_if<Indirection<p::CaseConstruct>>(&EC.u)) {
      const p::CaseConstruct &Case = C->value();
      int N = add(effects(std::get<p::Statement<p::SelectCaseStmt>>(Case.t)), Case, spanOf(Case),
                  ParentNode);
      for (const auto &K : std::get<std::list<p::CaseConstruct::Case>>(Case.t))
        block(std::get<p::Block>(K.t), N);
      return;
    }
    p::CharBlock Span = Fortran::common::visit([&](const auto &X) { return spanOf(X); }, EC.u);
    Fx E = Fortran::common::visit([&](const auto &X) { return effects(X); }, EC.u);
    // ASSOCIATE, BLOCK, SELECT TYPE/RANK, CRITICAL, directives, OpenMP, OpenACC: kept whole;
    // WHERE and FORALL are one statement.
    if (!std::holds_alternative<Indirection<p::WhereConstruct>>(EC.u) &&
        !std::holds_alternative<Indirection<p::ForallConstruct>>(EC.u))
      E.Criterion = true;
    add(E, EC, Span, ParentNode);
  }

  // ---- the link summary (LinkSummary.h) ------------------------------------------------------

  /// The names of the globals among Classes (resolved): this unit's, and other units' that
  /// summaries named.
  std::set<std::string> globalsIn(const std::set<unsigned> &Classes) {
    std::set<std::string> Out;
    for (const auto &[Name, C] : GlobalNames)
      if (Classes.count(find(C)))
        Out.insert(Name);
    for (const auto &[Name, C] : Named)
      if (Classes.count(find(C)))
        Out.insert(Name);
    return Out;
  }

public:
  /// The unit's link summary, after run(): its procedures other units may call, what its kept
  /// statements need of other units' procedures, and the message kinds they steer on.
  LinkSummary linkSummary() {
    // Per unit, the slice with no other unit's needs (solve()); at link time, the slice.
    const slice::SliceResult &RR = Program ? Result : Bottom;
    LinkSummary Out;
    Out.Unit = Model.Source;
    Out.ContentHash = Model.ContentHash;
    Out.Steered = Result.Steered;
    Out.AddressTaken = AddressTaken;
    for (const Fx &L : Local)
      Out.ExternalCalls.insert(L.ExternalCalls.begin(), L.ExternalCalls.end());
    auto resolved = [&](const std::set<unsigned> &Set) {
      std::set<unsigned> R;
      for (unsigned C : Set)
        R.insert(find(C));
      return R;
    };
    // What kept statements read: their uses, and the send buffers of the steered kinds.
    std::set<unsigned> Read;
    auto steeredSends = [&](const slice::GraphCall &C, std::set<unsigned> &Into) {
      if (C.PointToPoint ? RR.PointToPoint : RR.Collectives.count(C.Routine) > 0)
        for (unsigned B : C.SendBuffers)
          Into.insert(find(B));
    };
    const bool Sliced = !RR.Relevant.empty();
    for (size_t I = 0; I < Nodes.size(); ++I) {
      if (!Sliced || !RR.Relevant[I])
        continue;
      for (unsigned C : Nodes[I].G.Uses)
        Read.insert(find(C));
      for (const slice::GraphCall &C : Nodes[I].G.Calls)
        steeredSends(C, Read);
    }
    // Demands: each call of another unit's procedure that a kept statement makes, the
    // arguments whose memory a kept statement reads; a call that runs whole (in a procedure
    // that is not sliced) needs every argument.
    auto demand = [&](const std::pair<std::string, std::vector<int>> &Call, bool All) {
      std::set<unsigned> &Params = Out.Demands[Call.first];
      for (size_t K = 0; K < Call.second.size(); ++K) {
        const int C = Call.second[K];
        if (C == -2) { // a keyword argument: any place
          for (unsigned J = 0; J < 64; ++J)
            Params.insert(J);
        } else if (C >= 0 && (All || Read.count(find(unsigned(C))))) {
          Params.insert(unsigned(K));
        }
      }
    };
    auto closure = [&](std::set<size_t> From) {
      std::vector<size_t> Work(From.begin(), From.end());
      while (!Work.empty()) {
        const size_t J = Work.back();
        Work.pop_back();
        for (size_t K : Local[J].Callees)
          if (From.insert(K).second)
            Work.push_back(K);
      }
      return From;
    };
    for (size_t I = 0; I < Nodes.size(); ++I) {
      if (Sliced && !RR.Relevant[I])
        continue;
      for (const auto &Call : Nodes[I].ExternalArgs)
        demand(Call, false);
      for (size_t J : closure(Nodes[I].Callees))
        if (!Noded[J])
          for (const auto &Call : Local[J].ExternalArgs)
            demand(Call, true);
    }
    for (size_t J = 0; J < Procs.size(); ++J)
      if (!Noded[J])
        for (const auto &Call : Local[J].ExternalArgs)
          demand(Call, true);
    for (auto It = Out.Demands.begin(); It != Out.Demands.end();)
      It = It->second.empty() ? Out.Demands.erase(It) : std::next(It);
    // The globals kept statements read. (A procedure that is not sliced reads what it uses
    // only when some kept statement calls it: that statement's reads, here or, through the
    // procedure's summary, in the calling unit.)
    Out.DemandedGlobals = globalsIn(Read);

    std::set<unsigned> Hidden{find(External), find(LibState)};
    for (const auto &[Sym, C] : Classes)
      if (const auto *Obj = Sym->detailsIf<sem::ObjectEntityDetails>();
          !Sym->owner().IsModule() && !Sym->owner().IsGlobal() && sem::IsSaved(*Sym) &&
          !(Obj && Obj->commonBlock()))
        Hidden.insert(find(C));
    for (size_t I = 0; I < Procs.size(); ++I) {
      if (!exported(I))
        continue;
      const sem::Symbol &S = *ByName.at(Procs[I].Name).Sym;
      const std::set<size_t> Reach = closure({I});
      ProcedureSummary P;
      P.Name = linkName(S);
      P.Communicates = Summary[I].OwnComm || Summary[I].Ends;
      P.Calls = Summary[I].ExternalCalls;
      const std::set<unsigned> Defs = resolved(Summary[I].Defs);
      // Reads: all it uses when it runs whole; when sliced, what its kept statements (and
      // its sliced callees') read, and the send buffers of the steered kinds.
      std::set<unsigned> Uses;
      bool Whole = !Sliced;
      for (size_t J : Reach)
        Whole |= MayCommunicate[J] && !Noded[J];
      if (!Noded[I] || Whole) {
        Uses = resolved(Summary[I].Uses);
      } else {
        for (size_t N = 0; N < Nodes.size(); ++N) {
          if (!RR.Relevant[N] || Nodes[N].Exit)
            continue;
          auto It = std::find_if(Reach.begin(), Reach.end(),
                                 [&](size_t J) { return Procs[J].Name == Nodes[N].Procedure; });
          if (It == Reach.end() || !Noded[*It])
            continue;
          for (unsigned C : Nodes[N].G.Uses)
            Uses.insert(find(C));
          for (const slice::GraphCall &C : Nodes[N].G.Calls)
            steeredSends(C, Uses);
        }
      }
      auto meets = [](const std::set<unsigned> &A, const std::set<unsigned> &B) {
        return std::any_of(A.begin(), A.end(), [&](unsigned C) { return B.count(C) > 0; });
      };
      if (const auto *Sub = S.detailsIf<sem::SubprogramDetails>()) {
        unsigned Index = 0;
        for (const sem::Symbol *D : Sub->dummyArgs()) {
          if (D && isVariable(*D)) {
            const unsigned C = find(classOf(*D));
            if (Defs.count(C))
              P.WritesParams.insert(Index);
            if (Uses.count(C))
              P.ReadsParams.insert(Index);
            if (D->attrs().test(sem::Attr::TARGET) || D->attrs().test(sem::Attr::POINTER))
              P.EscapesParams.insert(Index);
            if (const int St = storageOf(*D); St >= 0) {
              if (Defs.count(find(unsigned(St))))
                P.StorageWritesParams.insert(Index);
              if (Uses.count(find(unsigned(St))))
                P.StorageReadsParams.insert(Index);
            }
          }
          ++Index;
        }
      }
      P.WritesGlobals = globalsIn(Defs);
      P.ReadsGlobals = globalsIn(Uses);
      P.HiddenState = meets(Hidden, Defs) || meets(Hidden, Uses);
      for (size_t J : Reach)
        for (const slice::GraphCall &C : Local[J].Calls)
          P.SendKinds.insert(C.PointToPoint ? std::string(PointToPointKind) : C.Routine);
      Out.Procedures.push_back(std::move(P));
    }
    return Out;
  }

  // ---- positions -----------------------------------------------------------------------------

  size_t lineStart(size_t Off) const {
    size_t S = Main.rfind('\n', Off == 0 ? 0 : Off - 1);
    return S == std::string::npos || Off == 0 ? 0 : S + 1;
  }
  size_t lineEnd(size_t Off) const {
    size_t E = Main.find('\n', Off);
    return E == std::string::npos ? Main.size() : E;
  }

  /// Whether the node's text is whole lines: only a label before it, only blanks or a comment
  /// after it (no second statement after ';'), no directive bound to it, no FORMAT, DATA or
  /// ENTRY inside; and its labelled statements.
  template <typename T> void place(Node &N, const T &X) {
    auto B = SM.beginOf(N.Span), E = SM.endOf(N.Span);
    if (!B || !E || *E <= *B || *E > Main.size())
      return;
    const size_t LS = lineStart(*B), LE = lineEnd(*E - 1);
    for (size_t I = LS; I < *B; ++I)
      if (!std::isdigit(static_cast<unsigned char>(Main[I])) && Main[I] != ' ' && Main[I] != '\t')
        return;
    for (size_t I = *E; I < LE; ++I) {
      const char C = Main[I];
      if (Fixed && I - lineStart(I) >= Model.FixedColumns)
        break;
      if (C == '!')
        break;
      if (C != ' ' && C != '\t' && C != '\r')
        return;
    }
    if (LS > 0) {
      size_t PS = lineStart(LS - 1);
      std::string Prev = lower(std::string_view(Main).substr(PS, LS - 1 - PS));
      size_t F = Prev.find_first_not_of(" \t");
      if (F != std::string::npos && F + 1 < Prev.size() &&
          (Prev[F] == '!' || (Fixed && F == 0 && (Prev[0] == 'c' || Prev[0] == '*'))) &&
          (Prev.compare(F + 1, 1, "$") == 0 || Prev.compare(F + 1, 4, "dir$") == 0 ||
           Prev.compare(F + 1, 4, "gcc$") == 0 || Prev.compare(F + 1, 4, "dec$") == 0))
        return; // a directive binds to this statement
    }
    LabelsWalker L{SM, {}, false};
    p::Walk(X, L);
    if (L.Bad)
      return;
    N.Begin = unsigned(LS);
    N.End = unsigned(LE);
    N.Removable = true;
  }

  // ---- the graph -----------------------------------------------------------------------------

  void solve() {
    std::vector<slice::GraphNode> G;
    for (Node &N : Nodes) {
      auto resolve = [&](std::set<unsigned> &Set) {
        std::set<unsigned> R;
        for (unsigned C : Set)
          R.insert(find(C));
        Set.swap(R);
      };
      resolve(N.G.Defs);
      resolve(N.G.Uses);
      for (slice::GraphCall &C : N.G.Calls) {
        resolve(C.SendBuffers);
        resolve(C.RecvBuffers);
      }
      G.push_back(N.G);
    }
    Result = slice::solveSlice(G, Program ? Program->Steered : std::set<std::string>{});
    if (!Program) {
      // The link step's first round starts from the least the other units could need (no
      // caller reads what an exported procedure leaves in its dummies, no other unit steers):
      // what the kept statements of each procedure then read is its summary's reads. Later
      // rounds grow it; starting from this slice's reads instead would keep what only
      // justifies itself (a buffer read because sent, sent because read).
      std::set<unsigned> Shared{find(External)};
      for (unsigned C : Globals)
        Shared.insert(find(C));
      for (size_t I = 0; I < Nodes.size(); ++I) {
        for (unsigned D : Nodes[I].ExitDummies)
          if (!Shared.count(find(D)))
            G[I].Uses.erase(find(D));
        for (unsigned D : Nodes[I].ExitGlobals)
          G[I].Uses.erase(find(D));
      }
      Bottom = slice::solveSlice(G);
    }
    const slice::SliceResult &R = Result;
    Model.Sliced = true;
    Model.SliceKeepsMessageData = R.KeepsMessageData;
    for (size_t I = 0; I < Nodes.size(); ++I) {
      const Node &N = Nodes[I];
      if (!N.Judged)
        continue;
      ++Model.SliceStatements;
      if (R.Relevant[I])
        continue;
      ++Model.SliceRemovedStatements;
      if (N.G.Parent >= 0 && !R.Relevant[size_t(N.G.Parent)])
        continue; // inside a removed construct
      record(N);
    }
    if (std::getenv("MPIETE_SLICE_DEBUG"))
      for (size_t I = 0; I < Nodes.size(); ++I) {
        llvm::errs() << "fslice: node " << I << " line " << SM.line(Nodes[I].Span) << ' '
                     << Nodes[I].Procedure << (R.Relevant[I] ? " kept" : " removed")
                     << (Nodes[I].G.Criterion ? " criterion" : "") << " parent "
                     << Nodes[I].G.Parent << " defs";
        for (unsigned C : Nodes[I].G.Defs)
          llvm::errs() << ' ' << C;
        llvm::errs() << " uses";
        for (unsigned C : Nodes[I].G.Uses)
          llvm::errs() << ' ' << C;
        llvm::errs() << '\n';
      }
  }

  void record(const Node &N) {
    SkeletonRemoval R;
    R.Begin = N.Begin;
    R.End = N.End;
    DiagLoc L = SM.loc(N.Span);
    R.Line = L.Line;
    R.Col = L.Col;
    R.Procedure = N.Procedure;
    std::string Text = Main.substr(N.Begin, lineEnd(N.Begin) - N.Begin);
    size_t F = Text.find_first_not_of(" \t0123456789");
    Text = F == std::string::npos ? "" : Text.substr(F);
    while (!Text.empty() && (Text.back() == ' ' || Text.back() == '\r'))
      Text.pop_back();
    R.Text = Text.size() > 72 ? Text.substr(0, 69) + "..." : Text;
    Model.SkeletonRemovals.push_back(std::move(R));
  }

  const SourceMap &SM;
  const std::string &Main;
  const CommunicationAnalysis &CA;
  const std::vector<ProcInfo> &Procs;
  const p::Program &Prog;
  const std::function<bool(const p::Name &)> &Quiet;
  bool Fixed;
  UnitModel &Model;

  std::vector<unsigned> Parent;
  std::map<const sem::Symbol *, unsigned> Classes;
  std::map<std::string, std::vector<std::tuple<size_t, size_t, unsigned>>> Commons;
  std::set<const sem::Scope *> EquivalencedScopes;
  std::vector<unsigned> Globals;
  unsigned External = 0, LibState = 0, Pointers = 0;
  bool Binding = false;
  bool AfterFinalize = false; ///< walking the main program's statements after MPI_Finalize

  std::map<std::string, ProcSym> ByName;
  std::map<const sem::Symbol *, unsigned> Storage; ///< storageOf
  std::set<unsigned> StorageClasses;
  std::set<unsigned> ArrayClasses; ///< the classes of arrays, as first made (classOf)
  /// Variables some ALLOCATE of the unit allocates: an assignment to one is taken to leave its
  /// allocation as it was (an allocatable allocated nowhere here may be allocated by one).
  std::set<const sem::Symbol *> Allocated;
  const LinkSummary *Program;
  /// Globals by the names the linker sees: this unit's (module variables, COMMON members as
  /// block_@offset:size) and other units' that summaries named (Named).
  std::vector<std::pair<std::string, unsigned>> GlobalNames;
  std::map<std::string, unsigned> Named;
  std::set<std::string> AddressTaken;
  slice::SliceResult Result;
  slice::SliceResult Bottom; ///< per unit: the slice with no other unit's needs (solve())
  std::vector<char> Noded;   ///< per procedure: its statements are nodes
  std::vector<Fx> Local, Summary;
  std::vector<bool> MayCommunicate;

  std::string Procedure;
  std::vector<Node> Nodes;
};

bool EffectsWalker::Pre(const p::Name &N) {
  if (SkipNext) {
    SkipNext = false;
    return false;
  }
  S.name(N, E, DefineNext);
  DefineNext = false;
  return false;
}
template <typename T> void EffectsWalker::storage(const T &Node, bool Def, bool Use) {
  FirstName F;
  p::Walk(Node, F);
  if (F.N)
    S.storageName(*F.N, E, Def, Use);
}
bool EffectsWalker::Pre(const p::AssignmentStmt &A) {
  // A whole allocatable assigned may be allocated by the assignment, unless the unit
  // allocates it itself (then the ALLOCATE is taken to be what allocates it).
  const auto &V = std::get<p::Variable>(A.t);
  if (const auto *D = std::get_if<Indirection<p::Designator>>(&V.u))
    if (const auto *R = std::get_if<p::DataRef>(&D->value().u))
      if (const auto *N = std::get_if<p::Name>(&R->u);
          N && N->symbol && N->symbol->GetUltimate().attrs().test(sem::Attr::ALLOCATABLE) &&
          !S.Allocated.count(&N->symbol->GetUltimate()))
        S.storageName(*N, E, true, false);
  return true;
}
bool EffectsWalker::Pre(const p::CallStmt &C) {
  S.call(C.call, E, false);
  return false;
}
bool EffectsWalker::Pre(const p::FunctionReference &F) {
  S.call(F.v, E, true);
  return false;
}

} // namespace

bool fortran::sliceUnit(const SourceMap &SM, const std::string &MainText,
                        const CommunicationAnalysis &CA, const std::vector<ProcInfo> &Procs,
                        const p::Program &Prog, const std::function<bool(const p::Name &)> &Quiet,
                        UnitModel &Model, DiagnosticSink &Diags, const LinkSummary *Program,
                        LinkSummary *Summary) {
  UnitModel Before = Model;
  try {
    FortranSlicer S(SM, MainText, CA, Procs, Prog, Quiet, Model, Program);
    S.run();
    if (Summary)
      *Summary = S.linkSummary();
  } catch (const Unsupported &U) {
    Model = std::move(Before);
    // No summary either: the link step slices this program per unit.
    Diags.warning(SM.loc(U.Where),
                  "the skeleton trace probe keeps this file whole: the slice does not model " +
                      U.What,
                  "skeleton");
    return false;
  }
  return true;
}

} // namespace mpiete

// The skeleton slice of a Fortran unit (docs/skeleton.md): a dependence graph over the statements
// of its procedures that may communicate, through Flang's semantic symbols, searched backwards
// from the MPI calls (SliceGraph.h); the removals are whole lines of the user's text.
#include "FortranSlice.h"
#include "SliceGraph.h"

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
  std::set<size_t> Callees;  ///< procedures of the unit it calls (indices into the procedures)
  void add(const Fx &O) {
    Defs.insert(O.Defs.begin(), O.Defs.end());
    Uses.insert(O.Uses.begin(), O.Uses.end());
    Calls.insert(Calls.end(), O.Calls.begin(), O.Calls.end());
    Criterion |= O.Criterion;
    Communicates |= O.Communicates;
    Callees.insert(O.Callees.begin(), O.Callees.end());
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
  bool Judged = true;     ///< counted in the header (not the synthetic exported-procedure node)
  bool Removable = false; ///< its text is whole lines the edit may blank
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
    return false;
  }
  bool Pre(const p::PointerObject &O) {
    if (DefineNext)
      return true;
    define(O);
    return false;
  }
  bool Pre(const p::PointerAssignmentStmt &A) {
    define(std::get<p::DataRef>(A.t));
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
  MPIETE_CRITERION(StopStmt)
  MPIETE_CRITERION(FailImageStmt)
  MPIETE_CRITERION(ExitStmt)
  MPIETE_CRITERION(CycleStmt)
  MPIETE_CRITERION(ErrLabel)
  MPIETE_CRITERION(EndLabel)
  MPIETE_CRITERION(EorLabel)
  MPIETE_CRITERION(AltReturnSpec)
  // Input may steer the program, and the file statements decide what it reads.
  MPIETE_CRITERION(ReadStmt)
  MPIETE_CRITERION(OpenStmt)
  MPIETE_CRITERION(CloseStmt)
  MPIETE_CRITERION(BackspaceStmt)
  MPIETE_CRITERION(EndfileStmt)
  MPIETE_CRITERION(RewindStmt)
  MPIETE_CRITERION(FlushStmt)
  MPIETE_CRITERION(WaitStmt)
  MPIETE_CRITERION(InquireStmt)
  MPIETE_CRITERION(SyncAllStmt)
  MPIETE_CRITERION(SyncImagesStmt)
  MPIETE_CRITERION(SyncMemoryStmt)
  MPIETE_CRITERION(SyncTeamStmt)
  MPIETE_CRITERION(EventPostStmt)
  MPIETE_CRITERION(EventWaitStmt)
  MPIETE_CRITERION(LockStmt)
  MPIETE_CRITERION(UnlockStmt)
  MPIETE_CRITERION(FormTeamStmt)
#undef MPIETE_CRITERION

  template <typename T> void define(const T &Node) {
    DefineNext = true;
    p::Walk(Node, *this);
    DefineNext = false;
  }
};

class FortranSlicer {
public:
  FortranSlicer(const SourceMap &SM, const std::string &Main, const CommunicationAnalysis &CA,
                const std::vector<ProcInfo> &Procs, const p::Program &Prog,
                const std::function<bool(const p::Name &)> &Quiet, UnitModel &Model)
      : SM(SM), Main(Main), CA(CA), Procs(Procs), Prog(Prog), Quiet(Quiet), Fixed(Model.FixedForm),
        Model(Model) {}

  void run() {
    External = fresh();
    LibState = fresh();
    Pointers = fresh();
    procedureSymbols();
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
    }
    summarise();
    // Pass 3: the nodes of the procedures that may communicate.
    for (size_t I = 0; I < Procs.size(); ++I) {
      if (!MayCommunicate[I])
        continue;
      if (!Procs[I].Aliases.empty())
        throw Unsupported{Procs[I].UnitStmt, "a procedure with ENTRY statements"};
      auto B = SM.beginOf(spanOf(*Procs[I].Exec));
      if (!B && !spanOf(*Procs[I].Exec).empty())
        continue; // from an included file: kept whole
      Procedure = Procs[I].Name;
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
    const auto *Obj = S.detailsIf<sem::ObjectEntityDetails>();
    if (const sem::Symbol *Block = Obj ? Obj->commonBlock() : nullptr) {
      auto &Members = Commons[lower(Block->name().ToString())];
      for (const auto &[Off, Size, Other] : Members)
        if (S.size() == 0 || Size == 0 || (S.offset() < Off + Size && Off < S.offset() + S.size()))
          join(C, Other);
      Members.emplace_back(S.offset(), S.size(), C);
      Globals.push_back(C);
    } else if (S.owner().IsModule()) {
      Globals.push_back(C);
    }
    if (S.attrs().test(sem::Attr::POINTER) || S.attrs().test(sem::Attr::TARGET))
      join(C, Pointers);
    if (EquivalencedScopes.insert(&S.owner()).second)
      for (const sem::EquivalenceSet &Set : S.owner().equivalenceSets())
        for (const sem::EquivalenceObject &O : Set)
          join(classOf(O.symbol), classOf(Set.front().symbol));
    return C;
  }

  // ---- effects -------------------------------------------------------------------------------

  void name(const p::Name &N, Fx &E, bool Define) {
    if (!N.symbol || !isVariable(*N.symbol))
      return;
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

  /// The arguments of a call: read, and (Write) written when they are variables.
  void args(const std::list<p::ActualArgSpec> &Args, Fx &E, bool Write) {
    for (const p::ActualArgSpec &A : Args) {
      EffectsWalker W{*this, E};
      p::Walk(std::get<p::ActualArg>(A.t), W);
      if (const p::Name *V = argVariable(A))
        name(*V, E, Write);
    }
  }

  void call(const p::Call &C, Fx &E, bool Function) {
    const auto &Args = std::get<std::list<p::ActualArgSpec>>(C.t);
    const p::Name *N = designatorName(C);
    if (!N) { // a procedure component or pointer: anything
      E.Criterion = E.Communicates = true;
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
        E.Criterion = true;
      if (L == "random_number" || L == "random_seed") {
        E.Defs.insert(LibState);
        E.Uses.insert(LibState);
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
        if (const p::Name *V = argVariable(A); V && Dummy && isVariable(*Dummy))
          join(classOf(*V->symbol), classOf(*Dummy));
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
        // A message buffer: its contents matter only when received data steers.
        if (Kind != 'R')
          Call.SendBuffers.insert(unsigned(Base));
        if (Kind != 'S') {
          Call.RecvBuffers.insert(unsigned(Base));
          Arg.Defs.insert(unsigned(Base));
        }
      } else if (Base >= 0) {
        Arg.Defs.insert(unsigned(Base)); // requests, statuses, ierr, results: written
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
          size_t Before = Summary[I].Defs.size() + Summary[I].Uses.size();
          bool Crit = Summary[I].Criterion;
          Summary[I].Defs.insert(Summary[J].Defs.begin(), Summary[J].Defs.end());
          Summary[I].Uses.insert(Summary[J].Uses.begin(), Summary[J].Uses.end());
          Summary[I].Criterion |= Summary[J].Criterion;
          if (MayCommunicate[J] && !MayCommunicate[I])
            MayCommunicate[I] = Changed = true;
          if (Summary[I].Defs.size() + Summary[I].Uses.size() != Before ||
              Summary[I].Criterion != Crit)
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
    N.Procedure = Procs[I].Name;
    N.G.Criterion = true;
    const sem::Symbol &S = *ByName.at(Procs[I].Name).Sym;
    if (const auto *Sub = S.detailsIf<sem::SubprogramDetails>()) {
      for (const sem::Symbol *D : Sub->dummyArgs())
        if (D && isVariable(*D))
          N.G.Uses.insert(classOf(*D));
      if (Sub->isFunction())
        N.G.Uses.insert(classOf(Sub->result()));
    }
    N.G.Uses.insert(Globals.begin(), Globals.end());
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
      E.Criterion |= Sum.Criterion;
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
    slice::SliceResult R = slice::solveSlice(G);
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
bool EffectsWalker::Pre(const p::CallStmt &C) {
  S.call(C.call, E, false);
  return false;
}
bool EffectsWalker::Pre(const p::FunctionReference &F) {
  S.call(F.v, E, true);
  return false;
}

} // namespace

void fortran::sliceUnit(const SourceMap &SM, const std::string &MainText,
                        const CommunicationAnalysis &CA, const std::vector<ProcInfo> &Procs,
                        const p::Program &Prog, const std::function<bool(const p::Name &)> &Quiet,
                        UnitModel &Model, DiagnosticSink &Diags) {
  UnitModel Before = Model;
  try {
    FortranSlicer S(SM, MainText, CA, Procs, Prog, Quiet, Model);
    S.run();
  } catch (const Unsupported &U) {
    Model = std::move(Before);
    Diags.warning(SM.loc(U.Where),
                  "the skeleton trace probe keeps this file whole: the slice does not model " +
                      U.What,
                  "skeleton");
  }
}

} // namespace mpiete

// The whole program's skeleton at link time (WholeProgram.h): may-communicate over the program's
// call graph on Boost.Graph, and the re-slicing of the units with what it found.
#include "mpiete/tools/WholeProgram.h"

#include "mpiete/support/Diagnostics.h"
#include "mpiete/support/Process.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace mpiete {
namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

struct Reach : boost::default_bfs_visitor {
  std::vector<char> *Reached;
  template <class V, class G> void discover_vertex(V U, const G &) { (*Reached)[U] = 1; }
};

} // namespace

LinkSummary solveProgram(const std::vector<LinkSummary> &Units) {
  LinkSummary Program;
  Program.SummaryKind = LinkSummary::Kind::Program;
  std::map<std::string, int> Defined; // name -> index in Procs, or -1 when defined twice
  std::vector<ProcedureSummary> Procs;
  for (const LinkSummary &U : Units) {
    Program.Steered.insert(U.Steered.begin(), U.Steered.end());
    Program.DemandedGlobals.insert(U.DemandedGlobals.begin(), U.DemandedGlobals.end());
    for (const ProcedureSummary &P : U.Procedures) {
      auto [It, New] = Defined.try_emplace(P.Name, int(Procs.size()));
      if (New)
        Procs.push_back(P);
      else
        It->second = -1;
    }
  }
  // Vertices: the procedures, then one for everything no unit defines (it may communicate).
  // An edge callee -> caller: a search from what communicates reaches every caller that may.
  const size_t Unknown = Procs.size();
  Graph G(Procs.size() + 1);
  std::vector<size_t> Seeds{Unknown};
  for (size_t I = 0; I < Procs.size(); ++I) {
    if (Procs[I].Communicates)
      Seeds.push_back(I);
    for (const std::string &Callee : Procs[I].Calls) {
      auto It = Defined.find(Callee);
      boost::add_edge(It == Defined.end() || It->second < 0 ? Unknown : size_t(It->second), I, G);
    }
  }
  std::vector<char> Communicates(Procs.size() + 1, 0);
  Reach Vis;
  Vis.Reached = &Communicates;
  std::vector<boost::default_color_type> Colors(Procs.size() + 1, boost::white_color);
  boost::queue<size_t> Queue;
  boost::breadth_first_search(
      G, Seeds.begin(), Seeds.end(), Queue, Vis,
      boost::make_iterator_property_map(Colors.begin(), boost::get(boost::vertex_index, G)));
  // The kinds of messages each may send, through its callees: to a fixpoint (the sets only
  // grow, and are bounded by the kinds the program names).
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (ProcedureSummary &P : Procs)
      for (const std::string &Callee : P.Calls) {
        auto It = Defined.find(Callee);
        const size_t Before = P.SendKinds.size();
        if (It == Defined.end() || It->second < 0)
          P.SendKinds.insert(AnyKind);
        else
          P.SendKinds.insert(Procs[size_t(It->second)].SendKinds.begin(),
                             Procs[size_t(It->second)].SendKinds.end());
        Changed |= P.SendKinds.size() != Before;
      }
  }
  std::set<std::string> AddressTaken;
  std::map<std::string, std::set<unsigned>> Demands, Whole;
  std::map<std::string, FieldsByParam> Fields;
  for (const LinkSummary &U : Units) {
    AddressTaken.insert(U.AddressTaken.begin(), U.AddressTaken.end());
    for (const auto &[Name, Params] : U.Demands) {
      Demands[Name].insert(Params.begin(), Params.end());
      // A parameter demanded in some fields by every unit that demands it: their union; by
      // one unit whole: whole.
      auto F = U.DemandFields.find(Name);
      const FieldsByParam None;
      const FieldsByParam &Some = F == U.DemandFields.end() ? None : F->second;
      for (unsigned I : Params) {
        if (auto FI = Some.find(I); FI != Some.end())
          Fields[Name][I].insert(FI->second.begin(), FI->second.end());
        else
          Whole[Name].insert(I);
      }
    }
  }
  for (size_t I = 0; I < Procs.size(); ++I) {
    if (Defined[Procs[I].Name] < 0)
      continue;
    ProcedureSummary P = Procs[I];
    P.Communicates = Communicates[I] != 0;
    P.Calls.clear();
    P.CallersKnown = !AddressTaken.count(P.Name);
    P.DemandedParams = Demands[P.Name];
    P.DemandedFields.clear();
    for (const auto &[Param, Names] : Fields[P.Name])
      if (!Whole[P.Name].count(Param))
        P.DemandedFields[Param] = Names;
    Program.Procedures.push_back(std::move(P));
  }
  return Program;
}

} // namespace mpiete

// ---- the link step ----------------------------------------------------------------------------

namespace mpiete {
namespace {

namespace fs = std::filesystem;

struct Unit {
  WholeProgramUnit In;
  UnitRecipe Recipe;
  LinkSummary Built;   ///< the summary of the code that is linked (compile time)
  LinkSummary Current; ///< the latest (re-run) summary
  std::string Work;    ///< absolute prefix of its link-time files
  bool Resliced = false, Fallback = false;
};

/// Runs Argv in Dir; false on a failure (the command's own messages are on stderr).
bool runIn(const std::string &Dir, const std::vector<std::string> &Argv, bool Verbose) {
  std::error_code EC;
  const fs::path Cwd = fs::current_path(EC);
  fs::current_path(Dir, EC);
  if (EC)
    return false;
  if (Verbose)
    std::cerr << "+ (cd " << Dir << " && " << shellJoin(Argv) << ")\n";
  const int Rc = runProcess(Argv);
  fs::current_path(Cwd, EC);
  return Rc == 0;
}

/// The re-sliced skeleton's source: a C unit's .c, a Fortran unit's with the source's own
/// extension (it selects the source form and preprocessing).
std::string skeletonSource(const Unit &U) {
  return U.Work + ".skeleton" +
         (U.Recipe.Language == "c" ? std::string(".c")
                                   : fs::path(U.Recipe.Source).extension().string());
}

bool quietLoad(const std::string &Path, LinkSummary &Out) {
  std::ostringstream Ignored;
  DiagnosticSink Quiet(Ignored);
  return loadLinkSummary(Path, Out, Quiet);
}

} // namespace

bool linkWholeProgram(const std::vector<WholeProgramUnit> &Inputs, const std::string &OutPrefix,
                      const std::string &Instrumenter, const std::string &Tool, bool Verbose,
                      DiagnosticSink &Diags, WholeProgramSkeleton &Out) {
  std::error_code EC;
  const std::string Instr = fs::absolute(Instrumenter, EC).string();
  const std::string ProgramPath = fs::absolute(OutPrefix + ".program.summary", EC).string();
  auto perUnit = [&](const std::string &Why) {
    if (Verbose)
      std::cerr << Tool << ": skeleton sliced per unit: " << Why << "\n";
    return false;
  };
  std::vector<Unit> Units;
  std::set<std::string> Languages;
  for (const WholeProgramUnit &In : Inputs) {
    Unit U;
    U.In = In;
    U.Work =
        fs::absolute(OutPrefix + ".wp." + fs::path(In.Prefix).filename().string(), EC).string();
    if (!fs::exists(In.Prefix + ".skeleton.recipe") ||
        !loadUnitRecipe(In.Prefix + ".skeleton.recipe", U.Recipe, Diags))
      return perUnit("no recipe for " + In.Prefix);
    // C and Fortran units name their globals differently (a COMMON block's members by offset):
    // a program of both is sliced per unit.
    Languages.insert(U.Recipe.Language);
    if (Languages.size() > 1)
      return perUnit("the program mixes C and Fortran units: " + U.Recipe.Source);
    const bool Fortran = U.Recipe.Language == "fortran";
    if (In.Instrumented) {
      if (!fs::exists(In.Prefix + ".skeleton.summary") ||
          !loadLinkSummary(In.Prefix + ".skeleton.summary", U.Built, Diags))
        return perUnit("no summary for " + In.Prefix);
    } else if (Fortran && (!fs::exists(In.Prefix + ".skeleton.summary") ||
                           !quietLoad(In.Prefix + ".skeleton.summary", U.Built))) {
      // Every Fortran unit is analysed when it is compiled: one without a summary could not be.
      return perUnit("no summary for " + In.Prefix + " (Flang could not analyse it)");
    } else if (!fs::exists(In.Prefix + ".skeleton.summary") ||
               !quietLoad(In.Prefix + ".skeleton.summary", U.Built)) {
      // Built natively without Clang (no MPI call in its text): what it does is asked now,
      // unless its source changed since (its object would be of other code).
      const fs::path Src = fs::path(U.Recipe.Directory) / U.Recipe.Source;
      auto TS = fs::last_write_time(Src, EC);
      if (EC || TS > fs::last_write_time(In.Prefix + ".skeleton.recipe", EC))
        return perUnit(Src.string() + " changed since it was compiled");
      std::vector<std::string> Argv{Instr, "--summary-out=" + U.Work + ".summary",
                                    "--unit-path=" + U.Recipe.Source, "--no-warnings"};
      Argv.insert(Argv.end(), U.Recipe.Options.begin(), U.Recipe.Options.end());
      Argv.insert(Argv.end(), {U.Recipe.Source, "--"});
      Argv.insert(Argv.end(), U.Recipe.InstrumentFlags.begin(), U.Recipe.InstrumentFlags.end());
      if (!runIn(U.Recipe.Directory, Argv, Verbose) ||
          !loadLinkSummary(U.Work + ".summary", U.Built, Diags))
        return perUnit("no summary of " + U.Recipe.Source);
    }
    U.Current = U.Built;
    Units.push_back(std::move(U));
  }

  // What kept statements need across units (steered kinds, demands) starts empty and grows
  // round by round until the units' answers agree with the program's summary they were sliced
  // with: only that agreement makes the slices sound together (an intermediate round is not).
  // Starting from the per-unit answers instead would keep what justifies itself (a procedure's
  // buffer demanded because the data it sends is steered on, steered because demanded).
  // A round adds a step of a chain across units (a read, the demand it makes, the steering
  // it brings): a convergence loop whose data crosses units needs about ten.
  constexpr unsigned MaxRounds = 16;
  LinkSummary Previous;
  bool Agreed = false, Abandon = false;
  for (unsigned Round = 1; Round <= MaxRounds; ++Round) {
    std::vector<LinkSummary> Summaries;
    for (const Unit &U : Units) {
      Summaries.push_back(U.Current);
      if (Round == 1 && U.In.Instrumented) { // it will be re-sliced: start from nothing
        Summaries.back().Steered.clear();
        Summaries.back().Demands.clear();
        Summaries.back().DemandedGlobals.clear();
        Summaries.back().DemandFields.clear();
        for (ProcedureSummary &P : Summaries.back().Procedures) {
          P.ValueParams.clear(); // no parameter's value read yet (C: ValuesKnown)
          if (P.ValuesKnown) {   // nor its memory: the skeleton reads what it keeps
            P.ReadsParams.clear();
            P.ReadsFields.clear();
          }
        }
      }
    }
    LinkSummary Program = solveProgram(Summaries);
    if (Round > 1 && Program == Previous) {
      Agreed = true;
      break;
    }
    if (Verbose) { // each round's, to see how the rounds went
      std::ofstream OS(ProgramPath + "." + std::to_string(Round));
      writeLinkSummary(OS, Program);
    }
    {
      std::ofstream OS(ProgramPath);
      writeLinkSummary(OS, Program);
      if (!OS) {
        Diags.error({ProgramPath, 0, 0}, "cannot write file", "driver");
        return false;
      }
    }
    Out.Rounds = Round;
    for (Unit &U : Units) {
      if (U.Fallback)
        continue;
      // Every instrumented unit: its exported procedures' callers are known now (what they
      // demand), and other units' steered kinds may be new to it. A natively built unit only
      // when its effects depend on other units.
      if (!U.In.Instrumented && U.Current.ExternalCalls.empty())
        continue;
      std::vector<std::string> Argv{Instr, "--summary-out=" + U.Work + ".summary",
                                    "--program-summary=" + ProgramPath,
                                    "--unit-path=" + U.Recipe.Source, "--no-warnings"};
      if (U.In.Instrumented)
        Argv.push_back("--skeleton-out=" + skeletonSource(U));
      Argv.insert(Argv.end(), U.Recipe.Options.begin(), U.Recipe.Options.end());
      Argv.insert(Argv.end(), {U.Recipe.Source, "--"});
      Argv.insert(Argv.end(), U.Recipe.InstrumentFlags.begin(), U.Recipe.InstrumentFlags.end());
      // The unit keeps its per-unit skeleton: said as a warning or a note.
      auto fallBack = [&](bool Warning, const std::string &Why) {
        if (Warning)
          Diags.warning({U.Recipe.Source, 0, 0}, Why, "skeleton");
        else
          Diags.note({U.Recipe.Source, 0, 0}, Why, "skeleton");
        U.Fallback = true;
        U.Resliced = false;
        // A Fortran unit's summary reads only what its kept statements read: the others were
        // sliced for a skeleton of this unit that its per-unit one is not.
        Abandon |= U.Recipe.Language == "fortran";
      };
      LinkSummary Next;
      if (!runIn(U.Recipe.Directory, Argv, Verbose) ||
          !loadLinkSummary(U.Work + ".summary", Next, Diags)) {
        fallBack(true, "the whole-program skeleton of this file could not be made (see above); "
                       "its per-unit skeleton is linked instead");
        continue;
      }
      if (U.In.Instrumented && Next.ContentHash != U.Built.ContentHash) {
        fallBack(false, "this file (or a header it includes) changed since it was compiled: its "
                        "per-unit skeleton is linked; rebuild it for the whole-program skeleton");
        continue;
      }
      U.Current = std::move(Next);
      U.Resliced = U.In.Instrumented;
    }
    if (Abandon) {
      Diags.note({OutPrefix, 0, 0},
                 "a Fortran unit keeps its per-unit skeleton: so does every other unit of the "
                 "program",
                 "skeleton");
      return false;
    }
    Previous = std::move(Program);
  }

  if (!Agreed) {
    Diags.note({OutPrefix, 0, 0},
               "the whole-program skeleton did not settle in " + std::to_string(MaxRounds) +
                   " rounds: every unit's per-unit "
                   "skeleton is linked",
               "skeleton");
    return false;
  }
  bool Any = false;
  for (Unit &U : Units) {
    if (!U.Resliced)
      continue;
    std::vector<std::string> Argv = U.Recipe.Compile;
    Argv.insert(Argv.end(), {"-c", skeletonSource(U), "-o", U.Work + ".skeleton.o"});
    if (Argv.size() <= 4 || !runIn(U.Recipe.Directory, Argv, Verbose)) {
      const bool Fortran = U.Recipe.Language == "fortran";
      Diags.warning({U.Recipe.Source, 0, 0},
                    std::string("the whole-program skeleton of this file does not compile (see "
                                "above); its per-unit skeleton is linked instead") +
                        (Fortran ? ", and so is every other unit's" : "") +
                        ": please report this with the file",
                    "skeleton");
      if (Fortran) { // as for a unit that keeps its per-unit skeleton in a round
        Out.Skeletons.clear();
        Out.Removed.clear();
        return false;
      }
      continue;
    }
    Out.Skeletons[U.In.Prefix] = U.Work + ".skeleton.o";
    Out.Removed[U.In.Prefix] = skeletonSource(U) + ".removed";
    Any = true;
  }
  return Any;
}

} // namespace mpiete

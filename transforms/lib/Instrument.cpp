// The C instrumentation: every edit is an insertion or a one-token replacement at a position
// the frontend found, so the user's text, layout and line numbers survive.
#include "mpiete/transforms/Instrument.h"

#include "mpiete/support/Hash.h"

#include <algorithm>

namespace mpiete {
namespace {

std::string blockRef(uint32_t Index) { return "MPIETE_B(" + std::to_string(Index) + ")"; }

std::string quoted(const std::string &Path) {
  std::string Out = "\"";
  for (char C : Path) {
    if (C == '\\' || C == '"')
      Out += '\\';
    Out += C;
  }
  return Out + "\"";
}

void computeEdits(const Block &B, const ComputeEdits &E, Variant V, EditSet &Set) {
  std::string Id = blockRef(B.Index);
  if (E.WholeLoop) {
    // { unsigned long long mpiete_n_ = 0; [begin] for (...) { ++mpiete_n_; body } [end] }
    std::string Open = "{ unsigned long long mpiete_n_ = 0; ";
    if (V == Variant::Timing)
      Open += "mpiete_tm_begin(" + Id + "); ";
    Set.insert(E.LoopBegin, Open, EditOrder::Open);
    if (E.BodyIsCompound) {
      Set.insert(E.BodyBegin, " ++mpiete_n_;", EditOrder::Open);
    } else {
      Set.insert(E.BodyBegin, "{ ++mpiete_n_; ", EditOrder::Open);
      Set.insert(E.BodyEnd, " }", EditOrder::Close);
    }
    std::string Close = V == Variant::Trace ? " mpiete_tr_loop(" + Id + ", mpiete_n_); }"
                                            : " mpiete_tm_loop_end(" + Id + ", mpiete_n_); }";
    Set.insert(E.LoopEnd, Close, EditOrder::Close);
    return;
  }
  std::string Open = E.Braces ? "{ " : "";
  if (V == Variant::Trace) {
    Open += "mpiete_tr_block(" + Id + "); ";
    Set.insert(E.Begin, Open, EditOrder::Open);
    if (E.Braces)
      Set.insert(E.End, " }", EditOrder::Close);
    return;
  }
  Open += "mpiete_tm_begin(" + Id + "); ";
  Set.insert(E.Begin, Open, EditOrder::Open);
  Set.insert(E.End, " mpiete_tm_end(" + Id + ");" + (E.Braces ? " }" : ""), EditOrder::Close);
}

/// Loops with MPI calls and opaque ones have hooks in both variants, sampled loops in the
/// timing variant only, and there only when asked for: the trace variants run every
/// iteration, and the skeleton's removals may cover them.
bool hooked(const ComputeEdits &E, Variant V, bool SampleHooks) {
  return !E.SampledLoop || (V == Variant::Timing && SampleHooks);
}

/// A loop's iteration hook up to its argument list's ')'.
std::string iterationHook(const Block &B, const ComputeEdits &E) {
  // `(mpiete_iter)(...)` calls the function, not the macro that can leave the loop: a loop the
  // cap must not stop (it is left by return, goto or exit) is followed only. `mpiete_sample`
  // continues with the next iteration when the probe skips this one.
  return (E.SampledLoop  ? "mpiete_sample("
          : E.OpaqueLoop ? "mpiete_iter_opaque("
          : E.Leaves     ? "mpiete_iter("
                         : "(mpiete_iter)(") +
         blockRef(B.Index);
}

/// The hooks of a loop (segments): the iteration hook at the top of every iteration, the exit
/// hook after the loop, the loop braced so the exit hook stays in the loop's statement slot.
/// The body keeps its own braces inside new ones, so its declarations still come first in
/// their block (C89). Openings only: the closings go in reverse (loopClose).
void loopOpen(const Block &B, const ComputeEdits &E, EditSet &Set) {
  const std::string Hook = iterationHook(B, E);
  // A sampled loop's entry holds whether to ask the runtime at the next iteration
  // (MPIETE_SAMPLE_ENTRY, a declaration first in the new block).
  Set.insert(E.LoopBegin, E.SampledLoop ? "{ MPIETE_SAMPLE_ENTRY " : "{ ", EditOrder::Open);
  if (E.BodyIsCompound)
    Set.insert(E.BodyBegin, " " + Hook + "); {", EditOrder::Open);
  else
    Set.insert(E.BodyBegin, "{ " + Hook + "); ", EditOrder::Open);
}

/// The closings of a loop's hooks; an inner loop's close first where they meet.
void loopClose(const Block &B, const ComputeEdits &E, EditSet &Set) {
  Set.insert(E.BodyEnd, E.BodyIsCompound ? "}" : " }", EditOrder::Close);
  const char *Exit = E.SampledLoop  ? " mpiete_sample_exit("
                     : E.OpaqueLoop ? " mpiete_loop_exit_opaque("
                                    : " mpiete_loop_exit(";
  Set.insert(E.LoopEnd, Exit + blockRef(B.Index) + "); }", EditOrder::Close);
}

} // namespace

std::string_view toString(Variant V) { return V == Variant::Trace ? "trace" : "timing"; }

EditSet instrumentC(const UnitModel &Model, Variant V, bool SampleHooks) {
  EditSet Set;
  // The prelude keeps every later line at its original number and the user's file name, so
  // diagnostics, __FILE__ and __LINE__ are as in the original build.
  std::string Prelude = "#include \"mpiete/instrument.h\" /* mpiete " + std::string(toString(V)) +
                        " probe of " + Model.Source + " */\n";
  Prelude += "#define MPIETE_B(index) MPIETE_ID(0x" + toHex(Model.UnitId, 8) + "u, index)\n";
  Prelude += "#line 1 " + quoted(Model.Source) + "\n";
  Set.insert(0, Prelude, EditOrder::Open);

  for (const Block &B : Model.Blocks) {
    if (B.Compute < 0)
      continue;
    const ComputeEdits &E = Model.Computes[B.Compute];
    if (B.Kind != BlockKind::Loop)
      computeEdits(B, E, V, Set);
    else if (hooked(E, V, SampleHooks))
      loopOpen(B, E, Set);
  }
  // Inner loops come after outer ones in the model: closing in reverse nests them.
  for (auto It = Model.Blocks.rbegin(); It != Model.Blocks.rend(); ++It)
    if (It->Compute >= 0 && It->Kind == BlockKind::Loop &&
        hooked(Model.Computes[It->Compute], V, SampleHooks))
      loopClose(*It, Model.Computes[It->Compute], Set);
  for (const CallSite &S : Model.Sites) {
    Set.replace(S.Edits.CalleeBegin, S.Edits.CalleeEnd - S.Edits.CalleeBegin, S.RuntimeName);
    Set.insert(S.Edits.ArgsBegin, blockRef(S.FirstBlock) + (S.Edits.HasArgs ? ", " : ""),
               EditOrder::Open);
  }
  return Set;
}

std::optional<std::string> instrumentedText(const UnitModel &Model, const std::string &Text,
                                            Variant V, std::string &Error, bool SampleHooks) {
  return instrumentC(Model, V, SampleHooks).apply(Text, Error);
}

} // namespace mpiete

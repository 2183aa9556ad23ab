// The skeleton trace probe's edits (Skeleton.h): the slice decided, this only writes.
#include "mpiete/transforms/Skeleton.h"

#include "mpiete/transforms/FortranEdits.h"
#include "mpiete/transforms/Instrument.h"

#include <algorithm>

namespace mpiete {

EditSet skeletonC(const UnitModel &Model, const std::string &Text) {
  EditSet Set = instrumentC(Model, Variant::Trace);
  // A removed statement's own hooks go with it (a loop whose calls of other units' procedures
  // the whole program shows not to communicate keeps its opaque-loop hooks in the trace
  // variant; the skeleton removes the loop).
  for (const SkeletonRemoval &R : Model.SkeletonRemovals)
    if (R.Replacement.empty() && !R.Initializer && R.End <= Text.size() && R.Begin < R.End)
      Set.dropWithin(R.Begin, R.End);
  for (const SkeletonRemoval &R : Model.SkeletonRemovals) {
    if (R.End > Text.size() || R.Begin >= R.End)
      continue; // the model is of another text: the edit set reports nothing removed
    const auto Lines = std::count(Text.begin() + R.Begin, Text.begin() + R.End, '\n');
    Set.replace(R.Begin, R.End - R.Begin,
                (!R.Replacement.empty() ? R.Replacement
                 : R.Initializer        ? ""
                                        : ";") +
                    std::string(size_t(Lines), '\n'));
  }
  return Set;
}

std::optional<std::string> skeletonText(const UnitModel &Model, const std::string &Text,
                                        std::string &Error) {
  if (Model.Language == "fortran")
    return skeletonFortran(Model, Text, Error);
  return skeletonC(Model, Text).apply(Text, Error);
}

std::string skeletonRemovalList(const UnitModel &Model) {
  // The header counts every statement the slice judged (a removed loop counts with its body).
  std::string Out =
      "# " + Model.Source + ": " + std::to_string(Model.SliceRemovedStatements) + " of " +
      std::to_string(Model.SliceStatements) +
      " statements removed; message data kept: " + (Model.SliceKeepsMessageData ? "yes" : "no") +
      "\n";
  for (const SkeletonRemoval &R : Model.SkeletonRemovals)
    Out += Model.Source + ":" + std::to_string(R.Line) + ":" + std::to_string(R.Col) + ": " +
           R.Procedure + ": " + R.Text + "\n";
  return Out;
}

} // namespace mpiete

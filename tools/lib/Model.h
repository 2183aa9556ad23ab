// What lib/Model.cpp shares with the commands that replay a scaling model (surface,
// best-config, estimate --ranks): the communication structure re-learnt from a model's runs.
#ifndef MPIETE_TOOLS_LIB_MODEL_H
#define MPIETE_TOOLS_LIB_MODEL_H

#include "mpiete/scaling/CommStructure.h"
#include "mpiete/scaling/ModelFile.h"
#include "mpiete/support/Diagnostics.h"

#include <string>

namespace mpiete {

/// Re-learns the communication structure from the runs File names (their traces); false
/// (reported at the refused call site) when it does not reproduce every run.
bool learnModelStructure(const scaling::ScalingModelFile &File, DiagnosticSink &Diags,
                         scaling::CommStructure &Out);

/// Loads the scaling model at Path; false (reported) when it cannot be read or its
/// communication structure was refused for extrapolation (at the call site `mpiete model`
/// recorded).
bool loadExtrapolationModel(const std::string &Path, DiagnosticSink &Diags,
                            scaling::ScalingModelFile &Out);

} // namespace mpiete

#endif

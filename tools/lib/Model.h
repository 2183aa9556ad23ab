// What lib/Model.cpp shares with the commands that replay a scaling model (surface,
// best-config, estimate --ranks): the communication structure re-learnt from a model's runs,
// a machine's speed relative to the model's, and the run whose occurrence profiles apply.
#ifndef MPIETE_TOOLS_LIB_MODEL_H
#define MPIETE_TOOLS_LIB_MODEL_H

#include "mpiete/basedata/ClusterFile.h"
#include "mpiete/basedata/MachineFile.h"
#include "mpiete/estimator/Cluster.h"
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

/// The rank counts of the model's runs.
std::vector<int> measuredRanks(const scaling::ScalingModelFile &File);

/// The warning for a count that is no whole number at Ranks ranks and size Size
/// (CommStructure::fractionsAt): what the base runs never showed and what the prediction does.
std::string fractionText(const scaling::CommStructure::Fraction &F, int Ranks, double Size);

/// Warns at its call site of every such count at Ranks ranks and size Size, the text after
/// Whose (e.g. "the best configuration's ").
void warnFractions(const scaling::ScalingModelFile &File, const scaling::CommStructure &S,
                   int Ranks, double Size, const std::string &Whose, DiagnosticSink &Diags);

/// The call site B as the model's program's block map names it (file:line), or its block id.
std::string modelSiteName(const scaling::ScalingModelFile &File, estimator::BlockId B);

/// Why the model cannot predict P ranks at size W: a size its runs never varied
/// (ScalingModelFile::unmeasuredSize; Site left empty: the model file is at fault), or a rank
/// count the structure S, learnt from File's runs, cannot be generated at
/// (scaling::unmeasuredRankCount), with the call site as file:line in Site; empty when it can.
std::string unmeasuredRanks(const scaling::ScalingModelFile &File, const scaling::CommStructure &S,
                            int P, double W, std::string &Site);

/// How much longer the machine of the file Machine computes the model's segments than the
/// model's machine does: the executions-weighted sum of its measured segments over the model's
/// prediction of the same segments at the rank count it was measured with. A machine file
/// the model was built from, or Machine empty: 1. False (reported) when it holds none of them.
bool machineSpeed(const scaling::ScalingModelFile &File, const std::string &Machine,
                  DiagnosticSink &Diags, double &Speed);

/// The machine file of the model's largest run, whose occurrence profiles every replay of the
/// model applies (ScaledComputeModel::addOccurrenceProfiles); false, with a note, when it is
/// not readable (every occurrence then takes its segment's mean).
bool loadProfileRun(const scaling::ScalingModelFile &File, DiagnosticSink &Diags, MachineFile &Out,
                    std::string &Path);

/// The links of the cluster file Spec (read from ClusterPath) for a scaling model's replay
/// (estimator::clusterLinks, table models), with NetworkPath as the inter-node network when
/// the file names none ("" : none given). False (reported) on error.
bool scaledClusterLinks(const ClusterSpec &Spec, const std::string &ClusterPath,
                        const std::string &NetworkPath, DiagnosticSink &Diags,
                        estimator::ClusterLinks &Out);

} // namespace mpiete

#endif

// What the timing variant's transport (TokenMachine.cpp) tells the block timers
// (Timing.cpp): when to measure the timer overhead, which processor the
// ranks share, and how many ranks run at once.
#ifndef MPIETE_RUNTIME_TIMINGCONTROL_H
#define MPIETE_RUNTIME_TIMINGCONTROL_H

#include <cstdint>

namespace mpiete::timing {

/// Measures the overhead of an empty begin/end hook pair (the median of 1000),
/// as the timed interval of a block that does nothing. Called once the rank
/// runs alone on its processor.
void calibrate();
/// The measured overhead in nanoseconds (0 before calibrate()).
double overheadNanos();
/// The hook time a nested block leaks into the block around it (0 before calibrate()); it is
/// taken off the enclosing block once per nested block.
double nestedLeakNanos();
/// Token passing is on, every rank pinned to Cpu (-1: not pinned); written into
/// the output.
void setCpu(int Cpu);
/// How many ranks computed at once, each on its own processor (token 0's is setCpu's); written
/// into the output.
void setRanksPerNode(int K);
/// How a rank without the token waits (true: it spins on its processor; Pause false: without
/// PAUSE, MPIETE_WAIT=busy, the default; true: MPIETE_WAIT=spin); written into the output.
void setSpinWait(bool Spin, bool Pause);
/// Adds Nanos to the compute segment running now: the estimated time of a sampled loop's
/// skipped iterations and primers less the primers' own time (TimingSample.h), so the segment
/// stands for the whole loop. Negative when the primers took longer than their estimate.
void creditSegment(int64_t Nanos);

} // namespace mpiete::timing

#endif // MPIETE_RUNTIME_TIMINGCONTROL_H

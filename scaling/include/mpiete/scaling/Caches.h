// The data and unified cache sizes of the machine a tool runs on, where seed 001's steps are
// placed: from sysfs, else from the C library (CPUID), which virtual machines often leave as
// the only source.
#ifndef MPIETE_SCALING_CACHES_H
#define MPIETE_SCALING_CACHES_H

#include <string>
#include <vector>

namespace mpiete::scaling {

/// The data and unified caches under a sysfs cache directory (`.../cpu0/cache`: index*/type
/// and size), in bytes, smallest first, duplicates removed; none where it is not readable.
std::vector<double> sysfsCacheSizes(const std::string &Dir);

/// The level 1 data, level 2 and level 3 cache sizes the C library reports (sysconf, read from
/// CPUID on x86), smallest first; none where it reports none.
std::vector<double> libcCacheSizes();

/// This machine's caches: sysfs's under Dir, else the C library's. From says which
/// (Dir, or `sysconf` ), empty when neither has any.
std::vector<double> machineCacheSizes(const std::string &Dir, std::string &From);

} // namespace mpiete::scaling

#endif

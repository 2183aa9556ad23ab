// How a message is sent and which matching space it lives in: one definition for the runtime's
// transport, the trace format (one byte each in a Send record) and the estimator's events.
#ifndef MPIETE_SENDMODE_H
#define MPIETE_SENDMODE_H

#include <cstdint>

namespace mpiete {

/// MPI_Send / Ssend / Rsend / Bsend and their non-blocking starts. The values are the trace
/// format's bytes.
enum class SendMode : uint8_t { Standard = 0, Synchronous = 1, Ready = 2, Buffered = 3 };

/// The user's matching space, or the one private to the lowered collectives of a communicator
/// (so collective traffic never matches user receives). The values are the trace format's.
enum class Context : uint8_t { User = 0, Collective = 1 };

} // namespace mpiete

#endif // MPIETE_SENDMODE_H

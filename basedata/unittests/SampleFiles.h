// Hand-written base-data files in the layouts the probes write, trimmed: shared by the readers'
// tests (basedata/unittests) and the estimator's model tests (estimator/unittests).
#ifndef MPIETE_BASEDATA_UNITTESTS_SAMPLEFILES_H
#define MPIETE_BASEDATA_UNITTESTS_SAMPLEFILES_H

namespace mpiete::samples {

// The layout `mpiete probe-comm` writes.
inline const char *const NetworkText = R"(# mpiete communication base data (docs/probes.md)
format: mpiete-network
version: 1
class: inter-node
provenance: {tool: mpiete 0.1.0, date: 2026-11-21T00:00:00Z}
table:
  columns: [bytes, recv_s, recv_p10_s, recv_p90_s, isend_start_s, irecv_start_s, recv_arrived_s, repetitions]
  rows:
    - [0, 1.0e-6, 0, 0, 0, 0, 0, 10]
    - [100, 1.1e-6, 0, 0, 0, 0, 0, 10]
    - [200, 1.3e-6, 0, 0, 0, 0, 0, 10]
loggps:
  L: 1.0e-6
  o_s: 1.0e-8
  o_s_per_byte: 0
  o_r: 2.0e-8
  o_r_per_byte: 1.0e-11
  g: 4.0e-9
  G: 1.0e-9
  G_eager: 5.0e-10
  S: 150
)";

// The layout `mpiete probe-compute` writes (version 1).
inline const char *const MachineText = R"(# mpiete compute base data
format: mpiete-compute
version: 1
provenance: {program: ./app.timing, ranks: 2}
timer_overhead_seconds: 2.0e-8
ranks:
  - rank: 0
    timer_overhead_seconds: 2.0e-8
    blocks:
      - {id: "0aa758c0:3", kind: block, executions: 10, mean_seconds: 1.0e-7, stddev_seconds: 0, min_seconds: 0, max_seconds: 0}
      - {id: "0aa758c0:7", kind: loop, executions: 2, iterations: 2000, mean_seconds: 2.5e-9, stddev_seconds: 0, min_seconds: 0, max_seconds: 0}
  - rank: 1
    timer_overhead_seconds: 2.0e-8
    blocks:
      - {id: "0aa758c0:3", kind: block, executions: 10, mean_seconds: 2.0e-7, stddev_seconds: 0, min_seconds: 0, max_seconds: 0}
)";

} // namespace mpiete::samples

#endif

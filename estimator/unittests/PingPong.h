// Test helper shared by the estimator's and the driver's tests: a ping-pong of two ranks
// written as trace files by the runtime's own TraceWriter.
#ifndef MPIETE_ESTIMATOR_UNITTESTS_PINGPONG_H
#define MPIETE_ESTIMATOR_UNITTESTS_PINGPONG_H

#include "TraceWriter.h"
#include "mpiete/trace/TraceReader.h"

#include <filesystem>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

namespace mpiete::pingpong {

inline constexpr uint32_t Unit = 0x0aa758c0;
constexpr mpiete_site_t id(uint32_t I) { return MPIETE_ID(Unit, I); }

/// The directories tempDir() made, removed when the test program ends.
struct TempDirs {
  std::vector<std::filesystem::path> Paths;
  ~TempDirs() {
    std::error_code Ignored;
    for (const auto &P : Paths)
      std::filesystem::remove_all(P, Ignored);
  }
};

inline std::string tempDir(const char *Name) {
  static TempDirs Made;
  auto Dir = std::filesystem::temp_directory_path() /
             ("mpiete-est-test-" + std::to_string(::getpid()) + "-" + Name);
  std::filesystem::remove_all(Dir);
  std::filesystem::create_directories(Dir);
  Made.Paths.push_back(Dir);
  return Dir.string();
}

/// An MPI_Send / MPI_Recv ping-pong of 100 bytes between two ranks, as the trace probe
/// records it (split starts and waits), with a compute block on rank 0 and one after Finalize.
inline void writePingPong(const std::string &Dir) {
  for (int Rank = 0; Rank < 2; ++Rank) {
    auto W = std::make_unique<TraceWriter>();
    W->enable(Dir.c_str());
    W->start(Rank, 2);
    W->init(id(1));
    int Peer = 1 - Rank;
    if (Rank == 0) {
      W->block(id(3));
      W->send(id(10), Peer, 0, 0, 100, trace::SendMode::Standard, trace::Context::User);
      W->wait(id(11), trace::WaitOp::Wait, 1);
      W->sendCompleted(1);
      W->commFree(id(12), 77); // bookkeeping the estimator skips
      W->recv(id(20), trace::AnySource, 0, 0, 100, trace::Context::User);
      W->wait(id(21), trace::WaitOp::Wait, 1);
      W->recvCompleted(2, 1, 0, 100);
    } else {
      W->recv(id(20), 0, 0, 0, 100, trace::Context::User);
      W->wait(id(21), trace::WaitOp::Wait, 1);
      W->recvCompleted(1, 0, 0, 100);
      W->wait(id(22), trace::WaitOp::Test, 0);
      W->send(id(10), Peer, 0, 0, 100, trace::SendMode::Standard, trace::Context::User);
      W->wait(id(11), trace::WaitOp::Wait, 1);
      W->sendCompleted(2);
    }
    W->finalize(id(2));
    W->block(id(3));
    W->finish();
  }
}

} // namespace mpiete::pingpong

#endif

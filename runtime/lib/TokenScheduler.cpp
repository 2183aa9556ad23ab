// The token machine's scheduler: who holds the tokens, handing them on, sleeping without one,
// and pinning a running rank to its token's processor.
#include "TimingControl.h"
#include "TokenMachine.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace mpiete::transport::token {
namespace {

bool canRun(int R) {
  const RankSlot &S = slot(R);
  return S.State == RankState::Ready ||
         ((S.State == RankState::Blocked || S.State == RankState::PollWait) &&
          S.Epoch != S.WaitEpoch);
}

/// Whether rank R may hold token T: any token, unless each token is a processor's
/// (TokenPerCpu), whose ranks hold only their own.
bool mayHold(int R, int T) { return !M.TokenPerCpu || M.tokenOf(R) == T; }

/// The first rank after this one (cyclically) that can run and may hold token T (any token if
/// T < 0), or -1. Loose: also a rank that polled in vain (PollWait), which is what it is while
/// no rank holds a token.
int nextRunnable(bool Loose, int T = -1) {
  for (int I = 1; I < M.N; ++I) {
    const int R = (M.Me + I) % M.N;
    if ((T < 0 || mayHold(R, T)) && (canRun(R) || (Loose && slot(R).State == RankState::PollWait)))
      return R;
  }
  return -1;
}

/// Gives idle token T to rank R and wakes it (unless R is this rank, which is awake).
void giveToken(int R, int T) {
  RankSlot &S = slot(R);
  S.State = RankState::Running;
  S.Token = T;
  M.H->TokenHolder[T] = R;
  M.H->HeldTokens += 1;
  setBusyCpu(S.Cpu);
  if (R != M.Me)
    wake(R);
}

/// Once no rank holds a token: every communicator call whose members have all arrived
/// starts; its members run the PMPI call together (state Collective, woken without a token).
void startCommCalls() {
  Header &H = *M.H;
  H.Draining = 0;
  for (CollSlot &S : H.Colls) {
    if (!S.Used || S.Started || S.Arrived < S.Size)
      continue;
    S.Started = 1;
    S.Remaining = S.Size;
    H.ActiveColls += 1;
    for (int R = 0; R < M.N; ++R) {
      RankSlot &W = slot(R);
      if (W.State != RankState::Parked || W.Wait.CommId != S.CommId)
        continue;
      W.State = RankState::Collective;
      if (R != M.Me)
        wake(R);
    }
  }
}

} // namespace

/// Pins this process to Cpu (the processor of the token it holds), unless MPIETE_CPU=none.
void pinToCpu(int Cpu) {
  if (Cpu < 0)
    return;
  cpu_set_t Set;
  CPU_ZERO(&Set);
  CPU_SET(Cpu, &Set);
  if (sched_setaffinity(0, sizeof Set, &Set) != 0)
    std::fprintf(stderr, "mpiete: rank %d: warning: cannot pin to CPU %d: %s\n", M.Me, Cpu,
                 std::strerror(errno));
  M.PinnedCpu = Cpu;
}

int firstCpu() {
  const char *Env = std::getenv("MPIETE_CPU");
  if (Env != nullptr && std::strcmp(Env, "none") == 0)
    return -1;
  if (Env != nullptr && Env[0] != '\0')
    return static_cast<int>(envNumber("MPIETE_CPU", 0));
  cpu_set_t Set;
  CPU_ZERO(&Set);
  if (sched_getaffinity(0, sizeof Set, &Set) == 0)
    for (int C = 0; C < CPU_SETSIZE; ++C)
      if (CPU_ISSET(C, &Set))
        return C;
  return -1;
}

/// The placement without MPIETE_PIN: a processor per rank, as in the real run, where no other
/// rank's computation passes through a rank's private caches between two of its segments; chosen
/// from bench/overhead's whole table (docs/token-passing.md, "Processors with one token"). With
/// k > 1 tokens each rank stays on its token's processor: following the tokens, memory-bound
/// segments took up to 1.86 times the original's compute at 4 ranks on 2 (session 57).
constexpr bool DefaultPinPerRank = true;

bool pinPerRank() {
  const char *Env = std::getenv("MPIETE_PIN");
  if (Env == nullptr || Env[0] == '\0')
    return DefaultPinPerRank;
  if (std::strcmp(Env, "rank") == 0)
    return true;
  if (std::strcmp(Env, "token") == 0)
    return false;
  fatal("MPIETE_PIN=%s: must be 'rank' (each rank stays on a processor: its own, or with k > 1 "
        "tokens its token's) or 'token' (every rank on the processor of the token it holds)",
        Env);
}

int rankCpu(const cpu_set_t &JobSet, int First, int Me) {
  if (First < 0)
    return -1;
  const int Count = CPU_COUNT(&JobSet);
  if (Count == 0)
    return First;
  // The n processors from First on, wrapping round: rank Me takes the (Me mod n)-th.
  int Want = Me % Count;
  for (int I = 0; I < CPU_SETSIZE; ++I) {
    const int C = (First + I) % CPU_SETSIZE;
    if (CPU_ISSET(C, &JobSet) && Want-- == 0)
      return C;
  }
  return First;
}

/// Rank 0: the processor of each of the K tokens. Token 0's is firstCpu(); token i's the i-th
/// one from there on that some rank of the job may use (JobSet: the union of their affinity
/// masks, as a launcher may bind each rank to one core), so the K running ranks never share a
/// processor. All -1 with MPIETE_CPU=none (no pinning).
void chooseCpus(int K, const cpu_set_t &JobSet, int *Cpus) {
  for (int T = 0; T < K; ++T)
    Cpus[T] = -1;
  const int First = firstCpu();
  if (First < 0)
    return;
  Cpus[0] = First;
  int Found = 1;
  for (int C = First + 1; C < CPU_SETSIZE && Found < K; ++C)
    if (CPU_ISSET(C, &JobSet))
      Cpus[Found++] = C;
  if (Found < K)
    fatal("%d ranks per node need %d processors, but this job may use only %d from processor "
          "%d on (see the affinity mask, MPIETE_CPU and the launcher's binding options)",
          K, K, Found, First);
}

/// Holding a token, the rank runs on that token's processor.
void moveToTokenCpu() {
  const int T = self().Token;
  if (!M.OwnCpu && T >= 0 && M.H->Cpus[T] != M.PinnedCpu)
    pinToCpu(M.H->Cpus[T]);
}

/// The default with one token and a processor per rank: a rank without the token keeps its
/// processor busy (an idle-priority spinner, below), as a waiting rank busy-polls inside MPI in
/// the real run (Open MPI's and MPICH's default). A sleeping rank's processor idles, which the
/// real run's never does (docs/token-passing.md, "Waiting ranks"). With more ranks than
/// processors a spinner keeps its processor busy only while no rank computes there (BusyCpu).
constexpr bool DefaultSpinWait = true;

/// The spinner polls without PAUSE (MPIETE_WAIT=busy, the default since session 55), as a rank
/// polling MPI's queues does; MPIETE_WAIT=spin adds PAUSE, as a spin lock does. Under KVM a long
/// PAUSE loop makes the vCPU exit to the host (pause-loop exiting), and on this project's AMD
/// host the computing rank's segments then ran 10-15% longer than the real run's (bench/overhead
/// --wait spin,busy; docs/token-passing.md, "Waiting ranks").
constinit bool SpinnerPauses = false;

void chooseWaiting(const cpu_set_t &JobSet) {
  const int Processors = CPU_COUNT(&JobSet);
  // Only where each rank stays on a processor of its own choosing (not the token's processor,
  // not k > 1 tokens). With more ranks than processors another rank may compute on the
  // spinner's processor, where even an idle-priority thread gets a sliver: the spinner stops
  // once it sees a rank of its processor holding the token (spinnerMain).
  const bool OwnProcessor = M.OwnCpu && M.H->NTokens == 1;
  bool Spin = DefaultSpinWait && OwnProcessor;
  const char *Env = std::getenv("MPIETE_WAIT");
  if (Env != nullptr && Env[0] != '\0') {
    const bool Busy = std::strcmp(Env, "busy") == 0;
    if (std::strcmp(Env, "sleep") == 0)
      Spin = false;
    else if (std::strcmp(Env, "spin") != 0 && !Busy)
      fatal("MPIETE_WAIT=%s: must be 'busy' (a rank without the token keeps its own processor "
            "busy), 'spin' (the same with PAUSE) or 'sleep'",
            Env);
    else if (!OwnProcessor)
      fatal("MPIETE_WAIT=%s needs ranks that stay on processors of their own (MPIETE_PIN=rank "
            "and one token: %d ranks, %d tokens, %d processors per rank placement), or a "
            "waiting rank would take the computing rank's processor",
            Env, M.N, M.H->NTokens, M.OwnCpu ? Processors : 0);
    else
      Spin = true;
    SpinnerPauses = !Busy;
  }
  M.SpinWait = Spin;
  timing::setSpinWait(Spin, SpinnerPauses);
}

namespace {

// The spinner: a thread of this rank, on its processor, at SCHED_IDLE, that busy-polls while the
// rank waits for the token. The rank itself sleeps in sem_wait as before and is woken by the
// post at once (a waking thread preempts an idle-policy one); the processor never idles, as
// under MPI's polling. At SCHED_IDLE the spinner runs only when nothing else is runnable on
// the processor: on a loaded machine other jobs take it as if the rank slept (a spinning rank
// of normal priority took its fair share and pushed them onto the computing rank's processor:
// bench/overhead, transpose under load, 7.2 s of segments against 5.0 s sleeping). It polls a
// flag of this process (and BusyCpu, below), never the rest of the shared segment (unmapped at
// MPI_Finalize), and blocks in a semaphore of its own while the rank computes.
// With more ranks than processors (rank i on processor i mod n) another rank of the job may get
// the token on the spinner's processor. The spinner then stops (back to its semaphore) as soon
// as it runs and sees that in BusyCpu, the only thing it reads of the segment (its first page,
// kept mapped after MPI_Finalize): it takes at most one sliver from that rank's segment rather
// than one every few milliseconds. The rank that gives the token away next on that processor
// starts its own spinner there.
constinit std::atomic<bool> RankWaits{false};
sem_t SpinnerGo;
constinit bool SpinnerStarted = false;
constinit std::atomic<int> SpinnerState{0}; // 0 starting, 1 at SCHED_IDLE, else its errno
constinit const int *BusyCpu = nullptr;     // &Header::BusyCpu
constinit int SpinnerCpu = -1;              // the rank's own processor

/// True while the spinner should keep the processor busy: the rank waits, and no rank of the
/// job computes on this processor.
inline bool keepBusy() {
  return RankWaits.load(std::memory_order_relaxed) &&
         __atomic_load_n(BusyCpu, __ATOMIC_RELAXED) != SpinnerCpu;
}

void *spinnerMain(void *) {
  // glibc's thread attributes take no SCHED_IDLE: the thread sets it on itself (Linux: 0 is the
  // calling thread), before it ever spins.
  sched_param P{};
  SpinnerState.store(sched_setscheduler(0, SCHED_IDLE, &P) == 0 ? 1 : errno);
  if (SpinnerState.load() != 1)
    return nullptr;
  for (;;) {
    while (sem_wait(&SpinnerGo) != 0) {
    }
    if (SpinnerPauses) {
      while (keepBusy()) {
#if defined(__x86_64__) || defined(__i386__)
        _mm_pause();
#endif
      }
    } else {
      while (keepBusy()) {
      }
    }
  }
  return nullptr;
}

/// Starts the spinner on this rank's processor (it inherits the rank's pinning); false, with a
/// warning, if the system refuses an idle-policy thread (the rank then just sleeps).
bool startSpinner() {
  BusyCpu = &M.H->BusyCpu;
  SpinnerCpu = M.PinnedCpu;
  if (sem_init(&SpinnerGo, 0, 0) != 0)
    fatal("sem_init failed: %s", std::strerror(errno));
  pthread_attr_t A;
  pthread_attr_init(&A);
  pthread_attr_setstacksize(&A, 256 * 1024);
  pthread_t T;
  int Err = pthread_create(&T, &A, spinnerMain, nullptr);
  pthread_attr_destroy(&A);
  if (Err == 0) {
    pthread_detach(T);
    while (SpinnerState.load() == 0)
      sched_yield(); // the spinner is on this processor too: let it run
    Err = SpinnerState.load() == 1 ? 0 : SpinnerState.load();
  }
  if (Err != 0) {
    std::fprintf(stderr,
                 "mpiete: rank %d: warning: cannot start the idle-priority spinner (%s): "
                 "a waiting rank sleeps\n",
                 M.Me, std::strerror(Err));
    return false;
  }
  return true;
}

} // namespace

/// Sleeps (without the mutex) until another rank posts this rank's semaphore: it was given a
/// token, a communicator call starts, or the job ends. Holding a token, the rank moves to that
/// token's processor.
void sleepForToken() {
  unlockSegment();
  if (M.SpinWait && !SpinnerStarted) {
    SpinnerStarted = true; // once, after init has pinned the rank: the spinner inherits it
    M.SpinWait = startSpinner();
    timing::setSpinWait(M.SpinWait, SpinnerPauses);
  }
  if (M.SpinWait) {
    RankWaits.store(true, std::memory_order_relaxed);
    if (sem_post(&SpinnerGo) != 0)
      fatal("sem_post failed: %s", std::strerror(errno));
  }
  while (sem_wait(&self().Wake) != 0) {
    if (errno != EINTR)
      fatal("sem_wait failed: %s", std::strerror(errno));
  }
  RankWaits.store(false, std::memory_order_relaxed);
  lockSegment();
  const RankState St = self().State;
  if (self().Token < 0 && St != RankState::Collective && St != RankState::Finished)
    fatal("internal error: woken without a token (state %d)", static_cast<int>(St));
  moveToTokenCpu();
}

void wake(int R) {
  if (sem_post(&slot(R).Wake) != 0)
    fatal("sem_post failed: %s", std::strerror(errno));
}

void progressMade() {
  M.H->Epoch += 1;
  M.H->FruitlessPolls = 0;
}

/// Gives the idle tokens to ranks that can run, searching cyclically from rank From: after a
/// message made a waiting rank runnable, or after communicator calls. Never with k = 1 while a
/// rank runs (its token is the only one).
void fillIdleTokens(int From) {
  Header &H = *M.H;
  if (H.HeldTokens == H.NTokens || H.Draining != 0 || H.ActiveColls != 0)
    return;
  int Next = From;
  for (int T = 0; T < H.NTokens && H.HeldTokens < H.NTokens; ++T) {
    if (H.TokenHolder[T] >= 0)
      continue;
    int R = -1;
    for (int I = 0; I < M.N && R < 0; ++I)
      if (canRun((Next + I) % M.N) && mayHold((Next + I) % M.N, T))
        R = (Next + I) % M.N;
    if (R < 0) {
      if (M.TokenPerCpu)
        continue; // another processor's ranks may still run
      return;
    }
    giveToken(R, T);
    Next = R + 1;
  }
}

/// This rank gives up its token (its state already says why): to the next rank that can run,
/// else the token goes idle. Once no rank holds a token, the communicator calls waiting for
/// that start; if there are none, nobody can ever run again: a deadlock, reported. Does not
/// sleep.
void releaseToken() {
  Header &H = *M.H;
  RankSlot &S = self();
  const int T = S.Token;
  if (T < 0)
    return;
  S.Token = -1;
  H.TokenHolder[T] = -1;
  H.HeldTokens -= 1;
  setBusyCpu(-1); // until giveToken names the next holder
  if (H.Draining == 0) {
    const int R = nextRunnable(H.HeldTokens == 0, M.TokenPerCpu ? T : -1);
    if (R >= 0) {
      giveToken(R, T);
      return;
    }
    // Tokens of processors: the others are idle only while none of their ranks can run, but
    // with no token held any more their pollers may (Loose), on their own processors.
    if (M.TokenPerCpu && H.HeldTokens == 0) {
      const int P = nextRunnable(/*Loose=*/true);
      if (P >= 0) {
        giveToken(P, M.tokenOf(P));
        return;
      }
    }
  }
  if (H.HeldTokens == 0) {
    if (H.Draining != 0)
      startCommCalls();
    else
      reportDeadlock();
  }
}

/// At the start of a transport call: communicator calls wait for every token, so a running
/// rank gives its token back and sleeps until they are done (k > 1 only: with one token the
/// last member to arrive holds it).
void yieldToCommCalls() {
  if (M.H->Draining == 0 || self().Token < 0)
    return;
  self().State = RankState::Ready;
  releaseToken();
  sleepForToken();
}

/// Gives up the token until something arrives for this rank; a state where
/// nobody can run any more is a deadlock, reported and fatal.
void blockUntilArrival() {
  RankSlot &S = self();
  S.State = RankState::Blocked;
  S.WaitEpoch = S.Epoch;
  releaseToken();
  sleepForToken();
}

/// After a poll that found nothing: lets the other ranks run once (a polling
/// loop must not starve them). Returns when this rank holds a token again.
void yieldAfterFailedPoll() {
  Header &H = *M.H;
  RankSlot &S = self();
  H.FruitlessPolls += 1;
  if (H.FruitlessPolls > M.PollLimit) {
    S.State = RankState::Ready;
    reportDeadlock();
  }
  if (H.Draining != 0) {
    S.State = RankState::Ready;
    releaseToken();
    sleepForToken();
    return;
  }
  if (H.HeldTokens == 1 && M.TokenPerCpu) {
    // No other rank runs, and each token is a processor's: a rank of this processor that can
    // run (a poller too) gets the token, and this one sleeps; else a rank of another processor
    // gets that processor's idle token and both run; else poll again at once.
    S.State = RankState::Ready;
    if (nextRunnable(/*Loose=*/true, S.Token) >= 0) {
      releaseToken(); // to that rank, the first one it looks for
      sleepForToken();
      return;
    }
    S.State = RankState::Running;
    if (const int R = nextRunnable(/*Loose=*/true); R >= 0)
      giveToken(R, M.tokenOf(R));
    return;
  }
  if (H.HeldTokens == 1) {
    // No other rank runs (always so with one token): hand the token to the next rank that
    // can run, a poller too, or poll again at once if there is none.
    S.State = RankState::Ready;
    const int R = nextRunnable(/*Loose=*/true);
    if (R < 0) {
      S.State = RankState::Running;
      return;
    }
    releaseToken(); // to R: the only runnable candidate it looks for, as nothing changed
    sleepForToken();
    return;
  }
  // Other ranks run (k > 1): the token goes to a rank that can run, and this one sleeps until
  // something arrives for it or until no rank runs any more (then it counts as ready again).
  // Two pollers never hand a token back and forth while another rank computes.
  S.State = RankState::PollWait;
  S.WaitEpoch = S.Epoch;
  releaseToken();
  sleepForToken();
}

} // namespace mpiete::transport::token

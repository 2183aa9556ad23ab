// The trace writer's repeat compression: the loop hooks' frames and the detector of repeated
// call sequences (TraceWriter.h says how they fit together; docs/trace-size.md what they gain).
#include "TraceWriter.h"

#include <cstring>

namespace mpiete {

namespace {

/// FNV-1a: spans are a few dozen bytes, and a collision only costs a failed comparison.
uint64_t hashBytes(const unsigned char *P, size_t N) {
  uint64_t H = 0xcbf29ce484222325ULL;
  for (size_t I = 0; I < N; ++I)
    H = (H ^ P[I]) * 0x100000001b3ULL;
  return H;
}

} // namespace

//===-- Frames: shared by the hooks and the detector ----------------------------------------===//

void TraceWriter::shiftFrames(size_t Pos, size_t N, size_t First) {
  // Bytes were inserted at Pos: the held iterations of the hook frames from First up above it
  // move up.
  for (size_t I = First; I < Depth; ++I) {
    LoopFrame &F = Frames[I];
    if (!F.Claim)
      continue;
    if (F.HasPrev && F.Prev >= Pos) {
      F.Prev += N;
      ++F.PrevRecords;
    }
    if (F.Cur >= Pos) {
      F.Cur += N;
      ++F.CurRecords;
    }
  }
}

void TraceWriter::insertRepeat(LoopFrame &F) {
  unsigned char Rec[RepeatRoom];
  size_t N = 0;
  Rec[N++] = static_cast<unsigned char>(trace::Tag::Repeat);
  N += trace::putVarint(Rec + N, F.Count);
  N += trace::putVarint(Rec + N, F.Cur - F.Prev);
  const size_t At = F.Cur;
  std::memmove(Buf + At + N, Buf + At, Len - At);
  std::memcpy(Buf + At, Rec, N);
  Len += N;
  F.Cur += N;
  ++F.CurRecords;
  ++Records;
  F.Count = 0;
  if (&F == &BlockAuto)
    shiftSpans(At, N);
  if (&F == &Auto || &F == &BlockAuto)
    shiftFrames(At, N);
  else
    for (size_t I = 0; I < Depth; ++I)
      if (&Frames[I] == &F) {
        // Only the frames above F hold bytes past its previous iteration.
        shiftFrames(At, N, I + 1);
        break;
      }
}

void TraceWriter::endIteration(LoopFrame &F) {
  const size_t CurLen = Len - F.Cur;
  if (F.HasPrev && CurLen == F.Cur - F.Prev &&
      std::memcmp(Buf + F.Prev, Buf + F.Cur, CurLen) == 0) {
    // A copy of the previous iteration (an empty one is not worth counting).
    if (CurLen != 0) {
      Len = F.Cur;
      Records = F.CurRecords;
      ++F.Count;
    }
    F.Misses = 0;
  } else {
    if (F.Count > 0)
      insertRepeat(F);
    if (F.HasPrev && F.Misses < 255)
      ++F.Misses;
    F.Prev = F.Cur;
    F.PrevRecords = F.CurRecords;
    F.HasPrev = true;
  }
  F.Cur = Len;
  F.CurRecords = Records;
}

void TraceWriter::closeFrame(LoopFrame &F) {
  if (!F.Claim)
    return;
  endIteration(F);
  if (F.Count > 0)
    insertRepeat(F);
}

void TraceWriter::release(LoopFrame &F) {
  if (F.Count > 0)
    insertRepeat(F);
  F.Claim = false;
  F.HasPrev = false;
}

//===-- The loop hooks ----------------------------------------------------------------------===//

void TraceWriter::iter(mpiete_site_t Loop) {
  if (!HooksOn)
    return;
  makeHookRoom();
  size_t I = Depth;
  while (I > 0 && Frames[I - 1].Loop != Loop)
    --I;
  if (I == 0) {
    // Not open: its first iteration starts.
    if (Depth == MaxFrames)
      return;
    Frames[Depth++] = LoopFrame{Loop, 0, Len, Records, 0, false, true, false, 0};
    return;
  }
  // Frames above it belong to loops left without an exit hook (break, return, goto).
  while (Depth > I)
    closeFrame(Frames[--Depth]);
  LoopFrame &F = Frames[I - 1];
  if (!F.Claim) {
    if (!F.Dormant)
      F = LoopFrame{Loop, 0, Len, Records, 0, false, true, false, 0};
    return;
  }
  endIteration(F);
  if (DetectOn && F.Misses >= MaxMisses) {
    // Its iterations keep differing (a tag that cycles, a step that alternates): leave the
    // bytes to the detector, which compares more than neighbours. The count is 0 here.
    F.Claim = false;
    F.HasPrev = false;
    F.Dormant = true;
  }
}

void TraceWriter::loopExit(mpiete_site_t Loop) {
  if (!HooksOn)
    return;
  makeHookRoom();
  size_t I = Depth;
  while (I > 0 && Frames[I - 1].Loop != Loop)
    --I;
  if (I == 0)
    return; // never iterated (or too deep to be compressed)
  while (Depth >= I)
    closeFrame(Frames[--Depth]);
}

//===-- The detector of repeated call sequences ---------------------------------------------===//

void TraceWriter::restartHistory() {
  // Called where a call ends: a record boundary.
  HistLost = false;
  HistFirst = Spans + 1;
  uint64_t EndRecords = 0;
  const size_t End = finalEnd(EndRecords);
  Hist[Spans % HistSize] = SpanEnd{0, Drained + End, EndRecords};
  CutAt = Drained + End;
  Period = 0;
  Run = 0;
}

uint64_t TraceWriter::oldestKept() const {
  if (HistLost)
    return Drained + Len;
  // The earliest boundary a period of at most MaxPeriod spans can still start at.
  uint64_t Lo = HistFirst - 1;
  if (Spans > 2 * MaxPeriod && Spans - 2 * MaxPeriod > Lo)
    Lo = Spans - 2 * MaxPeriod;
  return Hist[Lo % HistSize].Pos;
}

void TraceWriter::closeAuto() {
  if (AutoOpen && Auto.Claim && Auto.Count > 0)
    insertRepeat(Auto);
  AutoOpen = false;
}

size_t TraceWriter::finalEnd(uint64_t &EndRecords) const {
  // The lowest hook frame holding bytes holds the earliest (frames are nested): what lies before
  // its previous iteration changes no more.
  for (size_t I = 0; I < Depth; ++I) {
    const LoopFrame &F = Frames[I];
    if (!F.Claim)
      continue;
    EndRecords = F.HasPrev ? F.PrevRecords : F.CurRecords;
    return F.HasPrev ? F.Prev : F.Cur;
  }
  EndRecords = Records;
  return Len;
}

void TraceWriter::dropHeld(size_t From, size_t To, uint64_t Dropped) {
  // Removes Buf[From, To) (Dropped records), all final; the hook frames' held bytes above it
  // move down.
  const size_t N = To - From;
  std::memmove(Buf + From, Buf + To, Len - To);
  Len -= N;
  Records -= Dropped;
  for (size_t I = 0; I < Depth; ++I) {
    LoopFrame &F = Frames[I];
    if (!F.Claim)
      continue;
    if (F.HasPrev) {
      F.Prev -= N;
      F.PrevRecords -= Dropped;
    }
    F.Cur -= N;
    F.CurRecords -= Dropped;
  }
}

void TraceWriter::spanEnd() {
  // A span ends where bytes became final since the last span: nothing before End changes.
  uint64_t EndRecords = 0;
  size_t End = finalEnd(EndRecords);
  if (AutoOpen) {
    if (Drained + End <= CutAt)
      return; // nothing new is final
    CutAt = Drained + End;
    if (Auto.Claim && ++AutoSpans < AutoPeriod)
      return;
    AutoSpans = 0;
    if (Auto.Claim) {
      makeHookRoom();
      End = finalEnd(EndRecords);
      if (Auto.Claim && End - Auto.Cur == Auto.Cur - Auto.Prev &&
          std::memcmp(Buf + Auto.Prev, Buf + Auto.Cur, End - Auto.Cur) == 0) {
        // One more copy: dropped, with the hook frames' held bytes moved down onto it.
        dropHeld(Auto.Cur, End, EndRecords - Auto.CurRecords);
        CutAt = Drained + Auto.Cur;
        ++Auto.Count;
        return;
      }
    }
    // The sequence stopped repeating (its Repeat is written) or drain() gave it up. Only one
    // detector frame is open at a time, so the spans it dropped are no history to compare
    // with: the detector starts afresh here, and what lies since its last start is a block of
    // the second level.
    closeAuto();
    blockEnd();
    restartHistory();
    return;
  }
  const uint64_t Start = Hist[Spans % HistSize].Pos;
  if (HistLost || Start < Drained || Drained + End < Start) {
    restartHistory();
    return;
  }
  if (Drained + End == Start)
    return; // nothing new is final
  noteSpan(hashBytes(Buf + (Start - Drained), End - (Start - Drained)), Drained + End, EndRecords);
}

void TraceWriter::shiftSpans(size_t Pos, size_t N) {
  // A repeat record was inserted at Pos, the start of the second level's current iteration,
  // while the detector's frame or history may lie above it (drain() gave that frame up).
  const uint64_t From = Drained + Pos;
  if (AutoOpen && Auto.Claim && Auto.Prev >= Pos) {
    Auto.Prev += N;
    ++Auto.PrevRecords;
    Auto.Cur += N;
    ++Auto.CurRecords;
  }
  if (CutAt >= From)
    CutAt += N;
  for (uint64_t S = HistFirst - 1; S <= Spans; ++S) {
    SpanEnd &E = Hist[S % HistSize];
    if (E.Pos >= From) {
      E.Pos += N;
      ++E.Records;
    }
  }
}

uint64_t TraceWriter::gramKey(uint64_t N) const {
  uint64_t Key = Hist[N % HistSize].Hash;
  for (uint64_t K = 1; K < Gram; ++K)
    Key = (Key ^ Hist[(N - K) % HistSize].Hash) * 0x9e3779b97f4a7c15ULL + K;
  return Key;
}

void TraceWriter::noteSpan(uint64_t H, uint64_t End, uint64_t EndRecords) {
  ++Spans;
  Hist[Spans % HistSize] = SpanEnd{H, End, EndRecords};
  if (Spans - (HistFirst - 1) >= HistSize)
    HistFirst = Spans - HistSize + 2;
  auto HashAt = [this](uint64_t N) { return Hist[N % HistSize].Hash; };

  if (Period != 0) {
    if (Spans >= Period + HistFirst && HashAt(Spans - Period) == H)
      ++Run;
    else
      Period = Run = 0;
  }
  if (Spans + 1 >= HistFirst + Gram) {
    const uint64_t Key = gramKey(Spans);
    GramSlot &Slot = Grams[(Key * 0x9e3779b97f4a7c15ULL) >> 51];
    static_assert(GramSlots == size_t{1} << 13);
    // The slot may name a span of an earlier history (the span numbers go on).
    if (Period == 0 && Slot.Key == Key && Slot.Span + 1 >= HistFirst + Gram && Slot.Span < Spans &&
        Spans - Slot.Span <= MaxPeriod && gramKey(Slot.Span) == Key) {
      // The same Gram spans occurred P spans ago: count how far back the match goes.
      const uint64_t P = Spans - Slot.Span;
      uint64_t R = 0;
      while (R < P && R < 64 && Spans >= P + R + HistFirst &&
             HashAt(Spans - R) == HashAt(Spans - P - R))
        ++R;
      if (R >= (P < Gram ? P : Gram)) {
        Period = P;
        Run = R;
      }
    }
    Slot = GramSlot{Key, Spans};
  }
  // Opening on MinRun equal spans at least keeps a short period nested in a longer one (three
  // equal steps, then a convergence test) from hiding the longer one.
  if (Period == 0 || Run < Period || Run < MinRun || Spans + 1 < 2 * Period + HistFirst)
    return;
  // The last Run + Period spans are K copies of one period: open the detector's frame on the
  // first and drop the others, after checking the bytes themselves (the hashes only proposed it).
  const uint64_t P = Period;
  uint64_t K = (Run + P) / P;
  Period = Run = 0;
  makeHookRoom();
  if (HistLost)
    return; // the next span restarts the history
  while (K > 2 && (Spans + 1 < K * P + HistFirst || Hist[(Spans - K * P) % HistSize].Pos < Drained))
    --K;
  const SpanEnd &A = Hist[(Spans - K * P) % HistSize];
  const SpanEnd &B = Hist[(Spans - (K - 1) * P) % HistSize];
  if (A.Pos < Drained)
    return;
  const size_t First = static_cast<size_t>(A.Pos - Drained);
  const size_t Length = static_cast<size_t>(B.Pos - A.Pos);
  // The last span ends at or below the hook frames' held bytes (drain() may have released them
  // since: then they are plain bytes after it).
  const SpanEnd &Last = Hist[Spans % HistSize];
  if (Length == 0 || First + K * Length != Last.Pos - Drained)
    return; // copies of different lengths: a hash collision
  for (uint64_t C = 1; C < K; ++C)
    if (Hist[(Spans - (K - 1 - C) * P) % HistSize].Pos != A.Pos + (C + 1) * Length ||
        std::memcmp(Buf + First, Buf + First + C * Length, Length) != 0)
      return; // a hash collision: the bytes differ (and nothing changed)
  dropHeld(First + Length, First + K * Length, Last.Records - B.Records);
  Auto = LoopFrame{0, First, First + Length, B.Records, K - 1, true, true, false, 0, A.Records};
  CutAt = Drained + First + Length;
  AutoOpen = true;
  AutoPeriod = P;
  AutoSpans = 0;
}

//===-- The second level: blocks between closes of the detector's frame ---------------------===//

void TraceWriter::restartBlocks() {
  uint64_t EndRecords = 0;
  const size_t End = finalEnd(EndRecords);
  BlocksLost = false;
  BlockFirst = Blocks + 1;
  BlockHist[Blocks % BlockHistSize] = SpanEnd{0, Drained + End, EndRecords};
  for (uint64_t &R : BlockRun)
    R = 0;
}

uint64_t TraceWriter::oldestBlockKept() const {
  if (BlockAutoOpen)
    return Drained + (BlockAuto.Claim ? BlockAuto.Prev : Len);
  if (BlocksLost)
    return Drained + Len;
  // The earliest block end a period can still start at: a frame opens on at most
  // 2 x MaxBlockPeriod blocks.
  uint64_t Lo = BlockFirst - 1;
  if (Blocks > 2 * MaxBlockPeriod && Blocks - 2 * MaxBlockPeriod > Lo)
    Lo = Blocks - 2 * MaxBlockPeriod;
  return BlockHist[Lo % BlockHistSize].Pos;
}

void TraceWriter::closeBlockAuto() {
  if (BlockAutoOpen && BlockAuto.Claim && BlockAuto.Count > 0)
    insertRepeat(BlockAuto);
  BlockAutoOpen = false;
}

void TraceWriter::blockEnd() {
  // Called where the detector's frame closed: the block is final and the detector holds no
  // bytes, so copies can be dropped and repeat records inserted without moving its state.
  makeHookRoom();
  uint64_t EndRecords = 0;
  const size_t End = finalEnd(EndRecords);
  if (BlockAutoOpen) {
    LoopFrame &F = BlockAuto;
    if (F.Claim && ++BlocksIn < BlockPeriod)
      return;
    BlocksIn = 0;
    if (F.Claim && End - F.Cur == F.Cur - F.Prev &&
        std::memcmp(Buf + F.Prev, Buf + F.Cur, End - F.Cur) == 0) {
      // The level below compressed this iteration as it did the previous one.
      dropHeld(F.Cur, End, EndRecords - F.CurRecords);
      ++F.Count;
      return;
    }
    closeBlockAuto();
    restartBlocks();
    return;
  }
  const uint64_t Start = BlockHist[Blocks % BlockHistSize].Pos;
  if (BlocksLost || Start < Drained) {
    restartBlocks();
    return;
  }
  ++Blocks;
  BlockHist[Blocks % BlockHistSize] =
      SpanEnd{hashBytes(Buf + (Start - Drained), Drained + End - Start), Drained + End, EndRecords};
  if (Blocks - (BlockFirst - 1) >= BlockHistSize)
    BlockFirst = Blocks - BlockHistSize + 2;
  auto HashAt = [this](uint64_t N) { return BlockHist[N % BlockHistSize].Hash; };

  // Blocks are few (one per run the detector found), so every period is tried; the shortest
  // whose run is long enough wins.
  uint64_t P = 0;
  for (uint64_t Q = 1; Q <= MaxBlockPeriod; ++Q) {
    BlockRun[Q] =
        Blocks >= Q + BlockFirst && HashAt(Blocks - Q) == HashAt(Blocks) ? BlockRun[Q] + 1 : 0;
    if (P == 0 && BlockRun[Q] >= Q && BlockRun[Q] >= BlockMinRun)
      P = Q;
  }
  if (P == 0)
    return;
  // As for spans: the last K copies of the period, compared byte for byte, all but the first
  // dropped under the second level's frame.
  const uint64_t K = (BlockRun[P] + P) / P;
  for (uint64_t &R : BlockRun)
    R = 0;
  const SpanEnd &A = BlockHist[(Blocks - K * P) % BlockHistSize];
  const SpanEnd &B = BlockHist[(Blocks - (K - 1) * P) % BlockHistSize];
  if (A.Pos < Drained)
    return;
  const size_t First = static_cast<size_t>(A.Pos - Drained);
  const size_t Length = static_cast<size_t>(B.Pos - A.Pos);
  if (Length == 0 || First + K * Length != End)
    return; // copies of different lengths: a hash collision
  for (uint64_t C = 1; C < K; ++C)
    if (BlockHist[(Blocks - (K - 1 - C) * P) % BlockHistSize].Pos != A.Pos + (C + 1) * Length ||
        std::memcmp(Buf + First, Buf + First + C * Length, Length) != 0)
      return; // a hash collision: the bytes differ (and nothing changed)
  dropHeld(First + Length, End, EndRecords - B.Records);
  BlockAuto =
      LoopFrame{0, First, First + Length, B.Records, K - 1, true, true, false, 0, A.Records};
  BlockAutoOpen = true;
  BlockPeriod = P;
  BlocksIn = 0;
}

} // namespace mpiete

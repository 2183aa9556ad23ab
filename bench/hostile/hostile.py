#!/usr/bin/env python3
"""The hostile-input matrix of issue 14 (docs/robustness.md), on demand: base data of a 2-rank
ring program (built with mpiete-cc, traced with probe-program, timed with probe-compute, a
hand-written network.yaml) made wrong in every way, each run through `mpiete estimate` (and
each trace case through `mpiete whatif` too).
Every YAML scalar of machine.yaml and network.yaml is swapped for a string, list, map, null,
NaN, infinity, -1 and 1e300; rank traces are truncated, bit-flipped, swapped and removed.
Each run is classified: clean error (exit 1 or 2 with an 'error:' line), crash (a signal or an
uncaught exception), hang (over 20 s) or silent (exit 0). A silent run on input that is
invalid is a finding; a flip the reader cannot see (a host name byte) may rightly give the same
prediction, so silent trace runs are split by whether the prediction changed.
  bench/hostile/hostile.py --build build [--flips N] [--check-build build-asan]
A silent trace flip inside the header's free text (host, date, tool) is "silent, valid".
"""
import argparse, os, random, re, shutil, subprocess, sys, tempfile

RING = r"""#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int r, s, v = 1, w = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  for (int i = 0; i < 20; ++i) {
    for (volatile int k = 0; k < 20000; ++k) v += k & 3;
    MPI_Sendrecv(&v, 1, MPI_INT, (r + 1) % s, 0, &w, 1, MPI_INT, (r + s - 1) % s, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return w == 12345;
}
"""

NETWORK = """format: mpiete-network
version: 1
provenance: {tool: hostile.py, pairs: 1}
table:
  columns: [bytes, recv_s, recv_arrived_s, repetitions]
  rows:
    - [0, 1.0e-6, 1.0e-7, 10]
    - [1024, 2.0e-6, 1.0e-7, 10]
loggps:
  L: 1.0e-6
  o_s: 1.0e-8
  o_s_per_byte: 0
  o_r: 2.0e-8
  o_r_per_byte: 1.0e-11
  g: 4.0e-9
  G: 1.0e-9
  G_eager: 5.0e-10
  S: 4096
"""

FREE_TEXT = {"program", "host", "cpu_model", "cpu_mhz", "compiler", "flags", "date", "tool",
             "block_map", "command"}
REQUIRED = {"mean_seconds", "rank", "id", "from", "to", "format", "version", "L", "o_s", "o_r",
            "g", "G"}
SWAPS = ["word", "[1, 2]", "{a: 1}", "null", ".nan", ".inf", "-1", "1e300"]


def run(argv, cwd, timeout=20):
    try:
        p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, errors="replace",
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang", ""
    if p.returncode < 0 or p.returncode >= 128 or "terminate called" in p.stderr or \
            "internal error" in p.stderr or "Sanitizer" in p.stderr or \
            "runtime error:" in p.stderr:
        return "crash", p.stderr
    if p.returncode == 0:
        return "silent", p.stdout
    return ("clean" if "error:" in p.stderr else "unclear"), p.stderr


def varint(data, i):
    v = shift = 0
    while i < len(data):
        b = data[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            break
    return v, i


def header_text(data):
    """Byte ranges of the trace header's free-text strings (host, date, tool; after the magic,
    version, rank, size and fingerprint, docs/trace-format.md): a flip there changes nothing
    the estimator reads, so the same prediction is right."""
    i = 8
    for _ in range(3):
        _, i = varint(data, i)
    spans = []
    for k in range(4):
        n, i = varint(data, i)
        if k > 0:
            spans.append((i, i + n))
        i += n
    return spans


def predicted(out):
    m = re.search(r"predicted_seconds: *\"?([0-9.e+-]+)", out)
    return m.group(1) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--flips", type=int, default=250)
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--check-build", help="run estimate and whatif from this build tree (e.g. "
                    "build-asan, with ASan/UBSan); the base data is made with --build")
    a = ap.parse_args()
    bindir = os.path.join(os.path.abspath(a.build), "bin")
    mpiete = os.path.join(bindir, "mpiete")
    checked = os.path.join(os.path.abspath(a.check_build), "bin", "mpiete") if a.check_build \
        else mpiete
    os.environ.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
    os.environ.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    work = tempfile.mkdtemp(prefix="mpiete-hostile-")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    os.environ.update(env)
    with open(os.path.join(work, "ring.c"), "w") as f:
        f.write(RING)
    for argv in ([os.path.join(bindir, "mpiete-cc"), "-O1", "-o", "ring", "ring.c"],
                 [mpiete, "probe-program", "-o", "prog", "-np", "2", "--launcher", a.mpirun,
                  "./ring.trace"],
                 [mpiete, "probe-compute", "-o", "machine.yaml", "-np", "2", "--launcher",
                  a.mpirun, "./ring.timing"]):
        p = subprocess.run(argv, cwd=work, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"hostile.py: {' '.join(argv)} failed:\n{p.stderr}")
    with open(os.path.join(work, "network.yaml"), "w") as f:
        f.write(NETWORK)

    def estimate(prog="prog", machine="machine.yaml", network="network.yaml"):
        return run([checked, "estimate", "--program", prog, "--machine", machine, "--network",
                    network, "--format", "yaml"], work)

    kind, out = estimate()
    if kind != "silent":
        sys.exit(f"hostile.py: the good base data does not estimate:\n{out}")
    good = predicted(out)
    rows = []

    # 1. YAML values: every scalar value after ': ' or in a flow list, swapped.
    for name in ("machine.yaml", "network.yaml"):
        text = open(os.path.join(work, name)).read()
        spots = [m for m in re.finditer(r"(?<=: )[^\s{}\[\],#][^,}\]\n]*|(?<=[\[,] )-?[0-9][0-9.e+-]*",
                                        text)]
        counts = {}
        for m in spots:
            if text[text.rfind("\n", 0, m.start()) + 1:].startswith("#"):
                continue  # a comment
            for swap in SWAPS:
                if m.group(0).strip() == swap:
                    continue
                bad = text[:m.start()] + swap + text[m.end():]
                path = os.path.join(work, "bad-" + name)
                open(path, "w").write(bad)
                kind, out = estimate(**{name.split(".")[0]: path})
                key = re.search(r"(\w+): *$", text[text.rfind("\n", 0, m.start()) + 1:m.start()])
                key = key.group(1) if key else ""
                # Valid: any text in a free-text field; null for an optional key (absent).
                if kind == "silent" and predicted(out) == good and (
                        key in FREE_TEXT or (swap == "null" and key not in REQUIRED) or
                        (key == "cpu" and swap == "-1")):  # -1: processor unknown
                    kind = "silent-ok"
                counts[kind] = counts.get(kind, 0) + 1
                if kind in ("silent", "crash", "hang", "unclear"):
                    line = text.count("\n", 0, m.start()) + 1
                    print(f"  {name}:{line}: {m.group(0)!r} -> {swap!r}: {kind}", file=sys.stderr)
        rows.append((f"{name}: {len(spots)} values x {len(SWAPS)} swaps", counts))

    # 2. Traces: truncations, bit flips, swapped, missing, empty, foreign files.
    rnd = random.Random(14)
    counts, changed = {}, 0
    wcounts, wdiffer = {}, 0
    cases = []
    for r in (0, 1):
        data = open(os.path.join(work, "prog", f"rank{r}.trace"), "rb").read()
        for k in range(10):
            cases.append((f"rank{r} cut", r, data[:rnd.randrange(len(data))]))
        for k in range(a.flips // 2):
            b = bytearray(data)
            i = rnd.randrange(len(b))
            b[i] ^= 1 << rnd.randrange(8)
            text = any(lo <= i < hi for lo, hi in header_text(data))
            cases.append((f"rank{r} flip {i}" + (" (header text)" if text else ""), r, bytes(b)))
        cases.append((f"rank{r} empty", r, b""))
        cases.append((f"rank{r} foreign", r, b"hello\n"))
    r0 = open(os.path.join(work, "prog", "rank0.trace"), "rb").read()
    r1 = open(os.path.join(work, "prog", "rank1.trace"), "rb").read()
    cases.append(("rank0/rank1 swapped", "swap", (r1, r0)))
    cases.append(("rank1 missing", "missing", None))
    for label, r, payload in cases:
        d = os.path.join(work, "bad-prog")
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(os.path.join(work, "prog"), d)
        if r == "swap":
            open(os.path.join(d, "rank0.trace"), "wb").write(payload[0])
            open(os.path.join(d, "rank1.trace"), "wb").write(payload[1])
        elif r == "missing":
            os.remove(os.path.join(d, "rank1.trace"))
        else:
            open(os.path.join(d, f"rank{r}.trace"), "wb").write(payload)
        kind, out = estimate(prog=d)
        # whatif reads the same traces and must reject what estimate rejects.
        wkind, _ = run([checked, "whatif", "--program", d, "--machine", "machine.yaml",
                        "--network", "network.yaml", "--format", "yaml"], work)
        if wkind != kind and not (wkind == "clean" and kind == "unclear"):
            wdiffer += 1
            print(f"  trace {label}: estimate {kind}, whatif {wkind}", file=sys.stderr)
        if wkind == "silent" and label.endswith("(header text)"):
            wkind = "silent-ok"
        wcounts[wkind] = wcounts.get(wkind, 0) + 1
        if kind == "silent" and predicted(out) != good:
            changed += 1
            shutil.copytree(d, os.path.join(work, "changed-%d" % changed))
            print(f"  trace {label}: the prediction changed ({predicted(out)} s, good {good} s)",
                  file=sys.stderr)
        elif kind in ("crash", "hang", "unclear"):
            print(f"  trace {label}: {kind}", file=sys.stderr)
        elif kind == "silent" and label.endswith("(header text)"):
            kind = "silent-ok"
        elif kind == "silent" and os.environ.get("HOSTILE_VERBOSE"):
            print(f"  trace {label}: silent, same prediction", file=sys.stderr)
        counts[kind] = counts.get(kind, 0) + 1
    rows.append((f"traces: {len(cases)} cases", counts))
    rows.append((f"the same traces through whatif", wcounts))

    load = open("/proc/loadavg").read().split()[:3]
    print(f"hostile matrix (load average {' '.join(load)}); good prediction {good} s")
    print("| input | clean error | crash | hang | silent | silent, valid | unclear |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for label, c in rows:
        print(f"| {label} | {c.get('clean', 0)} | {c.get('crash', 0)} | {c.get('hang', 0)} | "
              f"{c.get('silent', 0)} | {c.get('silent-ok', 0)} | {c.get('unclear', 0)} |")
    print(f"silent trace runs whose prediction changed: {changed}")
    print(f"trace cases where whatif and estimate disagree (error or not): {wdiffer}")
    if os.environ.get("HOSTILE_KEEP"):
        print(f"kept in {work}")
    if changed:
        print(f"kept in {work}: changed-<N>/ (the traces that changed the prediction), prog/")
    elif not os.environ.get("HOSTILE_KEEP"):
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

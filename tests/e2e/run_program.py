#!/usr/bin/env python3
"""End-to-end test of one test program: build with mpiete-cc, check outputs, run all variants.

usage: run_program.py --build BUILD --program DIR --work WORK --mpiexec MPIRUN
                      --blockmap-check EXE [--np 2,4,4k2] [--lang c|fortran]
                      [--skeleton [--skeleton-args "ARGS"] [--whole-program]
                                  [--skeleton-removes TEXT]]
                      [--expect REGEX] [--same-output] [-- program arguments]

--lang fortran: the same steps with FC=mpiete-fc / FC=mpif90 (MPIETE_FC unset), Fortran
sources (.f .F .f90 .F90 ...) as the units, and module files (.mod) allowed beside the objects.

Steps (any failure exits 1 with a message saying which step and why):
  1. `make CC=BUILD/bin/mpiete-cc O=WORK/cc` in DIR, with BUILD/bin first on PATH and
     MPIETE_CC unset (so the native compiler is mpicc).
  2. WORK/cc/APP, APP.trace, APP.timing, APP.blocks.yaml exist; the block map parses with
     mpiete's reader and has one unit per source file of DIR, blocks and MPI blocks. A unit
     built natively is one without MPI calls (its note in .mpiete/ says so); one the wrapper
     could not analyse (its fallback to a native build, a warning) fails the test.
  3. `make CC=mpicc O=WORK/ref`; APP and every object are byte-identical (cmp) to the
     mpiete-cc build: the wrapper builds the unchanged program. No -g is used by the
     Makefiles, and both builds run from DIR with relative source names, so no build path
     can differ; a mismatch is a real difference.
  4. At each rank count: APP, APP.trace and APP.timing run under mpirun --oversubscribe with
     MPIETE_OUTDIR=WORK/out-<variant>-<np>; every run exits 0, the three stdouts are
     identical and not empty, each probe wrote exactly one `rank<N>.*` file (any format)
     for each rank 0..np-1, the native program wrote nothing.
  5. DIR is unchanged: same files, same contents (sha256) as before the test.

  (after 2) --skeleton: APP.skeleton is checked and verified at 2 ranks, without arguments and
     with each --skeleton-args (skeleton_verify.verify(): its traces equal the full probe's,
     record for record; --skeleton-removes: APP.skeleton.removed lists a statement with that
     text; --whole-program: a unit was sliced with the whole program at link
     time); a --nondeterministic program only with the --skeleton-args given.
  (in 4) --expect REGEX: the output has a line matching REGEX (the program's result line);
     --same-output: the same output at every rank count.

A rank count written NkK (4k2) runs the timing probe with K tokens (MPIETE_RANKS_PER_NODE=K,
and `probe-compute --ranks-per-node K`, whose machine.yaml must say so): K ranks compute at
once. When N ran already with one token, the native and trace runs of N are reused and only
the timing probe runs again.
"""

import argparse
import json
import hashlib
import os
import re
import shutil
import statistics
import sys

from e2e_util import launch, native_compiler, run_group
from skeleton_verify import SkeletonFailure, verify as verify_skeleton
import time


class Failure(Exception):
    pass


def snapshot(tree):
    """Path -> sha256 of every file under tree (hidden ones too)."""
    out = {}
    for dirpath, _, files in os.walk(tree):
        for f in files:
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, tree)] = hashlib.sha256(fh.read()).hexdigest()
    return out


class Result:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run(cmd, env, cwd=None, timeout=120, what=None):
    start = time.monotonic()
    rc, out, err = run_group(cmd, cwd, env, timeout)
    if rc is None:
        raise Failure(f"{what or cmd[0]}: timed out after {timeout} s\nstderr:\n{err}")
    return Result(rc, out, err), time.monotonic() - start


# Per language: the make variable, the wrapper, the native compiler, the wrapper's compiler
# variable, the source suffixes, and extra files the build may leave beside the objects.
LANGS = {
    "c": ("CC", "mpiete-cc", native_compiler("c"), "MPIETE_CC", (".c",), ()),
    "fortran": ("FC", "mpiete-fc", native_compiler("fortran"), "MPIETE_FC",
                (".f", ".F", ".for", ".f77", ".f90", ".F90", ".f95", ".F95"), (".mod",)),
}
VAR = "CC"


def make(program_dir, cc, outdir, env):
    p, secs = run(["make", "-C", program_dir, f"{VAR}={cc}", f"O={outdir}"], env,
                  what=f"make {VAR}={cc}")
    if p.returncode != 0:
        raise Failure(f"make {VAR}={cc} O={outdir} failed (exit {p.returncode}):\n"
                      f"{p.stdout}{p.stderr}")
    return p, secs


def same_file(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def compute_blocks_of_trace(build, env, path):
    """The compute blocks (block and loop records) a trace holds, read back through
    `mpiete trace dump`, which must reach the end marker."""
    p, _ = run([os.path.join(build, "bin", "mpiete"), "trace", "dump", path], env,
               what=f"trace dump {path}")
    lines = p.stdout.splitlines()
    if p.returncode != 0 or not lines or not lines[-1].startswith("end records="):
        raise Failure(f"mpiete trace dump {path} failed (exit {p.returncode}):\n"
                      f"{p.stderr}{chr(10).join(lines[-3:])}")
    ids = set()
    for line in lines:
        w = line.split()
        if len(w) >= 2 and w[1] in ("block", "loop") and ":" in w[0]:
            ids.add(w[0])
    return ids


def compute_blocks_of_timing(path):
    ids = set()
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 2 and not line.startswith("#") and w[1] in ("block", "loop"):
                ids.add(w[0])
    return ids


def check_base_data(build, env, work, np_, tag, nondeterministic):
    """Every rank's trace round-trips through `mpiete trace dump`, and the timing probe timed
    every compute block the trace probe saw run (per rank; for a nondeterministic program, some
    rank timed it)."""
    traced, timed = {}, {}
    for r in range(np_):
        traced[r] = compute_blocks_of_trace(
            build, env, os.path.join(work, f"out-trace-{np_}", f"rank{r}.trace"))
        timed[r] = compute_blocks_of_timing(
            os.path.join(work, f"out-timing-{tag}", f"rank{r}.timing"))
    if nondeterministic:
        missing = set().union(*traced.values()) - set().union(*timed.values())
        if missing:
            raise Failure(f"at {np_} ranks no rank timed blocks {sorted(missing)}")
    else:
        for r in range(np_):
            missing = traced[r] - timed[r]
            if missing:
                raise Failure(f"at {np_} ranks rank {r} ran blocks {sorted(missing)} in the trace "
                              "probe that the timing probe did not time")
    print(f"[base data] np={tag}: traces dumped, "
          f"{sum(len(v) for v in traced.values())} (rank, compute block) pairs all timed")


def check_repeats(machine, text, repeat):
    """probe-compute --repeat: the provenance says how many runs, and every segment that more
    than one run made holds each run's mean, its record's mean their median."""
    if not re.search(rf"^\s*repeats:\s*{repeat}\s*$", text, re.M):
        raise Failure(f"{machine} does not record repeats: {repeat}")
    means = re.findall(r"mean_seconds: ([^,}]+),.*repeat_means: \[([^]]*)\]", text)
    segments = len(re.findall(r"^\s*- \{from:", text, re.M))
    if not means and segments:
        raise Failure(f"{machine}: no segment holds repeat_means")
    for mean, runs in means:
        med = statistics.median(float(x) for x in runs.split(","))
        if abs(float(mean) - med) > 1e-5 * med + 1e-12:
            raise Failure(f"{machine}: mean_seconds {mean} is not the median of [{runs}]")
    print(f"[repeat] {len(means)} of {segments} segments the median of {repeat} timing runs")


def check_said_once(stderr, what):
    """A command that starts over (estimate, whatif after a replay that blocked) prints each of
    its diagnostics once."""
    lines = [l for l in stderr.splitlines() if re.search(r": (warning|note|error): ", l)]
    twice = sorted({l for l in lines if lines.count(l) > 1})
    if twice:
        raise Failure(f"{what}: a diagnostic printed more than once:\n" + "\n".join(twice))


def check_all_rendezvous(mpiete, env, work, program, machine, network, np_):
    """Wildcard receives under rendezvous: with every message over the eager limit (the network
    file's S set to 1 byte, as a noisy probe-comm once found 16 bytes), a send waits for its
    receive. The replay must still predict where the real run ran: when matching each wildcard
    receive with the earliest predicted arrival blocks (the trace's later calls follow the
    recorded match), the estimate replays with the recorded matches and says so."""
    with open(network) as f:
        text = f.read()
    forced, n = re.subn(r"^(\s+)S: \d+\s*$", r"\1S: 1", text, flags=re.M)
    if n != 1:
        forced, n = re.subn(r"^(\s+)(G_eager: .*)$", r"\1\2\n\1S: 1", text, flags=re.M)
    if n != 1:
        raise Failure(f"{network}: no loggps S or G_eager line to set the eager limit in")
    path = os.path.join(work, "network-rendezvous.yaml")
    with open(path, "w") as f:
        f.write(forced)
    p, _ = run([mpiete, "estimate", "--program", program, "--machine", machine, "--network",
                path, "--format", "json"], env, cwd=work, what=f"estimate at {np_} ranks, S=1")
    if p.returncode != 0:
        raise Failure(f"mpiete estimate at {np_} ranks with every message rendezvous failed:\n"
                      f"{p.stderr}")
    fell_back = "replayed again with each wildcard receive taking its recorded match" in p.stderr
    provenance = json.loads(p.stdout).get("provenance", {})
    if fell_back != (provenance.get("wildcard_matches") == "recorded"):
        raise Failure(f"estimate with every message rendezvous: the report's wildcard_matches "
                      f"and the warning disagree:\n{p.stderr}")
    check_said_once(p.stderr, f"estimate at {np_} ranks, S=1")
    print(f"[estimate] np={np_}, every message rendezvous: predicted "
          f"{float(json.loads(p.stdout)['predicted_seconds']):.4f} s"
          f"{', replayed with the recorded matches' if fell_back else ''}")
    # The same for what-if's replays, asked for by a scenario on the measured network.
    p, _ = run([mpiete, "whatif", "--program", program, "--machine", machine, "--network",
                network, "--eager-limit", "0", "--format", "json"], env, cwd=work,
               what=f"whatif --eager-limit 0 at {np_} ranks")
    if p.returncode != 0:
        raise Failure(f"mpiete whatif --eager-limit 0 at {np_} ranks failed:\n{p.stderr}")
    report = json.loads(p.stdout)
    recorded = report.get("wildcard_matches") == "recorded"
    if recorded != ("every replay takes the recorded matches" in p.stderr):
        raise Failure(f"whatif --eager-limit 0: the report's wildcard_matches and the warning "
                      f"disagree:\n{p.stderr}")
    check_said_once(p.stderr, f"whatif --eager-limit 0 at {np_} ranks")
    print(f"[whatif] np={np_}, --eager-limit 0: predicted "
          f"{float(report['scenario']['predicted_seconds']):.4f} s"
          f"{', every replay with the recorded matches' if recorded else ''}")


def estimate_from_probes(build, env, work, exe, np_, tag, args, ranks_per_node=1,
                         nondeterministic=False):
    """The driver end to end: probe-program (once per rank count), probe-compute and (once)
    probe-comm collect the three base data, and estimate predicts a positive run time for every
    rank from them."""
    mpiete = os.path.join(build, "bin", "mpiete")
    network = os.path.join(work, "network.yaml")
    if not os.path.exists(network):
        p, _ = run([mpiete, "probe-comm", "-o", network, "--max-size", "65536",
                    "--oversubscribe"], env, cwd=work, what="probe-comm")
        if p.returncode != 0:
            raise Failure(f"mpiete probe-comm failed:\n{p.stderr}")
    program = os.path.join(work, f"program-{np_}")
    machine = os.path.join(work, f"machine-{tag}.yaml")
    steps = [] if os.path.isdir(program) else [
        ([mpiete, "probe-program", "-o", program, "-np", str(np_), "--oversubscribe",
          exe + ".trace"] + args, "probe-program")]
    # At 2 ranks, one token: two timing runs (--repeat 2), each segment their median (of two,
    # their mean), the second starting at rank 1 (the traces given: --program).
    repeat = 2 if np_ == 2 and ranks_per_node == 1 else 1
    steps.append(([mpiete, "probe-compute", "-o", machine, "-np", str(np_), "--ranks-per-node",
                   str(ranks_per_node), "--repeat", str(repeat), "--oversubscribe"] +
                  (["--program", program] if repeat > 1 else []) +
                  [exe + ".timing"] + args, "probe-compute"))
    for cmd, what in steps:
        p, _ = run(cmd, env, cwd=work, timeout=60, what=f"{what} at {tag} ranks")
        if p.returncode != 0:
            raise Failure(f"mpiete {what} at {np_} ranks failed:\n{p.stderr}")
    with open(machine) as f:
        text = f.read()
    recorded = re.search(r"^\s*ranks_per_node:\s*(\d+)\s*$", text, re.M)
    if not recorded or int(recorded.group(1)) != ranks_per_node:
        raise Failure(f"{machine} does not record ranks_per_node: {ranks_per_node}")
    # The default keeps the top of the C heap occupied at MPI calls (probe-compute --heap).
    if not re.search(r"^\s*heap:\s*kept\s*$", text, re.M):
        raise Failure(f"{machine} does not record heap: kept")
    if repeat > 1:
        check_repeats(machine, text, repeat)
        # The runs start at ranks 0 and 1 unless the order could change the messages: only
        # a program with wildcard receives whose traced matches the run could not follow.
        rotated = re.search(r"^\s*first_ranks:\s*\[0, 1\]\s*$", text, re.M)
        if not rotated and (not nondeterministic or "wildcards_from" in text):
            raise Failure(f"{machine}: the second timing run did not start at rank 1 "
                          "(first_ranks: [0, 1])")
    p, _ = run([mpiete, "estimate", "--program", program, "--machine", machine, "--network",
                network, "--format", "json"], env, cwd=work, what=f"estimate at {np_} ranks")
    if p.returncode != 0:
        raise Failure(f"mpiete estimate at {np_} ranks failed:\n{p.stderr}")
    result = json.loads(p.stdout)
    ranks = result["ranks"]
    if float(result["predicted_seconds"]) <= 0 or [r["rank"] for r in ranks] != list(range(np_)):
        raise Failure(f"estimate at {np_} ranks: unexpected result {p.stdout}")
    if any(float(r["compute_seconds"]) <= 0 for r in ranks):
        raise Failure(f"estimate at {np_} ranks: a rank without compute time: {p.stdout}")
    # With repeated timing runs the report gives each run's compute and what the replay takes,
    # each segment's median (of two runs, their mean: between the runs' sums); without, nothing.
    runs = result.get("timing_runs")
    if (runs is not None) != (repeat > 1) or runs and (
            runs["count"] != repeat or len(runs["compute_seconds"]) != repeat or
            not min(runs["compute_seconds"]) * (1 - 1e-4) <= runs["median_compute_seconds"] <=
            max(runs["compute_seconds"]) * (1 + 1e-4)):
        raise Failure(f"estimate at {np_} ranks: timing_runs {runs} after --repeat {repeat}")
    print(f"[estimate] np={tag}: predicted {float(result['predicted_seconds']):.4f} s")
    if nondeterministic and np_ > 2:
        check_all_rendezvous(mpiete, env, work, program, machine, network, np_)
    # A cluster of 2 ranks per node: a note exactly when machine.yaml was measured otherwise.
    cluster = os.path.join(work, "cluster-2.yaml")
    with open(cluster, "w") as f:
        f.write("format: mpiete-cluster\nversion: 1\nranks_per_node: 2\n")
    p, _ = run([mpiete, "estimate", "--program", program, "--machine", machine, "--network",
                network, "--cluster", cluster], env, cwd=work, what=f"estimate --cluster")
    noted = "note: measured with" in p.stderr
    if p.returncode != 0 or noted != (ranks_per_node != 2):
        raise Failure(f"estimate --cluster (2 ranks per node) with a machine file of "
                      f"{ranks_per_node} ranks per node: exit {p.returncode}, note "
                      f"{'printed' if noted else 'missing'}:\n{p.stderr}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--blockmap-check", required=True)
    ap.add_argument("--np", default="2,4")
    ap.add_argument("--lang", choices=sorted(LANGS), default="c")
    ap.add_argument("--nondeterministic", action="store_true",
                    help="wildcard receives: ranks may run other blocks in each probe")
    ap.add_argument("--skeleton", action="store_true",
                    help="check and verify the skeleton trace probe at 2 ranks")
    ap.add_argument("--skeleton-args", action="append",
                    help="verify the skeleton with these arguments too (space-separated; "
                    "repeatable; with --nondeterministic instead of the default arguments)")
    ap.add_argument("--skeleton-removes", action="append",
                    help="the skeleton must have removed a statement with this text "
                         "(APP.skeleton.removed; repeatable)")
    ap.add_argument("--whole-program", action="store_true",
                    help="a unit of the skeleton was sliced with the whole program")
    ap.add_argument("--expect", default=None, help="a line of the output matches this")
    ap.add_argument("--same-output", action="store_true",
                    help="the output is the same at every rank count")
    ap.add_argument("args", nargs="*")
    a = ap.parse_args()
    global VAR
    VAR, wrapper_name, native, wrapper_env, suffixes, extras = LANGS[a.lang]

    program_dir = os.path.abspath(a.program)
    app = os.path.basename(program_dir.rstrip("/"))
    build = os.path.abspath(a.build)
    work = os.path.abspath(a.work)
    wrapper = os.path.join(build, "bin", wrapper_name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    env = dict(os.environ)
    env["PATH"] = os.path.join(build, "bin") + os.pathsep + env.get("PATH", "")
    env.pop(wrapper_env, None)
    env.pop("MPIETE_VERBOSE", None)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")

    before = snapshot(program_dir)

    # 1. build with the wrapper
    cc_dir = os.path.join(work, "cc")
    _, secs = make(program_dir, wrapper, cc_dir, env)
    print(f"[build] make {VAR}={wrapper_name}: {secs:.1f} s")

    # 2. outputs and block map
    exe = os.path.join(cc_dir, app)
    for suffix in ("", ".trace", ".timing", ".blocks.yaml"):
        f = exe + suffix
        if not os.path.isfile(f):
            raise Failure(f"{wrapper_name} did not produce {f}")
        if suffix != ".blocks.yaml" and not os.access(f, os.X_OK):
            raise Failure(f"{f} is not executable")
    # A source without MPI calls is built natively (its note in .mpiete/): no unit of the map.
    # A unit the wrapper could not analyse is built natively too, with a warning, so that a
    # user's build goes on (mpiete-fc when Flang stops); in a test program that is a failure:
    # its probes would run that unit's MPI calls uninstrumented (session 58: a crash of the
    # Flang plugin on f77-cg's main program went unnoticed this way).
    notes = os.path.join(cc_dir, ".mpiete")
    native_objects = set()  # objects built natively: main.o
    for f in sorted(os.listdir(notes)) if os.path.isdir(notes) else []:
        if f.endswith(".native"):
            with open(os.path.join(notes, f)) as note:
                reason = note.read().strip()
            if reason != "native: no MPI calls":
                raise Failure(f"{wrapper_name} built {f[:-len('.native')]} natively "
                              f"({reason}): the probes lack its MPI calls")
            native_objects.add(f[:-len(".native")])
    sources = sorted(f for f in os.listdir(program_dir) if f.endswith(suffixes) and
                     os.path.splitext(f)[0] + ".o" not in native_objects)
    check = [a.blockmap_check, exe + ".blocks.yaml", f"--units={len(sources)}"]
    check += [f"--source={s}" for s in sources]
    p, _ = run(check, env, what="block map check")
    if p.returncode != 0:
        raise Failure("block map check failed:\n" + p.stderr)
    print(f"[blocks] {p.stdout.strip()}")
    # Intermediate files live in a hidden .mpiete/ folder beside the objects, nowhere else.
    extra = sorted(f for f in os.listdir(cc_dir) if not (
        f == app or f.startswith(app + ".") or f.endswith(".o") or f == ".mpiete"
        or (extras and f.endswith(extras))))
    if extra:
        raise Failure(f"unexpected files beside the program: {extra}")

    # 3. the native program is exactly what mpicc builds
    ref_dir = os.path.join(work, "ref")
    make(program_dir, native, ref_dir, env)
    compared = []
    for f in sorted(os.listdir(ref_dir)):
        if f == app or f.endswith(".o"):
            mine = os.path.join(cc_dir, f)
            if not os.path.isfile(mine):
                raise Failure(f"{native} built {f}, {wrapper_name} did not")
            if not same_file(mine, os.path.join(ref_dir, f)):
                raise Failure(f"{f} built by {wrapper_name} differs from {native}'s (cmp)")
            compared.append(f)
    if app not in compared:
        raise Failure(f"the {native} build made no {app}")
    print(f"[native] identical to {native}'s build: {' '.join(compared)}")

    # The skeleton trace probe, verified at 2 ranks with and without arguments.
    if a.skeleton:
        # A nondeterministic program's default inputs may race (the task farm's MPI_Test poll
        # finds a short task's reply complete in one probe and not in the other): it is
        # verified only with the inputs given, which the caller picks so that they do not.
        arg_sets = [] if a.nondeterministic and a.skeleton_args else [a.args]
        arg_sets += [s.split() for s in a.skeleton_args or []]
        try:
            report = verify_skeleton(build, work, exe, a.mpiexec, 2, arg_sets, env,
                                     a.whole_program)
        except SkeletonFailure as e:
            raise Failure(f"skeleton: {e}")
        print("\n".join(report))
        removed = open(f"{exe}.skeleton.removed").read()
        for text in a.skeleton_removes or []:
            if text not in removed:
                raise Failure(f"skeleton: {exe}.skeleton.removed does not list '{text}' as "
                              "removed")

    # 4. run the three variants
    # (rank<N>.loops, the trace probe's loop plan, is a side file beside the trace.)
    rank_file = re.compile(r"^rank(\d+)\.(?!loops$)")
    expect = re.compile(a.expect, re.MULTILINE) if a.expect else None
    native_outputs = {}
    for tag in [x for x in a.np.split(",") if x]:
        m = re.fullmatch(r"(\d+)(?:k(\d+))?", tag)
        if not m:
            raise Failure(f"--np: {tag!r} is not N or NkK")
        np_, tokens = int(m.group(1)), int(m.group(2) or 1)
        outputs = {}
        variants = ("native", "trace", "timing")
        if np_ in native_outputs:  # ran at N ranks already: only the timing probe again
            outputs["native"] = native_outputs[np_]
            variants = ("timing",)
        for variant in variants:
            binary = exe if variant == "native" else f"{exe}.{variant}"
            outdir = os.path.join(work, f"out-{variant}-{tag if variant == 'timing' else np_}")
            renv = dict(env, MPIETE_OUTDIR=outdir, MPIETE_RANKS_PER_NODE=str(tokens))
            cmd = launch(a.mpiexec, np_) + [binary] + a.args
            p, secs = run(cmd, renv, cwd=work, timeout=60, what=f"{variant} at {tag} ranks")
            err = p.stderr
            if p.returncode != 0:
                raise Failure(f"{variant} at {tag} ranks exited {p.returncode}:\n"
                              f"{p.stdout}{err}")
            outputs[variant] = p.stdout
            files = sorted(os.listdir(outdir)) if os.path.isdir(outdir) else []
            if variant == "native":
                if files:
                    raise Failure(f"the native program wrote {files} into MPIETE_OUTDIR")
            else:
                ranks = sorted(int(m.group(1)) for m in map(rank_file.match, files) if m)
                # Exactly one rank<N>.* file per rank (any format); other files (a run-wide
                # summary, say) are allowed.
                if ranks != list(range(np_)):
                    raise Failure(f"{variant} at {np_} ranks wrote {files}; expected one "
                                  f"rank<N>.* file for each of ranks 0..{np_ - 1}")
            print(f"[run] {variant:6} np={tag}: {secs:.2f} s, "
                  f"{len(p.stdout.splitlines())} lines of output"
                  + (f", files: {' '.join(files)}" if variant != "native" else ""))
        check_base_data(build, env, work, np_, tag, a.nondeterministic)
        estimate_from_probes(build, env, work, exe, np_, tag, a.args, tokens,
                             a.nondeterministic)
        if not outputs["native"].strip():
            raise Failure(f"the program printed nothing at {np_} ranks")
        if expect and not expect.search(outputs["native"]):
            raise Failure(f"at {np_} ranks no line of the output matches '{a.expect}':\n"
                          f"{outputs['native']}")
        for variant in ("trace", "timing"):
            if variant in outputs and outputs[variant] != outputs["native"]:
                raise Failure(f"{variant} output differs from the program's at {tag} ranks:\n"
                              f"--- program\n{outputs['native']}"
                              f"--- {variant}\n{outputs[variant]}")
        native_outputs[np_] = outputs["native"]
    if a.same_output and len(set(native_outputs.values())) > 1:
        raise Failure("the output differs between rank counts:\n" + "".join(
            f"--- {n} ranks\n{o}" for n, o in sorted(native_outputs.items())))

    # 5. the user's tree is untouched
    after = snapshot(program_dir)
    if after != before:
        changed = sorted(set(before.items()) ^ set(after.items()))
        raise Failure(f"the program's source directory changed: {changed}")
    print("[sources] unchanged")
    print(f"e2e {app}: ok")


if __name__ == "__main__":
    try:
        main()
    except Failure as e:
        print(f"e2e: FAILED: {e}", file=sys.stderr)
        sys.exit(1)

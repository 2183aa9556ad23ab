#!/usr/bin/env python3
"""Drop-in behaviour of mpiete-cc on mpicc command lines: one case per run.

usage: wrapper_test.py --build BUILD --work WORK --mpiexec MPIRUN --blockmap-check EXE CASE

The fixture sources (tests/e2e/wrapper/) are copied to WORK/src; every case compiles them
from other directories with relative paths, compares with what mpicc does given the same
arguments, and at the end checks WORK/src is unchanged (same files, same sha256). The
fixture program prints values computed from the rank count and -DSCALE, which the test
recomputes here. Each case's docstring says what it asserts.
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys

from e2e_util import launch, native_compiler, run_group

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wrapper")
# STYLE.md: `file:line:col: error|warning: message [mpiete-category]`; a diagnostic about a
# whole file (an object, an archive) has no line and column.
DIAG = re.compile(r"^(?P<file>[^:\n]+)(?::(?P<line>\d+):(?P<col>\d+))?: (?P<sev>error|warning): "
                  r"(?P<msg>.*) \[mpiete-(?P<cat>[a-z-]+)\]$", re.M)


class Failure(Exception):
    pass


class Ctx:
    def __init__(self, args):
        self.build = os.path.abspath(args.build)
        self.work = os.path.abspath(args.work)
        self.mpiexec = args.mpiexec
        self.blockmap_check = args.blockmap_check
        self.cc = os.path.join(self.build, "bin", "mpiete-cc")
        self.src = os.path.join(self.work, "src")
        self.env = dict(os.environ)
        self.env["PATH"] = os.path.join(self.build, "bin") + os.pathsep + self.env.get("PATH", "")
        self.env.pop("MPIETE_CC", None)
        self.env.pop("MPIETE_VERBOSE", None)
        self.env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        self.env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")

    def dir(self, name):
        d = os.path.join(self.work, name)
        os.makedirs(d, exist_ok=True)
        return d

    def run(self, argv, cwd, env=None, timeout=120):
        rc, out, err = run_group(argv, cwd, env or self.env, timeout)
        if rc is None:
            raise Failure(f"timed out after {timeout} s: {' '.join(argv)}\n{err}")
        return rc, out, err

    def mpiete(self, args, cwd, ok=True, env=None):
        rc, out, err = self.run([self.cc] + args, cwd, env)
        if ok and rc != 0:
            raise Failure(f"mpiete-cc {' '.join(args)} failed (exit {rc}) in {cwd}:\n{out}{err}")
        return rc, out, err

    def mpicc(self, args, cwd):
        rc, out, err = self.run([native_compiler("c")] + args, cwd)
        if rc != 0:
            raise Failure(f"mpicc {' '.join(args)} failed (exit {rc}):\n{out}{err}")
        return rc, out, err

    def archive(self, name, members, cwd):
        rc, out, err = self.run(["ar", "rcs", name] + members, cwd)
        if rc != 0:
            raise Failure(f"ar rcs {name} failed:\n{out}{err}")

    def mpirun(self, exe, np_, cwd, outdir):
        env = dict(self.env, MPIETE_OUTDIR=outdir)
        # The fixture runs in well under a second; a probe that hangs (a deadlock under
        # token passing) fails here rather than at ctest's timeout.
        rc, out, err = self.run(launch(self.mpiexec, np_) + [exe], cwd, env,
                                timeout=30)
        if rc != 0:
            raise Failure(f"{exe} at {np_} ranks exited {rc}:\n{out}{err}")
        return out

    def check_map(self, exe, sources):
        argv = [self.blockmap_check, exe + ".blocks.yaml", f"--units={len(sources)}"]
        argv += [f"--source={s}" for s in sources]
        rc, out, err = self.run(argv, os.path.dirname(exe))
        if rc != 0:
            raise Failure(f"block map of {exe}:\n{err}")
        return out.strip()


def snapshot(tree):
    out = {}
    for dirpath, _, files in os.walk(tree):
        for f in files:
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, tree)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def read(path):
    with open(path, "rb") as f:
        return f.read()


def expect(cond, msg):
    if not cond:
        raise Failure(msg)


def same(a, b, what):
    expect(os.path.isfile(a), f"{what}: {a} missing")
    expect(os.path.isfile(b), f"{what}: {b} missing")
    expect(read(a) == read(b), f"{what}: {a} and {b} differ")


def exists(*paths):
    for p in paths:
        expect(os.path.isfile(p), f"expected {p} to exist")


def absent(*paths):
    for p in paths:
        expect(not os.path.exists(p), f"expected {p} not to exist")


def no_diagnostics(err, what):
    expect(not DIAG.search(err) and "warning" not in err and "error" not in err,
           f"{what}: unexpected diagnostics:\n{err}")


def probes(exe):
    exists(exe, exe + ".trace", exe + ".timing", exe + ".blocks.yaml")


def expected_line(np_, scale, helper):
    """What the fixture's rank 0 prints (see wrapper/main.c)."""
    values = [(r + 1) * scale for r in range(np_)]
    m = max(7 * v + 1 if helper else v for v in values)
    acc = sum(i % 7 for i in range(1000))
    return f"fixture: size={np_} sum={sum(values)} max={m} acc={acc}\n"


def run_variants(ctx, exe, np_, expected, variants=("native", "trace", "timing")):
    """Runs the variants at np_ ranks; each prints `expected`, each probe writes np_ files."""
    for v in variants:
        binary = exe if v == "native" else f"{exe}.{v}"
        outdir = os.path.join(os.path.dirname(exe), f"out-{v}-{np_}")
        out = ctx.mpirun(binary, np_, os.path.dirname(exe), outdir)
        expect(out == expected, f"{v} printed {out!r}, expected {expected!r}")
        if v != "native":
            files = sorted(os.listdir(outdir)) if os.path.isdir(outdir) else []
            ranks = sorted(int(m.group(1)) for m in
                           (re.match(r"rank(\d+)\.(?!loops$)", f) for f in files) if m)
            expect(ranks == list(range(np_)),
                   f"{v} wrote {files}, expected one rank<N>.* file per rank")


def line_of(path, needle):
    with open(path) as f:
        for n, text in enumerate(f, 1):
            col = text.find(needle)
            if col >= 0:
                return n, col + 1
    raise Failure(f"{needle} not in {path}")


INC = ["-I../src/inc", "-DSCALE=3"]


# ---------------------------------------------------------------------------------------------
def case_multi_source_link(ctx):
    """Several sources compiled and linked in one call with -o: app is byte-identical to
    mpicc's, the probes and a 2-unit block map appear, intermediate files only in .mpiete/,
    and the three variants print the same (correct) line at 2 ranks."""
    b, r = ctx.dir("b"), ctx.dir("ref")
    args = ["-O2", "-Wall"] + INC + ["-o", "app", "../src/main.c", "../src/util.c"]
    _, _, err = ctx.mpiete(args, b)
    no_diagnostics(err, "mpiete-cc")
    ctx.mpicc(args, r)
    same(os.path.join(b, "app"), os.path.join(r, "app"), "native program")
    probes(os.path.join(b, "app"))
    print(ctx.check_map(os.path.join(b, "app"), ["../src/main.c", "../src/util.c"]))
    expect(sorted(os.listdir(b)) == [".mpiete", "app", "app.blocks.yaml", "app.skeleton",
                                     "app.skeleton.removed", "app.timing", "app.trace"],
           f"files beside app: {os.listdir(b)}")
    run_variants(ctx, os.path.join(b, "app"), 2, expected_line(2, 3, False))


def case_compile_only(ctx):
    """-c without -o (object in the cwd), -c with -o into a subdirectory, joined -ofile,
    several sources with -c: each object byte-identical to mpicc's, each with its trace and
    timing objects and block map in .mpiete/ beside it; then linking those objects gives an
    instrumented program without any warning."""
    c, r = ctx.dir("c"), ctx.dir("ref")
    for d in (c, r):
        os.makedirs(os.path.join(d, "sub"), exist_ok=True)
    runs = [
        (["-c", "../src/util.c"] + INC, ["util.o"]),
        (["-O2"] + INC + ["-c", "../src/main.c", "-o", "sub/m.o"], ["sub/m.o"]),
        (["-c", "../src/util.c", "-outil2.o"] + INC, ["util2.o"]),
        (["-c"] + INC + ["../src/main.c", "../src/util.c"], ["main.o", "util.o"]),
    ]
    for args, objs in runs:
        _, _, err = ctx.mpiete(args, c)
        no_diagnostics(err, "mpiete-cc " + " ".join(args))
        ctx.mpicc(args, r)
        for o in objs:
            same(os.path.join(c, o), os.path.join(r, o), "object")
            side = os.path.join(c, os.path.dirname(o), ".mpiete", os.path.basename(o))
            exists(side + ".trace.o", side + ".timing.o", side + ".blocks.yaml")
    absent(os.path.join(c, ".mpiete", "m.o.trace.o"))  # sidecars go beside their object
    _, _, err = ctx.mpiete(["-o", "app", "sub/m.o", "util.o"], c)
    no_diagnostics(err, "link")
    ctx.mpicc(["-o", "app", "sub/m.o", "util.o"], r)
    same(os.path.join(c, "app"), os.path.join(r, "app"), "native program")
    probes(os.path.join(c, "app"))
    print(ctx.check_map(os.path.join(c, "app"), ["../src/main.c", "../src/util.c"]))
    run_variants(ctx, os.path.join(c, "app"), 2, expected_line(2, 3, False))


def case_preprocess(ctx):
    """-E (to stdout and with -o) and -S pass through: the same output as mpicc, and no
    probes or .mpiete/ folder are made; nor with -o /dev/null (a compile check)."""
    c, r = ctx.dir("c"), ctx.dir("ref")
    _, out_cc, _ = ctx.mpiete(["-E"] + INC + ["../src/main.c"], c)
    _, out_ref, _ = ctx.mpicc(["-E"] + INC + ["../src/main.c"], r)
    expect(out_cc == out_ref and "ring_sum" in out_cc, "-E output differs from mpicc's")
    for args, out in ((["-E"] + INC + ["../src/main.c", "-o", "main.i"], "main.i"),
                      (["-S", "-O2"] + INC + ["../src/util.c", "-o", "util.s"], "util.s")):
        ctx.mpiete(args, c)
        ctx.mpicc(args, r)
        same(os.path.join(c, out), os.path.join(r, out), " ".join(args[:1]))
    expect(sorted(os.listdir(c)) == ["main.i", "util.s"], f"extra files: {os.listdir(c)}")
    # A compile check into /dev/null (here through a link to it, so a regression cannot
    # write into /dev): the native compile runs, no probes are attempted.
    os.symlink("/dev/null", os.path.join(c, "null"))
    ctx.mpiete(["-c"] + INC + ["../src/main.c", "-o", "null"], c)
    ctx.mpiete(["-o", "null"] + INC + ["../src/main.c", "../src/util.c"], c)
    expect(sorted(os.listdir(c)) == ["main.i", "null", "util.s"] and
           os.path.realpath(os.path.join(c, "null")) == "/dev/null",
           f"after -o /dev/null: {os.listdir(c)}")


def case_depfiles(ctx):
    """-M and -MM print what mpicc prints; -MD -MF, -MMD -MP, joined -MFfile -MTtarget and
    -Wp,-MD,file write the same dependency files as mpicc (nothing about .mpiete/ in them),
    and the objects still get their probes."""
    c, r = ctx.dir("c"), ctx.dir("ref")
    for flag in ("-M", "-MM"):
        _, out_cc, _ = ctx.mpiete([flag] + INC + ["../src/main.c"], c)
        _, out_ref, _ = ctx.mpicc([flag] + INC + ["../src/main.c"], r)
        expect(out_cc == out_ref and "util.h" in out_cc, f"{flag} output differs:\n{out_cc}")
    runs = [
        (["-c", "../src/main.c", "-o", "main.o", "-MD", "-MF", "main.d"] + INC, "main.o", "main.d"),
        (["-c", "../src/util.c", "-o", "util.o", "-MMD", "-MP"] + INC, "util.o", "util.d"),
        (["-c", "../src/main.c", "-o", "m2.o", "-MD", "-MFm2.d", "-MTtarget"] + INC, "m2.o", "m2.d"),
        (["-c", "../src/util.c", "-o", "u2.o", "-Wp,-MD,u2.d"] + INC, "u2.o", "u2.d"),
    ]
    for args, obj, dep in runs:
        ctx.mpiete(args, c)
        ctx.mpicc(args, r)
        same(os.path.join(c, dep), os.path.join(r, dep), "dependency file")
        same(os.path.join(c, obj), os.path.join(r, obj), "object")
        expect(".mpiete" not in read(os.path.join(c, dep)).decode(), f"{dep} names .mpiete")
        exists(os.path.join(c, ".mpiete", obj + ".trace.o"))
    deps = sorted(f for f in os.listdir(c) if f.endswith(".d"))
    expect(deps == ["m2.d", "main.d", "u2.d", "util.d"], f"dependency files: {deps}")
    hidden = [f for f in os.listdir(os.path.join(c, ".mpiete")) if f.endswith(".d")]
    expect(not hidden, f"dependency files in .mpiete/: {hidden}")


def case_flags(ctx):
    """-I/-D/-L/-l in separate and joined form, with -g -Werror -std=c99: the native program
    equals mpicc's (built in the same directory, as -g records it), the probes build without
    warnings under -Werror, and all variants print the value -DSCALE=5 and libhelper give."""
    c = ctx.dir("c")
    lib = ctx.dir("c/lib")
    ctx.mpicc(["-c", "../../src/helper.c", "-o", "helper.o"], lib)
    ctx.archive("libhelper.a", ["helper.o"], lib)
    common = ["-O1", "-g", "-Wall", "-Wextra", "-Werror", "-std=c99", "-DUSE_HELPER"]
    separate = common + ["-I", "../src/inc", "-D", "SCALE=5", "../src/main.c", "../src/util.c",
                         "-L", "lib", "-l", "helper"]
    joined = common + ["-I../src/inc", "-DSCALE=5", "../src/main.c", "../src/util.c",
                       "-Llib", "-lhelper"]
    for name, args in (("app", separate), ("app2", joined)):
        _, _, err = ctx.mpiete(args + ["-o", name], c)
        no_diagnostics(err, "mpiete-cc " + " ".join(args))
        ctx.mpicc(args + ["-o", "ref-" + name], c)
        same(os.path.join(c, name), os.path.join(c, "ref-" + name), "native program")
        probes(os.path.join(c, name))
        run_variants(ctx, os.path.join(c, name), 2, expected_line(2, 5, True))


def case_native_cc(ctx):
    """$MPIETE_CC is the native compiler: a logging script sees the user's exact command
    line first, then the probe compiles and links; a missing $MPIETE_CC is an error."""
    c = ctx.dir("c")
    log = os.path.join(c, "cc.log")
    script = os.path.join(c, "logcc")
    cc = native_compiler("c")
    with open(script, "w") as f:
        f.write(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec {cc} "$@"\n')
    os.chmod(script, 0o755)
    env = dict(ctx.env, MPIETE_CC=script)
    compile_args = ["-c", "../src/util.c", "-o", "util.o"] + INC
    ctx.mpiete(compile_args, c, env=env)
    lines = open(log).read().splitlines()
    expect(lines[0] == " ".join(compile_args), f"first native command: {lines[0]!r}")
    expect(any(".mpiete/util.o.trace.c" in l for l in lines) and
           any(".mpiete/util.o.timing.c" in l for l in lines),
           f"probe compiles did not go through $MPIETE_CC:\n" + "\n".join(lines))
    os.remove(log)
    link_args = ["-o", "app", "../src/main.c", "util.o"] + INC
    ctx.mpiete(link_args, c, env=env)
    lines = open(log).read().splitlines()
    expect(lines[0] == " ".join(link_args), f"first native command: {lines[0]!r}")
    expect(any("libmpiete_trace.a" in l for l in lines) and
           any("libmpiete_timing.a" in l for l in lines),
           "probe links did not go through $MPIETE_CC:\n" + "\n".join(lines))
    run_variants(ctx, os.path.join(c, "app"), 2, expected_line(2, 3, False), ("native", "trace"))
    bad = dict(ctx.env, MPIETE_CC=os.path.join(c, "no-such-compiler"))
    rc, _, err = ctx.mpiete(compile_args, c, ok=False, env=bad)
    expect(rc != 0 and "no-such-compiler" in err and "[mpiete-driver]" in err,
           f"missing MPIETE_CC: exit {rc}, stderr:\n{err}")


def case_archive(ctx):
    """A static archive of objects built by mpiete-cc, linked by path: mpiete-cc warns that
    the archive is linked uninstrumented (its MPI calls and time are not modelled), exits 0,
    builds the native program exactly as mpicc, and the probes work with the archive's MPI
    calls going straight to MPI: the block map holds main.c only, and every variant prints
    the right result. (A -l library is not looked into and gives no warning.)"""
    c, r = ctx.dir("c"), ctx.dir("ref")
    ctx.mpiete(["-c", "../src/util.c", "-o", "util.o"] + INC, c)
    ctx.archive("libutil.a", ["util.o"], c)
    args = ["-o", "app"] + INC + ["../src/main.c", "libutil.a"]
    _, _, err = ctx.mpiete(args, c)
    warnings = [m for m in DIAG.finditer(err) if m["sev"] == "warning"]
    expect(len(warnings) == 1 and warnings[0]["cat"] == "uninstrumented" and
           "libutil.a" in err and "archive" in warnings[0]["msg"],
           f"expected one archive warning, got:\n{err}")
    shutil.copy(os.path.join(c, "libutil.a"), r)
    ctx.mpicc(args, r)
    same(os.path.join(c, "app"), os.path.join(r, "app"), "native program")
    probes(os.path.join(c, "app"))
    print(ctx.check_map(os.path.join(c, "app"), ["../src/main.c"]))
    run_variants(ctx, os.path.join(c, "app"), 2, expected_line(2, 3, False))


def case_foreign_object(ctx):
    """An object compiled by plain mpicc linked with mpiete-cc: a warning naming it
    ([mpiete-uninstrumented]), exit 0, probes built, block map without that unit, and the
    variants still print the right result. The same for an object that mpiete-cc built
    once and mpicc rebuilt later (its probes in .mpiete/ are stale)."""
    c = ctx.dir("c")
    ctx.mpicc(["-c", "../src/util.c", "-o", "util.o"] + INC, c)
    _, _, err = ctx.mpiete(["-o", "app"] + INC + ["../src/main.c", "util.o"], c)
    warnings = [m for m in DIAG.finditer(err) if m["sev"] == "warning"]
    expect(len(warnings) == 1 and warnings[0]["cat"] == "uninstrumented" and
           "util.o" in err and "not compiled by mpiete-cc" in err,
           f"expected one warning about util.o, got:\n{err}")
    probes(os.path.join(c, "app"))
    print(ctx.check_map(os.path.join(c, "app"), ["../src/main.c"]))
    run_variants(ctx, os.path.join(c, "app"), 2, expected_line(2, 3, False))
    # Built by mpiete-cc, then rebuilt by mpicc: the old probes in .mpiete/ are stale and
    # must not be linked (they would model other code).
    ctx.mpiete(["-c", "../src/util.c", "-o", "util.o"] + INC, c)
    ctx.mpicc(["-c", "../src/util.c", "-o", "util.o", "-DSTALE"] + INC, c)
    _, _, err = ctx.mpiete(["-o", "app2"] + INC + ["../src/main.c", "util.o"], c)
    warnings = [m for m in DIAG.finditer(err) if m["sev"] == "warning"]
    expect(len(warnings) == 1 and warnings[0]["file"] == "util.o" and
           "newer than its probes" in warnings[0]["msg"], f"stale probes: got\n{err}")
    print(ctx.check_map(os.path.join(c, "app2"), ["../src/main.c"]))


def case_unsupported_error(ctx):
    """MPI_Win_create is unsupported: `file:line:col: error: ... [mpiete-unsupported]` with
    the path as the user gave it, and a non-zero exit. Decision: mpiete-cc then fails like
    a compiler and leaves no output (no object, no executable, no probes), so make stops
    here and a later make retries the file instead of finding a fresh object without
    probes. The message names the way out (--mpiete-pass-through)."""
    c = ctx.dir("c")
    src = os.path.join(ctx.src, "win.c")
    line, col = line_of(src, "MPI_Win_create")
    for args, outs in ((["-c", "../src/win.c", "-o", "win.o"], ["win.o", ".mpiete/win.o.trace.o"]),
                       (["-o", "app", "../src/win.c"], ["app", "app.trace", "app.timing",
                                                        "app.blocks.yaml"])):
        rc, _, err = ctx.mpiete(args, c, ok=False)
        expect(rc != 0, f"mpiete-cc {' '.join(args)} exited 0")
        errors = [m for m in DIAG.finditer(err) if m["sev"] == "error"]
        first = errors[0] if errors else None
        expect(first is not None and first["file"] == "../src/win.c" and
               int(first["line"]) == line and int(first["col"]) == col and
               first["cat"] == "unsupported" and "MPI_Win_create" in first["msg"] and
               "--mpiete-pass-through=MPI_Win_create" in first["msg"],
               f"expected ../src/win.c:{line}:{col}: error: ...MPI_Win_create..., got:\n{err}")
        absent(*(os.path.join(c, o) for o in outs))


def case_failed_variant(ctx):
    """Issue 14, finding 10: a probe variant that fails for reasons of mpiete's own (an output
    name too long for the probes' file names, a variant the compiler rejects) is an error
    naming the variant and why, with a non-zero exit, and the native output mpicc built is
    kept (the command without mpiete would have left it); no probe of the unit is left."""
    c = ctx.dir("c")
    with open(os.path.join(c, "ring.c"), "w") as f:
        f.write("#include <mpi.h>\nint main(int argc, char **argv) {\n  int v = 0;\n"
                "  MPI_Init(&argc, &argv);\n  MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);\n"
                "  MPI_Finalize();\n  return v;\n}\n")
    long = "x" * 240
    for args, native in ((["-c", "ring.c", "-o", long + ".o"], long + ".o"),
                         (["-o", long, "ring.c"], long)):
        rc, _, err = ctx.mpiete(args, c, ok=False)
        diags = [(m["sev"], m["cat"]) for m in DIAG.finditer(err)]
        expect(rc != 0 and diags == [("error", "probe-failed")] and re.search(r"would be 2[5-9]\d bytes", err) and
               "more than the file system's 255" in err,
               f"{args[:2]} with a 240-character name: exit {rc}, diagnostics {diags}:\n{err}")
        exists(os.path.join(c, native))
        absent(os.path.join(c, long + ".trace"), os.path.join(c, long + ".timing"))
    # A compiler that rejects the probe variants (files under .mpiete/) but not the source.
    cc = os.path.join(c, "picky-cc")
    with open(cc, "w") as f:
        f.write("#!/bin/sh\ncase \"$*\" in *.mpiete/*.c*) echo 'picky-cc: no' >&2; exit 3;; "
                "esac\nexec mpicc \"$@\"\n")
    os.chmod(cc, 0o755)
    env = dict(ctx.env, MPIETE_CC=cc)
    rc, _, err = ctx.mpiete(["-c", "ring.c", "-o", "ring.o"], c, ok=False, env=env)
    errors = [m for m in DIAG.finditer(err) if m["sev"] == "error"]
    expect(rc != 0 and len(errors) == 1 and errors[0]["cat"] == "probe-failed" and
           errors[0]["file"] == "ring.c" and "the trace probe of this file" in errors[0]["msg"] and
           "exit status 3" in errors[0]["msg"] and "picky-cc: no" in err,
           f"a variant the compiler rejects: exit {rc}:\n{err}")
    exists(os.path.join(c, "ring.o"))
    absent(os.path.join(c, ".mpiete", "ring.o.trace.o"), os.path.join(c, ".mpiete", "ring.o.timing.o"),
           os.path.join(c, ".mpiete", "ring.o.blocks.yaml"))
    # A macro-hidden MPI call (mpiete's limitation, no pass-through for it): the located error,
    # a note that the native object is kept, and the object mpicc built; linked later, the
    # object is named as uninstrumented.
    with open(os.path.join(c, "hidden.c"), "w") as f:
        f.write("#include <mpi.h>\n#define SYNC() MPI_Barrier(MPI_COMM_WORLD)\n"
                "int main(int argc, char **argv) {\n  MPI_Init(&argc, &argv);\n  SYNC();\n"
                "  MPI_Finalize();\n  return 0;\n}\n")
    rc, _, err = ctx.mpiete(["-c", "hidden.c", "-o", "hidden.o"], c, ok=False)
    diags = [(m["file"], m["line"], m["sev"], m["cat"]) for m in DIAG.finditer(err)]
    expect(rc != 0 and diags == [("hidden.c", "5", "error", "macro")] and
           "hidden.c: note: the native output is kept as mpicc built it" in err,
           f"a macro-hidden call under -c: exit {rc}, diagnostics {diags}:\n{err}")
    exists(os.path.join(c, "hidden.o"))
    absent(os.path.join(c, ".mpiete", "hidden.o.trace.o"), os.path.join(c, ".mpiete", "hidden.o.blocks.yaml"))
    _, _, err = ctx.mpiete(["-o", "hidden", "hidden.o"], c)
    expect([m["cat"] for m in DIAG.finditer(err)] == ["uninstrumented"] and "hidden.o" in err,
           f"linking the kept object: expected the uninstrumented warning:\n{err}")
    exists(os.path.join(c, "hidden"))


def case_probe_faults(ctx):
    """Issue 14, findings 8 and "partial output": a deadlocking trace probe (deadlock.c: ranks
    0 and 1 receive head to head, rank 2 waits at the barrier) is stopped by probe-program's
    --hang-timeout once every rank waits in MPI and none made progress, with a located note per
    rank naming the MPI call it waits in, while a rank computing for twice the timeout between
    two calls (compute.c) is no hang and the job finishes normally; a rank that is killed, or exits without MPI_Finalize, leaves only
    rank<N>.trace.part (never a file that looks complete), and probe-program says so."""
    c = ctx.dir("c")
    src = os.path.join(ctx.src, "deadlock.c")
    mpiete = os.path.join(ctx.build, "bin", "mpiete")
    ctx.mpiete(["-o", "dead", "../src/deadlock.c"], c)
    with open(os.path.join(c, "nofin.c"), "w") as f:
        f.write("#include <mpi.h>\nint main(int argc, char **argv) {\n  MPI_Init(&argc, &argv);\n"
                "  MPI_Barrier(MPI_COMM_WORLD);\n  return 0;\n}\n")
    ctx.mpiete(["-o", "nofin", "nofin.c"], c)
    rc, _, err = ctx.run([mpiete, "probe-program", "--hang-timeout", "5", "-o", "dead-out",
                          "-np", "3", "--launcher", ctx.mpiexec, "./dead.trace"], c, timeout=120)
    recv, barrier = line_of(src, "MPI_Recv")[0], line_of(src, "MPI_Barrier")[0]
    notes = sorted((m[1], int(m[2]), re.sub(r"\(pid \d+\)", "(pid N)", m[3]))
                   for m in re.finditer(r"^([^:\n]+):(\d+):\d+: note: (.*) \[mpiete-hang\]$", err,
                                        re.M))
    dead = "../src/deadlock.c"
    expect(rc != 0 and "every unfinished rank waits in an MPI call and none began or finished one "
           "for 5.0 s (--hang-timeout)" in err
           and "3 of 3 ranks never finished" in err and
           notes == [(dead, recv, "rank 0 (pid N) waits in MPI_Recv here"),
                     (dead, recv, "rank 1 (pid N) waits in MPI_Recv here"),
                     (dead, barrier, "rank 2 (pid N) waits in MPI_Barrier here")],
           f"deadlock under --hang-timeout 5: exit {rc}, notes {notes}:\n{err}")
    absent(*(os.path.join(c, "dead-out", f"rank{r}.trace") for r in range(3)))
    # Rank 0 computes 6 s between MPI_Init and MPI_Send while rank 1 waits in MPI_Recv.
    ctx.mpiete(["-o", "comp", "../src/compute.c"], c)
    rc, _, err = ctx.run([mpiete, "probe-program", "--hang-timeout", "3", "-o", "comp-out",
                          "-np", "2", "--launcher", ctx.mpiexec, "./comp.trace", "6"], c,
                         timeout=120)
    expect(rc == 0 and "mpiete-hang" not in err,
           f"6 s of compute under --hang-timeout 3: exit {rc}:\n{err}")
    exists(*(os.path.join(c, "comp-out", f"rank{r}.trace") for r in range(2)))
    rc, _, err = ctx.run([mpiete, "probe-program", "-o", "nofin-out", "-np", "2", "--launcher",
                          ctx.mpiexec, "./nofin.trace"], c, timeout=60)
    expect(rc != 0 and "exited without MPI_Finalize" in err, f"no MPI_Finalize: exit {rc}:\n{err}")
    absent(os.path.join(c, "nofin-out", "rank0.trace"), os.path.join(c, "nofin-out", "rank1.trace"))
    exists(os.path.join(c, "nofin-out", "rank0.trace.part"))
    # Finding 7: a 100-int message into a 10-int receive under the token machine ends the run
    # as native MPI does, naming the rank, the call and the error; no machine file.
    with open(os.path.join(c, "trunc.c"), "w") as f:
        f.write("#include <mpi.h>\nint main(int argc, char **argv) {\n  int r, big[100] = {0}, "
                "small[10];\n  MPI_Init(&argc, &argv);\n  MPI_Comm_rank(MPI_COMM_WORLD, &r);\n"
                "  if (r == 0) MPI_Send(big, 100, MPI_INT, 1, 0, MPI_COMM_WORLD);\n  else "
                "MPI_Recv(small, 10, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n"
                "  MPI_Finalize();\n  return 0;\n}\n")
    ctx.mpiete(["-o", "trunc", "trunc.c"], c)
    rc, _, err = ctx.run([mpiete, "probe-compute", "-o", "m.yaml", "-np", "2", "--launcher",
                          ctx.mpiexec, "./trunc.timing"], c, timeout=60)
    expect(rc != 0 and re.search(r"rank 1: error: MPI_Wait at site [0-9a-f]{8}:\d+ failed: "
                                 r"MPI_ERR_TRUNCATE", err),
           f"truncation under probe-compute: exit {rc}:\n{err}")
    absent(os.path.join(c, "m.yaml"))


def case_pass_through(ctx):
    """--mpiete-pass-through=MPI_Win_create turns that error into a warning at the call
    (MPI_Win_free stays an error); with both passed through mpiete-cc exits 0, the option
    never reaches mpicc (the object equals mpicc's without it), and the program and probes
    run at 2 ranks with the same output."""
    c, r = ctx.dir("c"), ctx.dir("ref")
    src = os.path.join(ctx.src, "win.c")
    rc, _, err = ctx.mpiete(["--mpiete-pass-through=MPI_Win_create", "-c", "../src/win.c",
                             "-o", "win.o"], c, ok=False)
    diags = [(m["sev"], m["cat"], int(m["line"])) for m in DIAG.finditer(err)]
    expect(rc != 0 and diags == [("warning", "pass-through", line_of(src, "MPI_Win_create")[0]),
                                 ("error", "unsupported", line_of(src, "MPI_Win_free")[0])],
           f"only MPI_Win_create passed through: exit {rc}, diagnostics {diags}:\n{err}")
    _, _, err = ctx.mpiete(["--mpiete-pass-through=MPI_Win_create,MPI_Win_free", "-c",
                            "../src/win.c", "-o", "win.o"], c)
    diags = [(m["sev"], m["cat"]) for m in DIAG.finditer(err)]
    expect(diags == [("warning", "pass-through")] * 2, f"diagnostics: {err}")
    ctx.mpicc(["-c", "../src/win.c", "-o", "win.o"], r)
    same(os.path.join(c, "win.o"), os.path.join(r, "win.o"), "object")
    ctx.mpiete(["-o", "app", "win.o"], c)
    probes(os.path.join(c, "app"))
    run_variants(ctx, os.path.join(c, "app"), 2, "window created and freed\n")


def case_mixed_link(ctx):
    """One link call with a source, an object built by mpiete-cc under a non-.o name,
    and -lm, with -o before the inputs: no warning, a 2-unit block map, the native
    program equals mpicc's, and the variants print the right result."""
    c, r = ctx.dir("c"), ctx.dir("ref")
    for d, tool in ((c, ctx.mpiete), (r, ctx.mpicc)):
        tool(["-c", "../src/util.c", "-o", "util.obj"] + INC, d)
        _, _, err = tool(["-o", "app", "-O2"] + INC + ["../src/main.c", "util.obj", "-lm"], d)
        if d == c:
            no_diagnostics(err, "link")
    same(os.path.join(c, "app"), os.path.join(r, "app"), "native program")
    probes(os.path.join(c, "app"))
    print(ctx.check_map(os.path.join(c, "app"), ["../src/main.c", "../src/util.c"]))
    run_variants(ctx, os.path.join(c, "app"), 2, expected_line(2, 3, False))


def case_native_no_mpi(ctx):
    """A file without MPI calls (helper.c) is compiled natively, untouched: no variants and no
    Clang run (only the .native note in .mpiete/), no diagnostics; linked with mpiete-cc its
    native object goes into the probes without a warning, the block map holds the other two
    units, and every variant prints the right result at 2 ranks."""
    c, r = ctx.dir("c"), ctx.dir("ref")
    env = dict(ctx.env, MPIETE_VERBOSE="1")
    _, _, err = ctx.mpiete(["-c", "../src/helper.c", "-o", "helper.o"], c, env=env)
    expect("mpiete-instrument" not in err, f"the instrumenter ran on helper.c:\n{err}")
    expect("built natively" in err, f"no native note in the verbose output:\n{err}")
    exists(os.path.join(c, ".mpiete", "helper.o.native"))
    absent(os.path.join(c, ".mpiete", "helper.o.trace.c"),
           os.path.join(c, ".mpiete", "helper.o.trace.o"),
           os.path.join(c, ".mpiete", "helper.o.blocks.yaml"))
    ctx.mpicc(["-c", "../src/helper.c", "-o", "helper.o"], r)
    same(os.path.join(c, "helper.o"), os.path.join(r, "helper.o"), "native object")
    args = ["-o", "app", "-DUSE_HELPER"] + INC + ["../src/main.c", "../src/util.c", "helper.o"]
    _, _, err = ctx.mpiete(args, c)
    no_diagnostics(err, "link with a native object")
    probes(os.path.join(c, "app"))
    print(ctx.check_map(os.path.join(c, "app"), ["../src/main.c", "../src/util.c"]))
    run_variants(ctx, os.path.join(c, "app"), 2, expected_line(2, 3, True))


def loop_head_offsets(exe, fn):
    """The offsets within their 64-byte lines of fn's loop heads in exe, sorted: the targets of
    its backward jumps from which the jump is reached without leaving the code between them (a
    cold block after the return that jumps back to where the hot path joins makes no loop; a
    rotated loop, entered in its middle, does). Read from objdump's disassembly, not from
    mpiete's listings."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe], capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"^[0-9a-f]+ <%s>:\n(.*?)\n\n" % re.escape(fn), out, re.S | re.M)
    expect(m is not None, f"{exe}: no function {fn} in the disassembly")
    code = []  # (address, mnemonic, direct target or None)
    for line in m.group(1).splitlines():
        i = re.match(r"\s*([0-9a-f]+):\s+(?:(?:notrack|bnd|rep|repz)\s+)?(\S+)\s*(\S*)", line)
        if i:
            t = re.match(r"([0-9a-f]+) <", i.group(3) + " <") if i.group(2).startswith("j") \
                else None
            code.append((int(i.group(1), 16), i.group(2), int(t.group(1), 16) if t else None))
    index = {a: k for k, (a, _, _) in enumerate(code)}
    expect(not any(mn.startswith("jmp") and t is None for _, mn, t in code),
           f"{exe}: {fn} has an indirect jump, which this check does not follow")

    def successors(k):
        _, mn, t = code[k]
        if mn.startswith("ret") or mn in ("ud2", "hlt"):
            return []
        nxt = [k + 1] if k + 1 < len(code) else []
        if mn.startswith("jmp"):
            return [index[t]] if t in index else []
        if mn.startswith("j") or mn.startswith("loop"):
            return nxt + ([index[t]] if t in index else [])
        return nxt

    def loops_back(head, jump):
        seen, work = {head}, [head]
        while work:
            k = work.pop()
            if k == jump:
                return True
            for n in successors(k):
                if head <= n <= jump and n not in seen:
                    seen.add(n)
                    work.append(n)
        return False

    heads = set()
    for k, (a, mn, t) in enumerate(code):
        if mn.startswith("j") and t is not None and t < a and t in index \
                and loops_back(index[t], k):
            heads.add(t)
    return sorted(t % 64 for t in heads)


def expect_placed(exe, functions):
    """exe's block map says its timing probe's loops were placed (some of them), and each of
    functions has its loop heads at the same offsets within their lines in exe and exe.timing."""
    m = re.search(rb"timing probe: loops placed as in the program \((\d+) of (\d+)\)",
                  read(exe + ".blocks.yaml"))
    expect(m is not None and int(m.group(1)) > 0,
           f"{exe}'s block map does not say the loops' placement")
    for fn in functions:
        want, got = loop_head_offsets(exe, fn), loop_head_offsets(exe + ".timing", fn)
        expect(want and want == got, f"{fn}'s loop heads in their lines: program {want}, "
               f"timing probe {got}")


def case_place_loops(ctx):
    """By default the timing probe's loops lie where the program's do within their 64-byte
    lines (docs/probes.md, "Loop alignment"): layout_main.c (MPI calls around loops of pure
    computation in main) and layout_kernel.c (no MPI calls) are compiled to listings, the
    link pads each loop head to its twin's offset in the program, and app.timing links the
    padded objects; the block map says how many loops were placed. Checked on the
    disassembly: every backward jump target of main and smooth has the same offset in its line
    in app and app.timing. The native objects are mpicc's, byte for byte; every variant prints
    the program's result. The same with mpiete-fc for layout_main.f90 and layout_kernel.f90."""
    c, r = ctx.dir("c"), ctx.dir("ref")
    env = dict(ctx.env, MPIETE_VERBOSE="1")
    _, _, err = ctx.mpiete(["-O2", "-c", "../src/layout_kernel.c", "-o", "kernel.o"], c, env=env)
    _, _, err2 = ctx.mpiete(["-O2", "-o", "app", "../src/layout_main.c", "kernel.o"], c, env=env)
    err += err2
    timing = [l for l in err.splitlines() if l.startswith("+ ") and "libmpiete_timing.a" in l]
    expect(len(timing) == 1 and ".mpiete/app.kernel.o.timing.placed.o" in timing[0].split()
           and "kernel.o" not in timing[0].split()
           and ".mpiete/app.layout_main.c.timing.placed.o" in timing[0].split(),
           f"timing link: {timing}")
    expect("-falign-loops" not in err, f"a loop alignment flag was used:\n{err}")
    ctx.mpicc(["-O2", "-c", "../src/layout_kernel.c", "-o", "kernel.o"], r)
    same(os.path.join(c, "kernel.o"), os.path.join(r, "kernel.o"), "native object")
    app = os.path.join(c, "app")
    expect_placed(app, ("main", "smooth"))
    outs = {v: ctx.mpirun(app if v == "native" else f"{app}.{v}", 2, c,
                          os.path.join(c, f"out-{v}")) for v in ("native", "trace", "timing")}
    expect("layout: 2 ranks, sum" in outs["native"] and outs["trace"] == outs["native"]
           and outs["timing"] == outs["native"], f"outputs differ: {outs}")
    # The same with mpiete-fc: a main program with loops between its MPI calls and a natively
    # built subroutine (gfortran's listings: MAIN__, fsmooth_).
    fc = fortran_ctx(ctx)
    f = ctx.dir("f")
    for args in (["-O2", "-c", "../src/layout_kernel.f90", "-o", "kernel.o"],
                 ["-O2", "-o", "fapp", "../src/layout_main.f90", "kernel.o"]):
        rc, out, err = ctx.run([fc] + args, f)
        expect(rc == 0, f"mpiete-fc {' '.join(args)} failed (exit {rc}):\n{out}{err}")
    fapp = os.path.join(f, "fapp")
    expect_placed(fapp, ("MAIN__", "fsmooth_"))
    out = fortran_outputs(ctx, fapp, 2)
    expect(out.startswith("flayout: 2 ranks, sum"), f"fapp printed {out!r}")


def case_align_loops(ctx):
    """--mpiete-align-loops=64 starts the timing probe's loops on 64-byte boundaries instead
    (docs/probes.md, "Loop alignment"): util.c's timing variant is compiled with
    -falign-loops=64 and its trace variant without; helper.c (no MPI calls) keeps its native
    object, byte for byte mpicc's, and gets a copy with the flag that app.timing links instead;
    the block map says so. --mpiete-align-loops=no adds neither; MPIETE_ALIGN_LOOPS=128 sets
    the boundary; a flag of the user's own (-falign-loops=32) is left alone (no placement
    either); a boundary that is not a power of two is an error before anything is built. Every
    variant prints the right result."""
    c, r = ctx.dir("c"), ctx.dir("ref")
    env = dict(ctx.env, MPIETE_VERBOSE="1")

    def build(extra, env):
        _, _, err = ctx.mpiete(extra + ["-c", "../src/util.c", "-o", "util.o"] + INC, c, env=env)
        _, _, err2 = ctx.mpiete(extra + ["-c", "../src/helper.c", "-o", "helper.o"], c, env=env)
        args = extra + ["-o", "app", "-DUSE_HELPER"] + INC + ["../src/main.c", "util.o",
                                                              "helper.o"]
        _, _, err3 = ctx.mpiete(args, c, env=env)
        return err + err2 + err3

    def commands(err, needle):
        return [l for l in err.splitlines() if l.startswith("+ ") and needle in l]

    err = build(["--mpiete-align-loops=64"], env)
    timing = commands(err, "-c .mpiete/util.o.timing.c")
    trace = commands(err, "-c .mpiete/util.o.trace.c")
    expect(len(timing) == 1 and "-falign-loops=64" in timing[0].split(),
           f"util.c's timing compile: {timing}")
    expect(len(trace) == 1 and "-falign-loops=64" not in trace[0],
           f"util.c's trace compile: {trace}")
    exists(os.path.join(c, ".mpiete", "helper.o.aligned.o"))
    ctx.mpicc(["-c", "../src/helper.c", "-o", "helper.o"], r)
    same(os.path.join(c, "helper.o"), os.path.join(r, "helper.o"), "native object")
    link = commands(err, "libmpiete_timing.a")
    expect(len(link) == 1 and ".mpiete/helper.o.aligned.o" in link[0].split()
           and "helper.o" not in link[0].split(), f"timing link: {link}")
    link = commands(err, "libmpiete_trace.a")
    expect(all("helper.o" in l.split() for l in link), f"trace link: {link}")
    expect(b"timing probe: -falign-loops=64" in read(os.path.join(c, "app.blocks.yaml")),
           "the block map does not say how the timing probe was compiled")
    run_variants(ctx, os.path.join(c, "app"), 2, expected_line(2, 3, True))

    err = build(["--mpiete-align-loops=no"], env)
    expect("-falign-loops" not in err, f"--mpiete-align-loops=no still aligns:\n{err}")
    absent(os.path.join(c, ".mpiete", "helper.o.aligned.o"))
    expect(b"timing probe:" not in read(os.path.join(c, "app.blocks.yaml")),
           "the block map names an alignment that was not used")
    run_variants(ctx, os.path.join(c, "app"), 2, expected_line(2, 3, True))

    err = build([], dict(env, MPIETE_ALIGN_LOOPS="128"))
    expect("-falign-loops=128" in " ".join(commands(err, "-c .mpiete/util.o.timing.c")),
           f"MPIETE_ALIGN_LOOPS=128 not used:\n{err}")

    err = build(["-falign-loops=32"], env)
    expect(all("-falign-loops=64" not in l for l in commands(err, "")),
           f"the user's -falign-loops=32 got mpiete's too:\n{err}")
    expect(".placed." not in err, f"the user's -falign-loops=32 got placed loops:\n{err}")
    absent(os.path.join(c, ".mpiete", "helper.o.aligned.o"))

    for bad_args, bad_env in ((["--mpiete-align-loops=48"], env),
                              ([], dict(env, MPIETE_ALIGN_LOOPS="sixty"))):
        rc, _, err = ctx.mpiete(bad_args + ["-c", "../src/util.c", "-o", "bad.o"] + INC, c,
                                ok=False, env=bad_env)
        expect(rc != 0 and "a power of two" in err and "[mpiete-driver]" in err,
               f"bad alignment: exit {rc}, stderr:\n{err}")
        absent(os.path.join(c, "bad.o"))


def fortran_ctx(ctx):
    fc = os.path.join(ctx.build, "bin", "mpiete-fc")
    expect(os.path.exists(fc), f"{fc} is not built")
    return fc


def fortran_outputs(ctx, exe, np_):
    """Runs the native program and its probes at np_ ranks; returns the native output after
    checking every probe printed the same and wrote one file per rank."""
    outs = {}
    for v in ("native", "trace", "timing"):
        binary = exe if v == "native" else f"{exe}.{v}"
        outdir = os.path.join(os.path.dirname(exe), f"out-{v}-{np_}")
        outs[v] = ctx.mpirun(binary, np_, os.path.dirname(exe), outdir)
        if v != "native":
            files = sorted(os.listdir(outdir)) if os.path.isdir(outdir) else []
            expect(len([f for f in files if f.startswith("rank")]) >= np_,
                   f"{v} wrote {files}, expected rank<N>.* files")
    for v in ("trace", "timing"):
        expect(outs[v] == outs["native"],
               f"{v} printed {outs[v]!r}, the program {outs['native']!r}")
    return outs["native"]


def case_fortran_module_same_file(ctx):
    """A Fortran module defined and used in one file, compiled with the Makefile idiom (object
    and gfortran's .mod in the current folder, no -J): mpiete-fc builds it without a
    diagnostic, instruments it (a 1-unit block map with a loop site), and the program and its
    probes print the same, right result at 2 ranks."""
    fc = fortran_ctx(ctx)
    c = ctx.dir("c")
    for args in (["-c", "../src/fmod.f90"], ["-o", "fapp", "fmod.o"]):
        rc, out, err = ctx.run([fc] + args, c)
        expect(rc == 0, f"mpiete-fc {' '.join(args)} failed (exit {rc}):\n{out}{err}")
        no_diagnostics(err, "mpiete-fc " + " ".join(args))
    exists(os.path.join(c, "fstate.mod"), os.path.join(c, ".mpiete", "fmod.o.trace.o"))
    probes(os.path.join(c, "fapp"))
    print(ctx.check_map(os.path.join(c, "fapp"), ["../src/fmod.f90"]))
    expect("kind: loop" in open(os.path.join(c, "fapp.blocks.yaml")).read(),
           "the DO loop with MPI calls has no loop site")
    out = fortran_outputs(ctx, os.path.join(c, "fapp"), 2)
    # ranks 1 and 2, steps 1..3: sum over steps of 3 * step = 18
    expect(out == "fmod: size=2 total=18\n", f"program printed {out!r}")


def case_fortran_whole_program(ctx):
    """A Fortran program of three files (test-programs/f77-jacobi, the Makefile idiom): the link
    slices its skeleton with the whole program (every unit's header says so, and main.f's call
    of sweep.f's computation goes). Once a file changed since it was compiled, the link keeps
    that unit's per-unit skeleton with a note, and every other unit's too (their slices assumed
    its summary): no header says "sliced with the whole program", and the call stays."""
    fc = fortran_ctx(ctx)
    c = ctx.dir("c")
    program = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                           "test-programs", "f77-jacobi")
    for name in ("main.f", "halo.f", "sweep.f", "jacobi.inc"):
        shutil.copy(os.path.join(program, name), c)
    for src in ("main.f", "halo.f", "sweep.f"):
        rc, out, err = ctx.run([fc, "-c", src], c)
        expect(rc == 0, f"mpiete-fc -c {src} failed (exit {rc}):\n{out}{err}")
    link = [fc, "-o", "app", "main.o", "halo.o", "sweep.o"]
    rc, out, err = ctx.run(link, c)
    expect(rc == 0 and not DIAG.search(err), f"mpiete-fc link (exit {rc}):\n{out}{err}")
    removed = open(os.path.join(c, "app.skeleton.removed")).read()
    headers = [l for l in removed.splitlines() if l.startswith("# ")]
    expect(len(headers) == 2 and all("sliced with the whole program" in h for h in headers) and
           "call sweep(u, v, change)" in removed,
           f"the whole-program skeleton: expected both units sliced with the whole program and "
           f"sweep's call removed:\n{removed}")
    with open(os.path.join(c, "halo.f"), "a") as f:
        f.write("c     a comment added after the compile\n")
    rc, out, err = ctx.run(link, c)
    notes = re.findall(r"^([^:\n]+)(?::\d+:\d+)?: note: (.*) \[mpiete-skeleton\]$", err, re.M)
    expect(rc == 0 and any(f.endswith("halo.f") and "changed since it was compiled" in m
                           for f, m in notes) and
           any("so does every other unit" in m for _, m in notes),
           f"a changed file: expected its note and the program's (exit {rc}):\n{err}")
    removed = open(os.path.join(c, "app.skeleton.removed")).read()
    expect("sliced with the whole program" not in removed and
           "call sweep(u, v, change)" not in removed,
           f"a changed file: every unit keeps its per-unit skeleton, yet:\n{removed}")


def case_fortran_unanalysable(ctx):
    """A Fortran file Flang cannot analyse but gfortran builds with the user's flags
    (-fallow-invalid-boz): mpiete-fc prints one located warning [mpiete-unanalysed] naming it
    and saying that its task directives stay comments, exits 0, leaves the native note and no
    variants; the probes link the native object, print what the program prints at 2 ranks, and
    the trace records its MPI calls under the uninstrumented pseudo sites (the probes' Fortran
    MPI symbols take them to the runtime)."""
    fc = fortran_ctx(ctx)
    c, r = ctx.dir("c"), ctx.dir("ref")
    flags = ["-fallow-invalid-boz"]
    rc, out, err = ctx.run([fc, "-c"] + flags + ["../src/fboz.f", "-o", "fboz.o"], c)
    expect(rc == 0, f"mpiete-fc -c failed (exit {rc}):\n{out}{err}")
    warnings = [m for m in DIAG.finditer(err) if m["sev"] == "warning"]
    expect(len(warnings) == 1 and warnings[0]["cat"] == "unanalysed" and
           warnings[0]["file"].endswith("fboz.f") and not DIAG.search(err.replace(
               warnings[0].group(0), "")), f"expected one [mpiete-unanalysed] warning:\n{err}")
    expect("its task directives (!$mpiete task) are not honoured" in err,
           f"the warning does not say that the task directives stay comments:\n{err}")
    exists(os.path.join(c, ".mpiete", "fboz.o.native"))
    absent(os.path.join(c, ".mpiete", "fboz.o.trace.o"))
    rc, out, err = ctx.run([native_compiler("fortran"), "-c"] + flags + ["../src/fboz.f", "-o", "fboz.o"], r)
    expect(rc == 0, f"mpif90 failed:\n{err}")
    same(os.path.join(c, "fboz.o"), os.path.join(r, "fboz.o"), "native object")
    rc, out, err = ctx.run([fc, "-o", "fboz", "fboz.o"], c)
    expect(rc == 0 and not DIAG.search(err), f"mpiete-fc link (exit {rc}):\n{out}{err}")
    probes(os.path.join(c, "fboz"))
    out = fortran_outputs(ctx, os.path.join(c, "fboz"), 2)
    expect(out.startswith("fboz: size=2 sum=24\n"), f"program printed {out!r}")
    mpiete = os.path.join(ctx.build, "bin", "mpiete")
    trace_dir = os.path.join(c, "out-trace-2")
    traces = sorted(os.path.join(trace_dir, f) for f in os.listdir(trace_dir)
                    if f.endswith(".trace"))
    expect(len(traces) == 2, f"trace files: {os.listdir(trace_dir)}")
    rc, dump, err = ctx.run([mpiete, "trace", "dump"] + traces, c)
    expect(rc == 0, f"mpiete trace dump failed:\n{err}")
    pseudo = [l for l in dump.splitlines() if l.startswith("ffffffff:")]
    expect(len(pseudo) >= 2 * 6, f"expected the MPI calls under pseudo sites:\n{dump}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mpiexec", default="mpirun")
    ap.add_argument("--blockmap-check", required=True)
    ap.add_argument("case")
    a = ap.parse_args()
    fn = globals().get("case_" + a.case)
    if fn is None:
        print(f"wrapper_test: unknown case {a.case}", file=sys.stderr)
        return 2
    ctx = Ctx(a)
    shutil.rmtree(ctx.work, ignore_errors=True)
    shutil.copytree(FIXTURES, ctx.src)
    before = snapshot(ctx.src)
    try:
        fn(ctx)
        after = snapshot(ctx.src)
        expect(after == before, f"the sources changed: {sorted(set(before.items()) ^ set(after.items()))}")
    except Failure as e:
        print(f"wrapper {a.case}: FAILED: {e}", file=sys.stderr)
        return 1
    print(f"wrapper {a.case}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())

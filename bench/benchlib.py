# Shared helpers of bench/accuracy and bench/overhead: building, running MPI jobs, machine facts, load.
import datetime
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Open MPI refuses to run as root without these (the development machines run as root).
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}

# The targets a benchmark needs: the wrapper, the driver, the probe runtimes and the comm probe.
# Building only these keeps CPU use low on a shared machine (the whole tree takes much longer).
TARGETS = ["mpiete", "mpiete-cc", "mpiete-instrument", "mpiete_trace", "mpiete_timing",
           "comm_probe"]
# What Fortran programs need on top: the wrapper, the Flang plugin and its analysis mpi module.
FORTRAN_TARGETS = ["mpiete-fc", "mpiete-fortran", "mpiete_fortran_mpi_module"]


def is_fortran(prog):
    """The Fortran test programs are the ones named f77-*, f90-* and f08-*."""
    return prog.startswith(("f77-", "f90-", "f08-"))

ELAPSED = re.compile(r"^(\S+): elapsed ([0-9.eE+-]+) s", re.M)
# bench/pmpi/pmpiclock.c's line per rank at MPI_Finalize.
PMPI_LINE = re.compile(r"^pmpiclock: rank (\d+) of (\d+): elapsed (\S+) mpi (\S+) compute (\S+) "
                       r"cpu (\S+) calls (\d+)$", re.M)


def say(msg):
    print(msg, file=sys.stderr, flush=True)


def env():
    e = dict(os.environ)
    e.update(MPI_ENV)
    return e


def build(build_dir, skip, fortran=False):
    """Configures and builds the targets the benchmarks need, as scripts/test does (deps first)."""
    if skip:
        return
    subprocess.run([os.path.join(ROOT, "scripts", "install-deps")], check=True)
    subprocess.run(["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja",
                    "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build_dir, "-j", "2", "--target"] + TARGETS
                   + (FORTRAN_TARGETS if fortran else []), check=True,
                   stdout=subprocess.DEVNULL)


def build_program(build_dir, prog, out_dir, extra_env=None):
    """make CC=mpiete-cc (FC=mpiete-fc for Fortran) O=out_dir in test-programs/prog, with
    extra_env added to the environment; returns the path of the real program."""
    os.makedirs(out_dir, exist_ok=True)
    wrapper = "FC=" + os.path.join(build_dir, "bin", "mpiete-fc") if is_fortran(prog) else \
        "CC=" + os.path.join(build_dir, "bin", "mpiete-cc")
    subprocess.run(["make", "-s", "-B", "-C", os.path.join(ROOT, "test-programs", prog),
                    wrapper, "O=" + out_dir],
                   check=True, stdout=subprocess.DEVNULL, env={**env(), **(extra_env or {})})
    app = os.path.join(out_dir, prog)
    for suffix in ("", ".trace", ".timing", ".blocks.yaml"):
        if not os.path.exists(app + suffix):
            raise SystemExit(f"bench: {app + suffix} was not built")
    return app


def overhead_sizes():
    """The problem sizes of bench/overhead (one table of sizes for the benches that reuse it)."""
    import importlib.machinery
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "overhead")
    loader = importlib.machinery.SourceFileLoader("overhead_bench", path)
    spec = importlib.util.spec_from_loader("overhead_bench", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod.SIZES


def mpiete(build_dir, args, **kw):
    return subprocess.run([os.path.join(build_dir, "bin", "mpiete")] + args, check=True,
                          env=env(), **kw)


def cpu_busy_jiffies():
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields[:8]) - idle  # user..steal, without guest (already in user)


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class Run:
    """One job: its wall time, stdout, stderr and the CPU the rest of the machine used meanwhile."""

    def __init__(self, wall, stdout, stderr, other_load, returncode=0):
        self.wall = wall
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.other_load = other_load  # other processes' CPU seconds per second of the run

    def elapsed(self):
        """The program's own TP_TIMING line (rank 0, MPI_Init to MPI_Finalize)."""
        m = ELAPSED.search(self.stderr)
        if not m:
            raise SystemExit("bench: no 'elapsed' line in the program's stderr:\n" + self.stderr)
        return float(m.group(2))


def run(cmd, extra_env=None, cwd=None, check=True):
    """Runs cmd; measures wall time and the CPU time other processes took meanwhile
    (busy jiffies of the whole machine minus this job's own CPU time). With check=False a
    failing command is returned too (its exit status in .returncode)."""
    e = env()
    if extra_env:
        e.update(extra_env)
    hz = os.sysconf("SC_CLK_TCK")
    busy0, own0, t0 = cpu_busy_jiffies(), children_cpu(), time.monotonic()
    p = subprocess.run(cmd, env=e, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    wall = time.monotonic() - t0
    busy = (cpu_busy_jiffies() - busy0) / hz
    own = children_cpu() - own0
    if check and p.returncode != 0:
        raise SystemExit(f"bench: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
    return Run(wall, p.stdout, p.stderr, max(0.0, busy - own) / wall if wall > 0 else 0.0,
               p.returncode)


def machine_busy(seconds=3.0):
    """CPUs busy on the whole machine, averaged over the next `seconds` (instantaneous load)."""
    hz = os.sysconf("SC_CLK_TCK")
    b0 = cpu_busy_jiffies()
    time.sleep(seconds)
    return (cpu_busy_jiffies() - b0) / hz / seconds


def wait_quiet(max_busy, max_wait):
    """Waits until the machine is quiet (fewer than max_busy CPUs busy over a few seconds, which
    reacts faster than the load average) or max_wait seconds have passed. Returns whether it is."""
    deadline = time.monotonic() + max_wait
    while True:
        busy = machine_busy()
        if busy < max_busy:
            return True
        if time.monotonic() >= deadline:
            say(f"bench: machine still busy ({busy:.2f} CPUs), going on anyway")
            return False
        say(f"bench: machine busy ({busy:.2f} CPUs, load {os.getloadavg()[0]:.2f}), waiting")
        time.sleep(20)


def loadavg():
    return "%.2f %.2f %.2f" % os.getloadavg()


def machine_facts():
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mpi = subprocess.run(["mpirun", "--version"], capture_output=True, text=True, env=env())
    mpi_version = mpi.stdout.splitlines()[0] if mpi.stdout else "unknown"
    return {
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "cpu": model,
        "cores": os.cpu_count(),
        "kernel": os.uname().release,
        "mpi": mpi_version,
        "host": os.uname().nodename,
    }


def median(xs):
    return statistics.median(xs)


def replace_section(path, marker, text):
    """Writes `text` between <!-- marker: begin --> and <!-- marker: end --> in path, keeping
    everything else (the hand-written analysis); creates the file if needed."""
    begin, end = f"<!-- {marker}: begin -->", f"<!-- {marker}: end -->"
    block = f"{begin}\n{text.rstrip()}\n{end}\n"
    old = open(path).read() if os.path.exists(path) else ""
    if begin in old and end in old:
        head, rest = old.split(begin, 1)
        tail = rest.split(end, 1)[1].lstrip("\n")
        new = head + block + ("\n" + tail if tail else "")
    else:
        new = (old.rstrip() + "\n\n" if old else "") + block
    with open(path, "w") as f:
        f.write(new)


def have(tool):
    return shutil.which(tool) is not None


def build_pmpiclock(work):
    """bench/pmpi/pmpiclock.c, the PMPI interposer that times an unchanged program's compute
    (time outside MPI, per rank), as a shared library in work; returns its path."""
    os.makedirs(work, exist_ok=True)
    lib = os.path.join(work, "pmpiclock.so")
    subprocess.run(["mpicc", "-O2", "-shared", "-fPIC", "-o", lib,
                    os.path.join(ROOT, "bench", "pmpi", "pmpiclock.c"), "-lmpi_mpifh"],
                   check=True, env=env())
    return lib


def pmpi_ranks(stderr, np_):
    """{rank: (elapsed, mpi, compute, cpu, calls)} from the interposer's lines."""
    ranks = {int(m.group(1)): tuple(float(m.group(i)) for i in range(3, 8))
             for m in PMPI_LINE.finditer(stderr)}
    if len(ranks) != np_:
        raise SystemExit(f"bench: the interposer reported {len(ranks)} ranks of {np_}:\n{stderr}")
    return ranks

# SimGrid SMPI beside mpiete in bench/accuracy: installing it, a two-host platform calibrated from this machine, build and run.
"""How SMPI predicts, and how the platform is calibrated (SimGrid 3.32, Debian's libsimgrid-dev).

smpirun runs all ranks of a program built with smpicc / smpiff as threads of one process on a
simulated platform. Communication is simulated; computation is emulated: between two MPI calls
SMPI times the burst with a per-thread CPU-time clock, turns it into flops by multiplying by
the configuration item smpi/host-speed (flop/s, default 20000f, "the speed of the host running
the simulation"), and executes those flops on the simulated host, at the speed the platform
gives that host (bursts under smpi/cpu-threshold, 1 us, are dropped). SimGrid 3.32 does not
measure smpi/host-speed itself: it warns when it is left at its default. Setting the simulated
hosts' speed equal to smpi/host-speed replays every measured burst 1:1, which is what
predicting this machine needs; the common value cancels out (PLATFORM_SPEED below).

The network: one link between the two hosts with the latency and bandwidth mpiete's own
`probe-comm` measured here (network.yaml): latency = the ping-pong's one-way time of the
smallest message (software overheads included, as SMPI adds none by default: smpi/os and
smpi/or are 0), bandwidth = 1 / G (loggps G, the gap per byte of large messages). SMPI's
default piecewise correction factors (smpi/bw-factor, smpi/lat-factor, fitted on another
cluster) are set to 1 and its modelled TCP cross traffic is off, so a message of s bytes takes
latency + s / bandwidth, as the ping-pong does at both ends of its size range. Sends below
loggps S (the eager limit probe-comm found) are detached (smpi/send-is-detached-thresh), larger
ones wait for the receiver. A rank talking to itself uses SimGrid's implicit loopback link, set
to the same latency and bandwidth (the ranks share one machine).
"""
import os
import re
import shutil
import subprocess

# Any value works as long as the hosts and smpi/host-speed agree (see above).
PLATFORM_SPEED = "1Gf"
TOOLS = ("smpicc", "smpiff", "smpirun")
HOSTS = ("host0", "host1")

NUM = r"[-+]?(?:[0-9]*\.)?[0-9]+(?:[eE][-+]?[0-9]+)?"


def ensure_installed(say):
    """Installs Debian's libsimgrid-dev (smpicc, smpiff, smpirun) when one of them is missing."""
    if all(shutil.which(t) for t in TOOLS):
        return
    say("bench: SimGrid SMPI (smpicc, smpiff, smpirun) is not installed; installing Debian's "
        "libsimgrid-dev with apt-get for the SMPI columns (skip them with --no-smpi)")
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends",
                           "libsimgrid-dev"], check=True, env=env, stdout=subprocess.DEVNULL)
    missing = [t for t in TOOLS if not shutil.which(t)]
    if missing:
        raise SystemExit(f"bench: libsimgrid-dev installed but {', '.join(missing)} not found")


def version():
    p = subprocess.run(["smpirun", "-version"], capture_output=True, text=True)
    out = (p.stdout + p.stderr).strip().splitlines()
    return out[0] if out else "SimGrid (version unknown)"


def network_params(network_yaml):
    """(latency s, bandwidth B/s, eager limit bytes or None) from mpiete's network.yaml: the
    one-way time of the table's smallest size, 1 / loggps G (or the slope between the table's
    two largest sizes when G is missing) and loggps S."""
    text = open(network_yaml).read()
    table = text.split("rows:", 1)[1] if "rows:" in text else ""
    table = table.split("stream:", 1)[0].split("loggps:", 1)[0]
    rows = sorted((float(b), float(t)) for b, t in re.findall(rf"\[\s*({NUM})\s*,\s*({NUM})",
                                                               table))
    if not rows:
        raise SystemExit(f"bench: no (bytes, recv_s) table in {network_yaml}")
    latency = rows[0][1]
    loggps = text.split("loggps:", 1)[1] if "loggps:" in text else ""
    g = re.search(rf"(?<![_\w])G:\s*({NUM})", loggps)
    if g and float(g.group(1)) > 0:
        bandwidth = 1.0 / float(g.group(1))
    elif len(rows) >= 2 and rows[-1][1] > rows[-2][1]:
        bandwidth = (rows[-1][0] - rows[-2][0]) / (rows[-1][1] - rows[-2][1])
    else:
        raise SystemExit(f"bench: no bandwidth in {network_yaml} (loggps G or two table sizes)")
    s = re.search(rf"(?<![_\w])S:\s*({NUM})", loggps)
    eager = int(float(s.group(1))) if s else None
    return latency, bandwidth, eager


def write_platform(directory, latency, bandwidth, eager):
    """Writes platform.xml (two hosts, one link) and hostfile into directory; returns both paths."""
    os.makedirs(directory, exist_ok=True)
    cfg = {
        "smpi/host-speed": PLATFORM_SPEED,
        "smpi/bw-factor": "0:1",
        "smpi/lat-factor": "0:1",
        "network/crosstraffic": "0",
        "network/loopback-lat": f"{latency:.6e}",
        "network/loopback-bw": f"{bandwidth:.6e}",
    }
    if eager is not None:
        cfg["smpi/send-is-detached-thresh"] = str(eager)
    props = "".join(f'    <prop id="{k}" value="{v}"/>\n' for k, v in cfg.items())
    hosts = "".join(f'    <host id="{h}" speed="{PLATFORM_SPEED}"/>\n' for h in HOSTS)
    xml = ("<?xml version='1.0'?>\n"
           '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
           "<!-- Written by bench/smpi/smpilib.py from mpiete's network.yaml: this machine as two "
           "hosts. -->\n"
           '<platform version="4.1">\n'
           f"  <config>\n{props}  </config>\n"
           '  <zone id="machine" routing="Full">\n'
           f"{hosts}"
           f'    <link id="net" bandwidth="{bandwidth:.6e}Bps" latency="{latency:.6e}s"/>\n'
           f'    <route src="{HOSTS[0]}" dst="{HOSTS[1]}"><link_ctn id="net"/></route>\n'
           "  </zone>\n"
           "</platform>\n")
    platform = os.path.join(directory, "platform.xml")
    hostfile = os.path.join(directory, "hostfile")
    with open(platform, "w") as f:
        f.write(xml)
    with open(hostfile, "w") as f:
        f.write("".join(h + "\n" for h in HOSTS))
    return platform, hostfile


# gfortran 10 and later reject, as errors, calls in one file that pass one MPI routine's choice
# argument with different types, and SMPI's mpif.h declares MPI_STATUS_IGNORE and MPI_IN_PLACE
# EXTERNAL, so F77 codes that Open MPI's mpif.h builds stop here. GCC 10 added
# -fallow-argument-mismatch for such codes (the errors become warnings; its release notes say
# so), which is what a user of SMPI adds to FC; the retry does the same and says so.
MISMATCH = re.compile(r"Error: (Invalid procedure argument|Type mismatch between actual argument"
                      r"|Rank mismatch between actual argument)")
ALLOW_MISMATCH = "-fallow-argument-mismatch"


def _make(root, prog, compiler, out_dir, env):
    return subprocess.run(["make", "-s", "-B", "-C", os.path.join(root, "test-programs", prog),
                           compiler, "O=" + out_dir], env=env, capture_output=True, text=True)


def first_error(log):
    """The line of a failed build's log that says why: the linker's first undefined reference,
    else the first compiler error with its location (gfortran puts the location on a line of
    its own, some lines before "Error: ...")."""
    m = re.search(r"undefined reference to `([^']+)'", log)
    if m:
        return "undefined reference to " + m.group(1)
    where = ""
    for ln in log.splitlines():
        if re.match(r"^\S+:\d+:\d+:$", ln):
            where = ln + " "
        elif "Error" in ln or "error:" in ln:
            return (where if "Error:" in ln else "") + ln.strip()
    return None


def build_program(root, prog, fortran, out_dir, env):
    """make CC=smpicc (FC=smpiff for Fortran) O=out_dir in test-programs/prog: (the program's
    path, None, or the compiler setting it took when not the plain one), or (None, the first
    error line) when SMPI cannot build it. A Fortran build that gfortran stops at an argument
    mismatch is built again with -fallow-argument-mismatch (see MISMATCH)."""
    os.makedirs(out_dir, exist_ok=True)
    compiler = "FC=smpiff" if fortran else "CC=smpicc"
    app = os.path.join(out_dir, prog)
    p = _make(root, prog, compiler, out_dir, env)
    retried = fortran and p.returncode != 0 and MISMATCH.search(p.stdout + p.stderr)
    if retried:
        compiler += " " + ALLOW_MISMATCH
        p = _make(root, prog, compiler, out_dir, env)
    if p.returncode == 0 and os.path.exists(app):
        return app, compiler if retried else None
    log = p.stdout + p.stderr
    with open(os.path.join(out_dir, "make.log"), "w") as f:
        f.write(log)
    why = first_error(log)
    if why is None:
        return None, f"make {compiler} failed ({p.returncode})"
    return None, f"{why} ({compiler})" if retried else why


def run_failure(stderr):
    """Why smpirun gave no elapsed line, from its stderr: a routine SMPI does not implement, else
    the last line the program itself wrote (its own check that failed), else None."""
    m = re.search(r"Not yet implemented: (\S+?)\.", stderr)
    if m:
        return m.group(1) + " not implemented"
    own = [ln for ln in stderr.splitlines()
           if ln.strip() and not ln.startswith("[") and "Execution failed" not in ln
           and not ln.startswith("/") and ln.strip() != "Aborted"]
    return own[-1].strip() if own else None


def run_command(app, args, platform, hostfile, np_):
    return ["smpirun", "-np", str(np_), "-platform", platform, "-hostfile", hostfile, app] + args

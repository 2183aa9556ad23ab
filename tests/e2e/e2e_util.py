"""Shared helpers of the end-to-end test drivers."""

import os
import shutil
import signal
import subprocess


def run_group(argv, cwd, env, timeout):
    """Runs argv in its own process group; returns (exit status, stdout, stderr) as text.

    On timeout the whole group (mpirun and the ranks it started) is terminated, so no rank
    is left behind, and the status is None.
    """
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                break
            try:
                out, err = p.communicate(timeout=5)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            out, err = p.communicate()
        rc = None
    return rc, out.decode(errors="replace"), err.decode(errors="replace")


def oversubscribe(mpiexec):
    """Open MPI's --oversubscribe, or nothing for MPICH's hydra (which runs any number of ranks
    per core and rejects the flag)."""
    base = os.path.basename(mpiexec)
    return [] if ("mpich" in base or "hydra" in base) else ["--oversubscribe"]


def launch(mpiexec, np_):
    """`mpiexec -np N`, oversubscribed where the launcher needs it."""
    return [mpiexec] + oversubscribe(mpiexec) + ["-np", str(np_)]


def fresh_work(work, build):
    """Empties WORK (made anew) and returns the environment of a user who has BUILD/bin on
    PATH (mpiete-cc, mpiete-fc) and no MPIETE_CC of their own."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ)
    env["PATH"] = os.path.join(build, "bin") + os.pathsep + env.get("PATH", "")
    env.pop("MPIETE_CC", None)
    return env


def native_compiler(lang):
    """The MPI library's own compiler the build was configured with (the ctest environment's
    MPIETE_E2E_MPICC / MPIETE_E2E_MPIF90: mpicc.mpich in an MPICH build), else mpicc / mpif90."""
    if lang == "fortran":
        return os.environ.get("MPIETE_E2E_MPIF90") or "mpif90"
    return os.environ.get("MPIETE_E2E_MPICC") or "mpicc"

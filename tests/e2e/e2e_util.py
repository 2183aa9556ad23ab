"""Shared helpers of the end-to-end test drivers."""

import os
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


def launch(mpiexec, np_):
    """`mpiexec -np N`, with Open MPI's --oversubscribe unless the launcher is MPICH's hydra
    (which runs any number of ranks per core and rejects the flag)."""
    base = os.path.basename(mpiexec)
    over = [] if ("mpich" in base or "hydra" in base) else ["--oversubscribe"]
    return [mpiexec] + over + ["-np", str(np_)]


def native_compiler(lang):
    """The MPI library's own compiler the build was configured with (the ctest environment's
    MPIETE_E2E_MPICC / MPIETE_E2E_MPIF90: mpicc.mpich in an MPICH build), else mpicc / mpif90."""
    if lang == "fortran":
        return os.environ.get("MPIETE_E2E_MPIF90") or "mpif90"
    return os.environ.get("MPIETE_E2E_MPICC") or "mpicc"

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

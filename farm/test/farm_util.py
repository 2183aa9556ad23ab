"""Shared helpers of the farm end-to-end tests (farm_e2e.py, unmarked_e2e.py)."""
import os
import shutil
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(argv, cwd, env, what):
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=240)
    if p.returncode != 0:
        fail(f"{what}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


def work_env(build, work):
    """Empties WORK (made anew) and returns the environment of a user with BUILD/bin on PATH,
    no wrapper settings of their own, and Open MPI allowed to run as root, oversubscribed."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ)
    env["PATH"] = os.path.join(build, "bin") + os.pathsep + env["PATH"]
    env.pop("MPIETE_CC", None)
    env.pop("MPIETE_FC", None)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    return env

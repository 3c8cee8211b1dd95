"""One rank per tile from Python: `mpirun -np 2 python3 mpi_run.py` gives the in-process bits."""
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import yee
from test_run import assert_same_results

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.skipif(not yee.has_mpi or shutil.which("mpirun") is None, reason="no MPI in this build")
def test_mpirun_two_ranks_equals_in_process(tmp_path, scenes):
    path = str(scenes / "ar_coating_opt.json")
    run_out, session_out = tmp_path / "mpi.results.h5", tmp_path / "session.results.h5"
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(yee.__file__)))
    env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none",
               PYTHONPATH=os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])))
    subprocess.run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2", sys.executable,
                    os.path.join(HERE, "mpi_run.py"), path, str(run_out), str(session_out)],
                   check=True, env=env, timeout=240)
    s = yee.Scene.load(path)
    assert_same_results(yee.read_results(str(run_out)), yee.run(s, tiles=(2, 1, 1), devices="cpu:2", gradient=True))
    fresh = yee.run(s, gradient=True, latent={"coating": np.linspace(0.1, 0.9, 20)})
    assert_same_results(yee.read_results(str(session_out)), fresh)


@pytest.mark.skipif(not yee.has_mpi or shutil.which("mpirun") is None, reason="no MPI in this build")
def test_uncaught_exception_on_one_rank_ends_the_job(scenes):
    """Rank 1 raises while rank 0 waits in the run's first collective: the job ends (non-zero), quickly,
    with the traceback, instead of hanging."""
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(yee.__file__)))
    env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none",
               PYTHONPATH=os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])))
    start = time.monotonic()
    p = subprocess.run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2", sys.executable,
                        os.path.join(HERE, "mpi_raise.py"), str(scenes / "ar_coating_opt.json")],
                       env=env, timeout=120, capture_output=True, text=True)
    assert p.returncode != 0
    assert "rank 1 gives up before the run" in p.stderr, p.stderr
    assert "ending every rank of the job" in p.stderr, p.stderr
    assert "the run returned" not in p.stdout
    assert time.monotonic() - start < 90

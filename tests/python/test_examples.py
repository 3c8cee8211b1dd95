"""The documented examples run as printed (label slow: tens of seconds on two busy cores)."""
import os
import subprocess
import sys

import yee
from conftest import SOURCE


def run_example(name, *args):
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(yee.__file__)))
    env = dict(os.environ, PYTHONPATH=package_root)
    p = subprocess.run([sys.executable, str(SOURCE / "python" / "examples" / name), *args], env=env,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_waveguide_example():
    out = run_example("waveguide.py")
    assert "completed in" in out
    assert "d objective / d latent: shape (1, 6, 6)" in out
    adjoint = next(line for line in out.splitlines() if line.startswith("collective calls"))
    assert "'halo_exchange': 1260" in adjoint  # two exchanges per adjoint step, 630 steps


def test_scipy_example_converges():
    out = run_example("scipy_lbfgsb.py", "--iterations", "10")
    last = out.strip().splitlines()[-1]
    assert last.startswith("CONVERGENCE") and "objective 71.6695 ->" in last
    assert abs(float(last.split("->")[1].split()[0])) < 1e-6

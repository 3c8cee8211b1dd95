"""Gradients compose with user code: finite differences, the scipy L-BFGS-B example, yee.optimize."""
import importlib.util

import numpy as np
import pytest

import yee
from conftest import SOURCE


def load_example(name):
    spec = importlib.util.spec_from_file_location(name, SOURCE / "python" / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gradient_matches_central_differences(scenes):
    """dJ/dlatent in the numpy layout of the latent view (float64 scene, method full)."""
    s = yee.Scene.load(str(scenes / "ar_coating_opt.json"))
    x = np.linspace(0.2, 0.8, 20).reshape(1, 1, 20)
    value, grads, _ = yee.value_and_grad(s, latent={"coating": x})
    h = 1e-4
    for i in (3, 12):
        up, down = x.copy(), x.copy()
        up[0, 0, i] += h
        down[0, 0, i] -= h
        fd = (yee.run(s, latent={"coating": up}).objective - yee.run(s, latent={"coating": down}).objective) / (2 * h)
        assert grads["coating"][0, 0, i] == pytest.approx(fd, rel=1e-4, abs=1e-6 * abs(value))


def test_scipy_lbfgsb_example_improves_the_objective(scenes):
    pytest.importorskip("scipy")
    example = load_example("scipy_lbfgsb")
    s = yee.Scene.load(str(scenes / "ar_coating_opt.json"))
    values, result, best = example.optimise(s, iterations=4, report=lambda line: None)
    assert len(values) >= 3
    assert min(values) < 0.5 * values[0]  # the reflection at 1 um drops by more than half
    assert best.shape == (1, 1, 20) and np.all((best >= 0) & (best <= 1))
    # The best point, re-run from scratch, gives the objective scipy saw.
    assert yee.run(s, latent={"coating": best}).objective == pytest.approx(result.fun, rel=1e-12)


def test_optimize_loop_from_python(tmp_path, scenes):
    s = yee.Scene.load(str(scenes / "ar_coating_opt.json"))
    seen = []
    history = tmp_path / "opt.history.h5"
    r = yee.optimize(s, max_evaluations=3, history=str(history), on_evaluation=lambda i, e: seen.append((i, e.objective)))
    assert [i for i, _ in seen] == [0, 1, 2]
    assert len(r.history) == 3 and history.exists()
    assert r.history[r.best].objective < r.history[0].objective  # minimize
    assert r.latent["coating"].shape == (1, 1, 20)
    # Resuming replays the recorded evaluations bit for bit and goes on.
    again = yee.optimize(s, max_evaluations=4, resume=str(history), history=str(tmp_path / "b.h5"))
    assert again.replayed == 3 and len(again.history) == 4
    assert [e.objective for e in again.history[:3]] == [e.objective for e in r.history]

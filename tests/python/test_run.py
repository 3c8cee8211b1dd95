"""Runs from Python: the same bits as yee-run, results files, estimates, telemetry, progress, cancel."""
import os
import signal
import subprocess

import numpy as np
import pytest

import yee


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def assert_same_results(py, cli):
    """Detectors, objective and gradients of a RunResult/ResultsFile equal bit for bit."""
    assert sorted(py.detectors) == sorted(cli.detectors)
    for name, det in py.detectors.items():
        other = cli.detectors[name]
        assert det.type == other.type
        assert sorted(det.keys()) == sorted(other.keys())
        for key in det.keys():
            assert same_bits(det[key], other[key]), f"{name}/{key} differs"
    assert py.objective == cli.objective
    assert sorted(py.gradients) == sorted(cli.gradients)
    for name, g in py.gradients.items():
        assert same_bits(g, cli.gradients[name]), f"gradient {name} differs"


def run_cli(yee_run, scene, out, *args):
    subprocess.run([yee_run, "-q", "-o", str(out), *args, str(scene)], check=True, cwd=out.parent)
    return yee.read_results(str(out))


def test_value_and_grad_equals_yee_run(tmp_path, scenes, yee_run):
    path = scenes / "ar_coating_opt.json"
    cli = run_cli(yee_run, path, tmp_path / "cli.results.h5", "--grad", "--tiles", "2x1x1", "--devices", "cpu:2")
    s = yee.Scene.load(str(path))
    value, grads, r = yee.value_and_grad(s, tiles=(2, 1, 1), devices="cpu:2")
    assert r.completed and value == r.objective
    assert grads["coating"].shape == (1, 1, 20) and grads["coating"].dtype == np.float64
    assert np.any(grads["coating"] != 0)
    assert_same_results(r, cli)
    assert cli.scene_hash == s.hash
    # The same file from Python: written by io/ and read back equal.
    r.write(str(tmp_path / "py.results.h5"), s)
    back = yee.read_results(str(tmp_path / "py.results.h5"))
    assert_same_results(back, cli)
    assert back.scene_hash == cli.scene_hash and back.complete and back.status == "complete"
    assert [p.name for p in back.phases] == ["forward", "adjoint"]


def test_forward_float32_tiles_equal_yee_run(tmp_path, scenes, yee_run):
    path = scenes / "quick_box.json"
    cli = run_cli(yee_run, path, tmp_path / "cli.results.h5", "--tiles", "1x2x1", "--max-steps", "40")
    s = yee.Scene.load(str(path))
    r = yee.run(s, tiles=(1, 2, 1), max_steps=40)
    assert r.completed and r.steps == 40
    assert_same_results(r, cli)
    one = yee.run(s, max_steps=40)  # one tile: the same bits (the decomposition contract)
    assert_same_results(one, cli)


def test_results_arrays_are_read_only_views(scenes):
    r = yee.run(yee.Scene.load(str(scenes / "ar_coating_opt.json")))
    det = r.detectors["refl"]
    power = det["power"]
    assert power.shape == (3,) and power.dtype == np.float64 and not power.flags["WRITEABLE"]
    np.testing.assert_array_equal(det["wavelengths_um"], [0.95, 1.0, 1.05])
    assert np.shares_memory(det["power"], det.arrays["power"])  # views of the result, no copies
    assert det["flux"].shape == (r.steps,) == det["time_fs"].shape
    del r  # the views keep the result alive
    assert power[1] == det["power"][1]


def test_estimate_and_telemetry(scenes):
    s = yee.Scene.load(str(scenes / "ar_coating_opt.json"))
    e = yee.estimate_memory(s, tiles=(2, 1, 1), devices="cpu:2")
    assert [d.name for d in e.devices] == ["cpu:0", "cpu:1"] and e.fits
    reports = []
    r = yee.run(s, tiles=(2, 1, 1), devices="cpu:2", progress=reports.append, telemetry_interval=0)
    assert r.completed
    # The estimate is the measured peak, device by device and category by category.
    for est, got in zip(e.devices, r.devices):
        assert est.peak_total == got.peak_total
        assert est.memory_peak == got.memory_peak
    assert r.devices[0].memory_peak["fields"] > 0
    # Collective counts: one all-reduce per guard interval on every device, halo exchanges per step.
    guards = -(-r.total_steps // 64)
    for d in r.devices:
        assert d.comm_calls["forward"]["all_reduce"] == guards
        assert d.comm_calls["forward"]["halo_exchange"] == 2 * r.total_steps
    assert reports and reports[-1].step == r.total_steps and reports[-1].phase == "forward"
    assert [d.name for d in reports[-1].devices] == ["cpu:0", "cpu:1"]
    assert len(r.timeline) == len(reports)
    with pytest.raises(yee.DeviceMemoryError, match=r"^cpu:0: needs "):
        yee.run(s, tiles=(2, 1, 1), capacity="1000")


def slow_scene(scenes):
    """quick_box for 2000 steps (seconds to run): cancelled runs stop long before the end."""
    s = yee.Scene.load(str(scenes / "quick_box.json"))
    s.set("time.duration_fs", 10 * s.get("time.duration_fs"))
    return s


def test_keyboard_interrupt_stops_within_one_guard_interval(scenes):
    """SIGINT while stepping (GIL released) stops the run at its next guard step: incomplete result."""
    s = slow_scene(scenes)
    seen = []

    def progress(report):
        seen.append(report.step)
        if len(seen) == 1:
            os.kill(os.getpid(), signal.SIGINT)

    r = yee.run(s, guard_interval=8, telemetry_interval=0, progress=progress)
    assert r.interrupted and not r.completed
    assert r.status.startswith("cancelled at step")
    assert r.steps % 8 == 0 and r.steps < r.total_steps
    print(f"SIGINT sent at step {seen[0]}, the run stopped at step {r.steps} of {r.total_steps}")
    assert r.detectors  # what was recorded so far is assembled


def test_progress_returning_false_cancels(scenes):
    s = slow_scene(scenes)
    r = yee.run(s, tiles=(2, 1, 1), guard_interval=4, telemetry_interval=0, progress=lambda rep: False)
    assert not r.completed and r.interrupted and r.steps < r.total_steps


def test_progress_exception_propagates(scenes):
    s = slow_scene(scenes)

    def boom(report):
        raise ZeroDivisionError("from the callback")

    with pytest.raises(ZeroDivisionError, match="from the callback"):
        yee.run(s, guard_interval=8, telemetry_interval=0, progress=boom)


def test_session_equals_fresh_runs(scenes):
    s = yee.Scene.load(str(scenes / "ar_coating_opt.json"))
    x = np.linspace(0.1, 0.9, 20).reshape(1, 1, 20)
    with yee.Session(s, tiles=(2, 1, 1), devices="cpu:2") as session:
        assert session.design_names == ["coating"] and session.design_sizes == [20]
        a = session.evaluate({"coating": x})
        b = session.evaluate(x.ravel())
        assert session.evaluations == 2
    fresh = yee.run(s, gradient=True, latent={"coating": x})
    assert_same_results(a, fresh)
    assert_same_results(b, fresh)


@pytest.mark.parametrize("method", ["reversible", "checkpointed"])
def test_session_evaluations_forget_the_previous_design(scenes, method):
    """Every evaluation of a Session equals a fresh run at its design, whatever was evaluated before
    (state kept between sweeps, such as the reversible replay's decoded records, must not leak)."""
    s = yee.Scene.load(str(scenes / "ar_coating_opt.json"))
    s.set("gradient.method", method)
    first, second = np.linspace(0.9, 0.1, 20), np.linspace(0.1, 0.9, 20)
    with yee.Session(s) as session:
        session.evaluate(first)
        b = session.evaluate(second)
    assert_same_results(b, yee.run(s, gradient=True, latent={"coating": second}))


def test_gpu_request_without_gpu_warns_and_runs_on_cpu(scenes):
    """As yee-run's note: a GPU list on a machine (or build) without a usable GPU runs on CPU devices."""
    s = yee.Scene.load(str(scenes / "ar_coating_opt.json"))
    if yee.gpu_count() > 0:
        pytest.skip("a GPU is present")
    with pytest.warns(RuntimeWarning, match=r"^devices asks for GPUs \(cuda:all\)"):
        r = yee.run(s, tiles=(2, 1, 1), devices="cuda:all")
    assert r.completed and [d.name for d in r.devices] == ["cpu:0", "cpu:1"]

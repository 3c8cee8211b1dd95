"""Build a waveguide scene in Python, run it on 2 devices, plot its spectrum and take a gradient.

    PYTHONPATH=build/python python3 python/examples/waveguide.py [--plot spectrum.png]

The complete example of docs/python.md. matplotlib is only needed for --plot.
"""
import argparse

import numpy as np

import yee

WAVELENGTHS = np.linspace(1.45, 1.65, 11).round(4).tolist()


def waveguide_scene():
    """A silicon-nitride-like strip (eps 4) in oxide-like cladding, with a design region in the middle."""
    return yee.Scene.from_dict({
        "name": "python waveguide",
        "grid": {"cell_um": 0.05, "courant": 0.99},
        "domain": {"center_um": [0, 0, 0], "size_um": [3.2, 2.0, 1.6]},
        "time": {"duration_fs": 60},
        "boundaries": {axis: {"type": "pml", "cells": 8} for axis in "xyz"},
        "materials": {"core": {"eps": 4.0}, "clad": {"eps": 2.0736}},
        "background": "clad",
        "objects": [{"name": "strip", "shape": "box", "center_um": [0, 0, 0], "size_um": [4.0, 0.5, 0.25],
                     "material": "core"}],
        "sources": [{"name": "in", "type": "gaussian_plane", "center_um": [-0.9, 0, 0], "size_um": [0, 1.0, 0.8],
                     "direction": "+x", "polarization": "y", "waist_um": 0.4,
                     "profile": {"type": "gaussian_pulse", "wavelength_um": 1.55, "bandwidth_um": 0.3}}],
        "detectors": [{"name": "out", "type": "flux", "center_um": [0.9, 0, 0], "size_um": [0, 1.0, 0.8],
                       "direction": "+x", "wavelengths_um": WAVELENGTHS}],
        "designs": [{"name": "taper", "center_um": [0, 0, 0], "size_um": [0.6, 0.6, 0.25], "voxel_cells": [2, 2, 5],
                     "materials": ["clad", "core"]}],
        "objective": {"goal": "maximize", "terms": [{"detector": "out", "quantity": "flux",
                                                     "reduce": "at_wavelength", "wavelength_um": 1.55}]},
        "gradient": {"method": "checkpointed", "num_checkpoints": 8},
        "run": {"tiles": [1, 1, 1], "devices": "cpu:1", "precision": "float32"},
    })


def main(argv=None):
    p = argparse.ArgumentParser(description="waveguide example of docs/python.md")
    p.add_argument("--plot", help="save the transmitted spectrum here (needs matplotlib)")
    a = p.parse_args(argv)

    scene = waveguide_scene()
    print(scene, "steps:", scene.steps)

    # Memory first, then the run: two tiles along x on two emulated CPU devices.
    estimate = yee.estimate_memory(scene, tiles=(2, 1, 1), devices="cpu:2")
    print("peak per device:", [f"{d.peak_total / 2**20:.1f} MiB" for d in estimate.devices])
    result = yee.run(scene, tiles=(2, 1, 1), devices="cpu:2",
                     progress=lambda r: print(f"\r{r.phase} {r.step}/{r.total_steps}", end=""))
    print("\n", result.status, f"in {result.seconds:.2f} s")

    out = result.detectors["out"]
    wavelengths, power = out["wavelengths_um"], out["power"]
    for wl, pw in zip(wavelengths, power):
        print(f"  {wl:.3f} um: {pw:.4g}")
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots()
        ax.plot(wavelengths, power, "o-")
        ax.set_xlabel("wavelength (um)")
        ax.set_ylabel("transmitted power (a.u.)")
        fig.savefig(a.plot, dpi=120)
        print("spectrum:", a.plot)

    # The gradient of the objective (power at 1.55 um) with respect to the taper's latent values.
    value, grads, vg = yee.value_and_grad(scene, tiles=(2, 1, 1), devices="cpu:2")
    g = grads["taper"]
    print(f"objective {value:.6g}; d objective / d latent: shape {g.shape}, |g| = {np.linalg.norm(g):.4g}")
    print("collective calls of device 0 in the adjoint phase:", vg.devices[0].comm_calls["adjoint"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Inverse design with scipy: yee's value-and-grad driving scipy.optimize.minimize(method="L-BFGS-B").

    PYTHONPATH=build/python python3 python/examples/scipy_lbfgsb.py [SCENE.json] [--iterations N]

The scene (default: the anti-reflection coating example) needs an objective and one design region.
A yee.Session plans, rasterises and allocates the scene once; every call of `fun` sets new latent
values and runs forward and backward on it, returning the objective and its gradient with respect to
the latent parameters (bounded to [0, 1]). The scene's goal ("minimize"/"maximize") sets the sign.
"""
import argparse
import os
import sys

import numpy as np
import scipy.optimize

import yee

HERE = os.path.dirname(os.path.abspath(__file__))
# Next to the sources (python/examples) or installed (share/yee-studio/python-examples).
DEFAULT_SCENE = next((p for p in (os.path.join(HERE, "..", "..", "resources", "scenes", "ar_coating_opt.json"),
                                  os.path.join(HERE, "..", "scenes", "ar_coating_opt.json")) if os.path.exists(p)),
                     "ar_coating_opt.json")


def optimise(scene, iterations=10, tiles=None, devices=None, report=print):
    """Minimise (or maximise) the scene's objective over its design region's latent values.

    Returns (objective values of every evaluation, scipy's OptimizeResult, the best latent array).
    """
    [name] = scene.design_names
    shape = scene.design_shape(name)
    sign = 1.0 if scene.get("objective.goal") == "minimize" else -1.0
    x0 = scene.latent(name).ravel().copy()
    values = []
    with yee.Session(scene, tiles=tiles, devices=devices) as session:

        def fun(x):
            r = session.evaluate({name: x.reshape(shape)})
            values.append(r.objective)
            report(f"evaluation {len(values):3d}: objective {r.objective:.6g}")
            return sign * r.objective, sign * r.gradients[name].ravel()

        result = scipy.optimize.minimize(fun, x0, jac=True, method="L-BFGS-B", bounds=[(0.0, 1.0)] * x0.size,
                                         options={"maxiter": iterations})
    return values, result, result.x.reshape(shape)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("scene", nargs="?", default=DEFAULT_SCENE)
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--devices", default=None, help='e.g. "cpu:2" (default: the scene\'s run section)')
    p.add_argument("--tiles", default=None, help="e.g. 2,1,1")
    p.add_argument("--out", default=None, help="write the scene with the optimised design here")
    a = p.parse_args(argv)
    scene = yee.Scene.load(a.scene)
    tiles = tuple(int(t) for t in a.tiles.split(",")) if a.tiles else None
    values, result, best = optimise(scene, a.iterations, tiles, a.devices)
    print(f"{result.message}: objective {values[0]:.6g} -> {min(values) if scene.get('objective.goal') == 'minimize' else max(values):.6g}"
          f" in {len(values)} evaluations")
    if a.out:
        scene.set_latent(scene.design_names[0], best)
        scene.save(a.out)
        print(f"design written to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

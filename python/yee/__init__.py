"""Yee Studio from Python: scenes, runs, value-and-grad, optimisation and GDS over libyee.

A thin layer over the C++ library (the extension ``yee._yee``): scenes are parsed, validated and
hashed by the same code as ``yee-run`` and the studio, runs go through ``run::run`` and
``run::Session``, results files through ``io/``. See docs/python.md.
"""

import atexit
import json
import re
import sys

import numpy as np

from . import _yee
from ._yee import (
    DetectorResult,
    DeviceMemoryError,
    DeviceReport,
    DeviceSummary,
    Estimate,
    PhaseProgress,
    Report,
    ResultsFile,
    RunError,
    RunResult,
    Scene,
    SceneError,
    Session,
    estimate_memory,
    gpu_count,
    mpi_rank,
    mpi_size,
    optimize,
    read_results,
    run,
)

__version__ = _yee.__version__
has_mpi = _yee.has_mpi

__all__ = [
    "DetectorResult",
    "DeviceMemoryError",
    "DeviceReport",
    "DeviceSummary",
    "Estimate",
    "PhaseProgress",
    "Report",
    "ResultsFile",
    "RunError",
    "RunResult",
    "Scene",
    "SceneError",
    "Session",
    "estimate_memory",
    "gpu_count",
    "mpi_rank",
    "mpi_size",
    "optimize",
    "read_results",
    "run",
    "value_and_grad",
]

atexit.register(_yee._mpi_finalize)


def _abort_job_on_uncaught(previous):
    """sys.excepthook under MPI: an uncaught exception on one rank would leave the other ranks waiting
    in a collective for ever. Print it as usual, then end every rank of the job (MPI_Abort)."""

    def hook(kind, value, tb):
        previous(kind, value, tb)
        if _yee._mpi_active():
            sys.stderr.write(f"yee: rank {mpi_rank()}: uncaught {kind.__name__}; ending every rank of the job\n")
            sys.stderr.flush()
            _yee._mpi_abort(1)

    return hook


sys.excepthook = _abort_job_on_uncaught(sys.excepthook)


def value_and_grad(scene, latent=None, **options):
    """Run `scene` forward and backward once; return (objective, {design: dJ/dlatent}, RunResult).

    `latent` ({design: array}) replaces the scene's latent values for this run. The keyword options
    are those of yee.run. For many evaluations of one scene use yee.Session (planned and allocated
    once). Raises RunError when the run did not complete (cancelled, diverged).
    """
    result = run(scene, gradient=True, latent=latent, **options)
    if not result.completed and mpi_rank() == 0:
        raise RunError(f"value_and_grad: {result.status}")
    return result.objective, result.gradients, result


# ---- scenes as the file format's keys -------------------------------------------------------------

_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _split_path(path):
    """'sources[0].profile.wavelength_um' -> ['sources', 0, 'profile', 'wavelength_um']."""
    parts, pos = [], 0
    for m in _TOKEN.finditer(path):
        gap = path[pos:m.start()]
        if gap not in ("", "."):
            raise SceneError(f"{path}: not a field path")
        parts.append(m.group(1) if m.group(1) is not None else int(m.group(2)))
        pos = m.end()
    if not parts or path[pos:]:
        raise SceneError(f"{path}: not a field path")
    return parts


def _walk(tree, parts, path, create=False):
    """The container holding the last part of `parts`."""
    node = tree
    for i, key in enumerate(parts[:-1]):
        where = _join(parts[: i + 1])
        if isinstance(key, int):
            if not isinstance(node, list) or key >= len(node):
                raise SceneError(f"{where}: no such element")
            node = node[key]
        else:
            if not isinstance(node, dict):
                raise SceneError(f"{where}: not a section")
            if key not in node:
                if not create:
                    raise SceneError(f"{where}: no such key")
                node[key] = {}
            node = node[key]
    return node


def _join(parts):
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (("." if out else "") + p)
    return out


def _plain(value):
    """numpy arrays and scalars as JSON values."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _to_dict(self, inline_arrays=False):
    """The scene as a dict of the file format's keys (what to_json() writes)."""
    return json.loads(self.to_json(inline_arrays))


def _from_dict(d, base_dir=".", validate=True):
    """A scene from a dict of the file format's keys; raises SceneError naming the bad field."""
    d = dict(_plain(d))
    d.setdefault("format", "yee-scene")
    d.setdefault("version", 1)
    return Scene.from_json(json.dumps(d), base_dir, validate)


def _edit(self, change):
    tree = self.to_dict(inline_arrays=True)
    change(tree)
    self._assign_json(json.dumps(_plain(tree)), getattr(self, "_defer", 0) == 0)


def _get(self, path):
    """The value at a field path ('objects[0].material', 'grid.cell_um') as written in the file."""
    parts = _split_path(path)
    node = _walk(self.to_dict(inline_arrays=True), parts, path)
    key = parts[-1]
    try:
        return node[key]
    except (KeyError, IndexError, TypeError):
        raise SceneError(f"{path}: no such key") from None


def _set(self, path, value):
    """Set a field ('sources[0].profile.wavelength_um', 1.31) with the file's keys and units.

    The scene is parsed and validated again (unless inside `with scene.editing():`): a bad value
    raises SceneError with the validator's one-line message, and the scene is left unchanged.
    """
    parts = _split_path(path)

    def change(tree):
        node = _walk(tree, parts, path, create=True)
        key = parts[-1]
        if isinstance(key, int):
            if not isinstance(node, list) or key >= len(node):
                raise SceneError(f"{path}: no such element")
        node[key] = _plain(value)

    _edit(self, change)


def _add(self, section, item, name=None):
    """Append `item` (a dict of the file's keys) to a list section ('objects', 'sources',
    'detectors', 'designs', 'objective.terms'), or add material `name` to 'materials'."""
    parts = _split_path(section)

    def change(tree):
        node = _walk(tree, parts, section, create=True)
        key = parts[-1]
        if section == "materials":
            if name is None:
                raise SceneError("materials: add() needs the material's name")
            node.setdefault(key, {})[name] = _plain(item)
            return
        node.setdefault(key, [])
        if not isinstance(node[key], list):
            raise SceneError(f"{section}: not a list section")
        node[key].append(_plain(item))

    _edit(self, change)


def _remove(self, path):
    """Remove the element or key at `path` ('objects[1]', 'materials.glass')."""
    parts = _split_path(path)

    def change(tree):
        node = _walk(tree, parts, path)
        try:
            del node[parts[-1]]
        except (KeyError, IndexError, TypeError):
            raise SceneError(f"{path}: no such key") from None

    _edit(self, change)


class _Editing:
    """`with scene.editing():` defers validation to the end of the block (building step by step)."""

    def __init__(self, scene):
        self.scene = scene

    def __enter__(self):
        self.scene._defer = getattr(self.scene, "_defer", 0) + 1
        return self.scene

    def __exit__(self, kind, value, tb):
        self.scene._defer -= 1
        if kind is None and self.scene._defer == 0:
            self.scene.validate()
        return False


Scene.to_dict = _to_dict
Scene.from_dict = staticmethod(_from_dict)
Scene.get = _get
Scene.set = _set
Scene.add = _add
Scene.remove = _remove
Scene.editing = lambda self: _Editing(self)

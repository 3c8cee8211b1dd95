"""Scenes from Python: same parser, validator, messages and hash as the C++ scene code."""
import json

import numpy as np
import pytest

import yee


def test_load_and_round_trip(scenes):
    s = yee.Scene.load(str(scenes / "ar_coating_opt.json"))
    again = yee.Scene.from_json(s.to_json())
    assert again.hash == s.hash
    assert again.to_json() == s.to_json()
    assert s.grid_cells == [120, 2, 2]
    assert s.design_names == ["coating"]


def test_scene_built_in_python_equals_the_file(scenes):
    """The AR-coating example built key by key from an empty scene hashes like the loaded file."""
    loaded = yee.Scene.load(str(scenes / "ar_coating_opt.json"))
    s = yee.Scene()
    with s.editing():
        s.set("name", "anti-reflection coating (inverse design)")
        s.set("grid.cell_um", 0.05)
        s.set("domain.size_um", np.array([6.0, 0.1, 0.1]))
        s.set("time.duration_fs", 70)
        s.set("boundaries.y", {"type": "periodic"})
        s.set("boundaries.z", {"type": "periodic"})
        s.add("materials", {"eps": 1.0}, name="air")
        s.add("materials", {"eps": 4.0}, name="core")
        s.set("background", "air")
        s.add("objects", {"name": "substrate", "shape": "box", "center_um": [2.0, 0, 0],
                          "size_um": [3.0, 1.0, 1.0], "material": "core"})
        s.add("sources", {"name": "in", "type": "uniform_plane", "center_um": [-1.5, 0, 0],
                          "size_um": [0, 0.1, 0.1], "direction": "+x", "polarization": "y",
                          "profile": {"type": "gaussian_pulse", "wavelength_um": 1.0, "bandwidth_um": 0.3}})
        for name, x, direction in (("refl", -2.2, "-x"), ("trans", 1.8, "+x")):
            s.add("detectors", {"name": name, "type": "flux", "center_um": [x, 0, 0], "size_um": [0, 0.1, 0.1],
                                "direction": direction, "wavelengths_um": [0.95, 1.0, 1.05]})
        s.add("designs", {"name": "coating", "center_um": [0.0, 0, 0], "size_um": [1.0, 0.1, 0.1],
                          "voxel_cells": [1, 2, 2], "materials": ["air", "core"]})
        s.set("objective", {"goal": "minimize", "terms": [
            {"detector": "refl", "quantity": "flux", "reduce": "at_wavelength", "wavelength_um": 1.0}]})
        s.set("gradient", {"method": "full"})
        s.set("run.precision", "float64")
        s.set("optimization", {"optimizer": "mma", "iterations": 20})
    assert s.hash == loaded.hash
    assert s.to_dict() == loaded.to_dict()
    assert yee.Scene.from_dict(loaded.to_dict()).hash == loaded.hash


def test_bad_input_names_the_field(scenes):
    s = yee.Scene.load(str(scenes / "ar_coating_opt.json"))
    before = s.hash
    with pytest.raises(yee.SceneError) as e:
        s.set("sources[0].profile.wavelength_um", -1)
    assert str(e.value) == "sources[0].profile.wavelength_um: must be > 0 (got -1)"
    assert e.value.field == "sources[0].profile.wavelength_um"
    assert isinstance(e.value, ValueError)
    assert s.hash == before  # a refused edit leaves the scene as it was
    with pytest.raises(yee.SceneError, match=r'^objects\[0\]\.material: unknown material "metl"$'):
        s.set("objects[0].material", "metl")
    with pytest.raises(yee.SceneError, match=r"^grid\.courant: "):
        s.set("grid.courant", 1.5)
    with pytest.raises(yee.SceneError, match=r"^objects\[0\]\.radius_um"):
        s.set("objects[0].radius_um", 0.2)  # a key that does not apply to a box
    with pytest.raises(yee.SceneError, match=r"line \d+"):
        yee.Scene.from_json('{"format": "yee-scene", ')
    d = s.to_dict()
    d["grid"]["cell_um"] = 0
    with pytest.raises(yee.SceneError, match=r"^grid\.cell_um: "):
        yee.Scene.from_dict(d)
    with pytest.raises(yee.SceneError, match=r"^devices: "):
        yee.estimate_memory(s, devices="gpu:7")
    with pytest.raises(yee.SceneError, match=r"^precision: "):
        yee.run(s, precision="float16")


def test_latent_views(scenes):
    s = yee.Scene.load(str(scenes / "ar_coating_opt.json"))
    assert s.design_shape("coating") == (1, 1, 20)
    v = s.latent("coating")
    assert v.shape == (1, 1, 20)
    assert v.dtype == np.float64
    assert v.strides == (20 * 8, 20 * 8, 8)
    assert v.flags["C_CONTIGUOUS"] and v.flags["WRITEABLE"]
    assert np.all(v == 0.5)  # a design without values reads as 0.5 everywhere
    w = s.latent("coating")
    assert np.shares_memory(v, w)  # both view the scene's own storage: no copies
    before = s.hash
    v[0, 0, 3] = 0.75
    assert w[0, 0, 3] == 0.75
    assert s.hash != before
    assert json.loads(s.to_json())["designs"][0]["latent"][3] == 0.75
    s.set_latent("coating", np.linspace(0, 1, 20))
    assert v[0, 0, 19] == 1.0
    with pytest.raises(yee.SceneError, match=r"^designs\[0\]\.latent: expected 20 values"):
        s.set_latent("coating", np.zeros(7))
    with pytest.raises(yee.SceneError, match=r"^designs: no design region 'nope'"):
        s.latent("nope")
    rho = s.density("coating")
    assert rho.shape == (1, 1, 20)
    np.testing.assert_array_equal(rho, s.latent("coating"))  # no filter, no projection: rho = latent


def test_view_survives_an_edit(scenes):
    s = yee.Scene.load(str(scenes / "ar_coating_opt.json"))
    v = s.latent("coating")
    v[...] = 0.25
    s.set("name", "renamed")  # a new C++ scene: the old view is detached but still valid
    v[0, 0, 0] = 0.9
    assert s.latent("coating")[0, 0, 0] == 0.25
    assert s.name == "renamed"


def test_type_stubs_match_the_module():
    """Every name of the stubs exists in the module (and every public name of the module is stubbed)."""
    import ast
    import pathlib

    stub = ast.parse((pathlib.Path(yee.__file__).parent / "__init__.pyi").read_text())
    declared = {}
    for node in stub.body:
        if isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AnnAssign)):
                    members.add(item.name if isinstance(item, ast.FunctionDef) else item.target.id)
            declared[node.name] = members
        elif isinstance(node, ast.FunctionDef):
            declared[node.name] = None
    for name, members in declared.items():
        obj = getattr(yee, name, None) or getattr(yee._yee, name)
        for m in members or ():
            if m != "__init__" and m not in ("field",):
                assert hasattr(obj, m), f"{name}.{m} is in the stubs but not in the module"
    assert set(yee.__all__) <= set(declared)

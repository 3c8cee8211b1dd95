"""GDS in and out (gdstk is optional: these tests run where it imports; the message test always)."""
import builtins

import numpy as np
import pytest

import yee
import yee.gds


def test_missing_gdstk_gives_a_clear_message(monkeypatch, tmp_path):
    real_import = builtins.__import__

    def no_gdstk(name, *args, **kwargs):
        if name == "gdstk":
            raise ImportError("No module named 'gdstk'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_gdstk)
    assert not yee.gds.available()
    with pytest.raises(ImportError, match=r"^yee\.gds needs gdstk, an optional dependency .*pip install gdstk"):
        yee.gds.read_layer(tmp_path / "x.gds", 1)


gdstk = pytest.importorskip("gdstk")


def box_scene(scenes):
    s = yee.Scene.load(str(scenes / "quick_box.json"))
    return s


def test_import_layer_as_extruded_polygons(tmp_path, scenes):
    lib = gdstk.Library(unit=1e-6, precision=1e-9)
    top = lib.new_cell("TOP")
    tri = [(-0.4, -0.3), (0.3, -0.3), (0.0, 0.4)]
    top.add(gdstk.Polygon(tri, layer=1))
    top.add(gdstk.rectangle((0.35, -0.2), (0.55, 0.2), layer=1))
    top.add(gdstk.rectangle((-0.5, -0.5), (0.5, 0.5), layer=2))  # another layer: not imported
    lib.write_gds(str(tmp_path / "in.gds"))

    s = box_scene(scenes)
    before = len(s.to_dict()["objects"])
    n = yee.gds.import_layer(s, tmp_path / "in.gds", 1, material="glass", thickness_um=0.22, z_center_um=0.11)
    assert n == 2
    objects = s.to_dict()["objects"][before:]
    assert [o["shape"] for o in objects] == ["polygon", "polygon"]
    assert all(o["axis"] == "z" and o["height_um"] == 0.22 and o["material"] == "glass" for o in objects)
    assert objects[0]["center_um"][2] == 0.11
    got = {tuple(map(tuple, np.round(o["vertices_um"], 9))) for o in objects}
    want = {tuple(map(tuple, np.round(p, 9))) for p in yee.gds.read_layer(tmp_path / "in.gds", 1)}
    assert got == want
    s.validate()

    # Out again: the same polygons on the layer asked for.
    assert yee.gds.export_polygons(s, tmp_path / "out.gds", 7) == 2
    back = yee.gds.read_layer(tmp_path / "out.gds", 7)
    assert {tuple(map(tuple, np.round(p, 9))) for p in back} == want

    with pytest.raises(yee.SceneError, match=r"^objects\[\d+\]\.material: unknown material \"gold\""):
        yee.gds.import_layer(box_scene(scenes), tmp_path / "in.gds", 1, material="gold", thickness_um=0.2,
                             z_center_um=0)


def design_scene(scenes):
    s = box_scene(scenes)
    s.add("designs", {"name": "pattern", "center_um": [0, 0, 0], "size_um": [0.8, 0.6, 0.1],
                      "voxel_cells": [2, 2, 2], "materials": ["air", "glass"]})
    return s


def test_export_design_pixels_and_contour(tmp_path, scenes):
    s = design_scene(scenes)
    assert s.design_shape("pattern") == (1, 6, 8)
    x = s.latent("pattern")
    x[...] = 0.0
    x[0, 1:4, 2:6] = 1.0  # a 4 x 3 voxel block of 0.1 um voxels
    x[0, 5, 0] = 0.8      # one more voxel in a corner
    polys = yee.gds.export_design(s, "pattern", tmp_path / "d.gds", layer=3)
    area = sum(p.area() for p in polys)
    assert area == pytest.approx(13 * 0.1 * 0.1, rel=1e-9)
    assert len(polys) == 2
    back = yee.gds.read_layer(tmp_path / "d.gds", 3)
    assert len(back) == 2
    (x0, y0, _), _ = s.design_box("pattern")
    xs = sorted({round(v, 9) for v in np.concatenate(back)[:, 0]})
    assert xs[0] == pytest.approx(x0)  # the corner voxel starts at the region's edge

    traced = yee.gds.export_design(s, "pattern", tmp_path / "c.gds", layer=4, method="contour")
    # The 0.5 level traced between voxel centres: near the pixel area (corners are cut).
    assert sum(p.area() for p in traced) == pytest.approx(area, rel=0.25)
    with pytest.raises(ValueError, match="^method: "):
        yee.gds.export_design(s, "pattern", tmp_path / "e.gds", method="spline")

"""GDS in and out through gdstk (an optional dependency: ``pip install gdstk``).

* import_layer(): the polygons of one GDS layer become extruded polygon objects of a scene
  (``"shape": "polygon"``, extrusion along z, thickness, z-position and material given).
* export_polygons(): a scene's z-extruded polygon objects back to a GDS layer.
* export_design(): an (optimised) design region's density, thresholded, as GDS polygons: either the
  voxels at or above the threshold merged into polygons ("pixels": exact to the voxel raster), or the
  threshold's level set traced between voxel centres by gdstk.contour ("contour": smooth outlines).

GDS coordinates are read and written in micrometres (library unit 1 um, precision 1 nm).
"""

import numpy as np

_MISSING = ("yee.gds needs gdstk, an optional dependency that is not installed: "
            "pip install gdstk (on Debian's python3: pip install --break-system-packages gdstk)")


def _gdstk():
    try:
        import gdstk
    except ImportError:
        raise ImportError(_MISSING) from None
    return gdstk


def available():
    """True when gdstk can be imported."""
    try:
        _gdstk()
    except ImportError:
        return False
    return True


def _cell(lib, name):
    if name is None:
        tops = lib.top_level()
        if len(tops) != 1:
            names = ", ".join(sorted(c.name for c in tops))
            raise ValueError(f"cell: the file has {len(tops)} top-level cells ({names}); name one")
        return tops[0]
    for c in lib.cells:
        if c.name == name:
            return c
    raise ValueError(f"cell: no cell '{name}' in the file")


def read_layer(path, layer, datatype=0, cell=None):
    """The polygons of `layer`/`datatype` of `cell` (default: the only top-level cell), references
    flattened, as a list of (N, 2) float arrays in um."""
    gdstk = _gdstk()
    lib = gdstk.read_gds(str(path), unit=1e-6)
    polys = _cell(lib, cell).get_polygons(layer=layer, datatype=datatype)
    return [np.array(p.points, dtype=float) for p in polys]


def import_layer(scene, path, layer, *, material, thickness_um, z_center_um, datatype=0, cell=None,
                 name="gds", offset_um=(0.0, 0.0)):
    """Add every polygon of a GDS layer to `scene` as a polygon object extruded along z.

    thickness_um: extent along z; z_center_um: centre of the extrusion; material: a scene material;
    offset_um: (dx, dy) added to every vertex. Objects are named "<name><layer>_<i>" and appended
    after the existing objects (so they paint over them). The scene is validated once at the end
    (yee.SceneError names the first bad object). Returns the number of polygons added.
    """
    polygons = read_layer(path, layer, datatype, cell)
    dx, dy = offset_um
    with scene.editing():
        for i, p in enumerate(polygons):
            v = p + np.array([dx, dy])
            lo, hi = v.min(axis=0), v.max(axis=0)
            scene.add("objects", {
                "name": f"{name}{layer}_{i}",
                "shape": "polygon",
                "axis": "z",
                "center_um": [float((lo[0] + hi[0]) / 2), float((lo[1] + hi[1]) / 2), float(z_center_um)],
                "height_um": float(thickness_um),
                "vertices_um": v.tolist(),
                "material": material,
            })
    return len(polygons)


def _write(polygons, path, cell_name):
    gdstk = _gdstk()
    lib = gdstk.Library(unit=1e-6, precision=1e-9)
    c = lib.new_cell(cell_name)
    c.add(*polygons)
    lib.write_gds(str(path))
    return polygons


def export_polygons(scene, path, layer, *, datatype=0, cell="YEE", material=None):
    """Write the scene's polygon objects extruded along z (optionally only those of `material`) to
    `layer` of a new GDS file. Returns the number of polygons written."""
    gdstk = _gdstk()
    polys = []
    for o in scene.to_dict().get("objects", []):
        if o.get("shape") != "polygon" or o.get("axis") != "z":
            continue
        if material is not None and o.get("material") != material:
            continue
        polys.append(gdstk.Polygon(o["vertices_um"], layer=layer, datatype=datatype))
    _write(polys, path, cell)
    return len(polys)


def _design_geometry(scene, design):
    """Voxel edges of a design region along x and y (um), and its z voxel count."""
    d = scene.design_names.index(design)
    (x0, y0, _), (x1, y1, _) = scene.design_box(design)
    cell = scene.get("grid.cell_um")
    vc = scene.get(f"designs[{d}].voxel_cells")
    vz, vy, vx = scene.design_shape(design)
    xs = np.minimum(x0 + cell * vc[0] * np.arange(vx + 1), x1)
    ys = np.minimum(y0 + cell * vc[1] * np.arange(vy + 1), y1)
    return xs, ys, vz


def design_mask(scene, design, threshold=0.5, z_index=None):
    """The design's density at or above `threshold`, as a (vy, vx) bool array of one z voxel layer
    (default: the middle one), with the voxel edges (xs, ys) in um."""
    rho = scene.density(design)
    xs, ys, vz = _design_geometry(scene, design)
    k = vz // 2 if z_index is None else z_index
    if not 0 <= k < vz:
        raise ValueError(f"z_index: must be in [0, {vz})")
    return rho[k] >= threshold, rho[k], xs, ys


def export_design(scene, design, path, layer=1, *, datatype=0, threshold=0.5, z_index=None, method="pixels",
                  cell="DESIGN"):
    """Write the thresholded density of design region `design` (one z voxel layer) as GDS polygons.

    method "pixels": the voxels with density >= threshold, merged (gdstk boolean OR) into polygons
    whose edges are voxel edges; "contour": the threshold level set of the density, traced by
    gdstk.contour between voxel centres (edge values extended to the region's border, clipped to it).
    Returns the list of gdstk.Polygon written.
    """
    gdstk = _gdstk()
    mask, rho, xs, ys = design_mask(scene, design, threshold, z_index)
    if method == "pixels":
        rects = []
        for j in range(mask.shape[0]):
            row = np.concatenate([[False], mask[j], [False]])
            starts = np.flatnonzero(~row[:-1] & row[1:])
            ends = np.flatnonzero(row[:-1] & ~row[1:])
            for a, b in zip(starts, ends):  # one rectangle per run of set voxels
                rects.append(gdstk.rectangle((xs[a], ys[j]), (xs[b], ys[j + 1])))
        polys = gdstk.boolean(rects, [], "or", precision=1e-4, layer=layer, datatype=datatype) if rects else []
    elif method == "contour":
        dx, dy = xs[1] - xs[0], ys[1] - ys[0]
        padded = np.pad(rho, 1, mode="edge")
        traced = gdstk.contour(padded, threshold, 1.0, 0.01)
        for p in traced:
            p.scale(dx, dy)
            p.translate(xs[0] - dx / 2, ys[0] - dy / 2)
        box = gdstk.rectangle((xs[0], ys[0]), (xs[-1], ys[-1]))
        polys = gdstk.boolean(traced, box, "and", precision=1e-4, layer=layer, datatype=datatype) if traced else []
    else:
        raise ValueError(f"method: expected 'pixels' or 'contour', got '{method}'")
    _write(polys, path, cell)
    return polys

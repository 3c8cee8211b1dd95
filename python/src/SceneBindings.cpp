/// \file SceneBindings.cpp
/// yee.Scene: load, parse, write, validate and hash scenes through scene/SceneJson (the same parser,
/// validator and messages as the CLI and the studio), and numpy views of design latent parameters.
#include <filesystem>

#include "Bindings.hpp"
#include "yee/core/Error.hpp"
#include "yee/scene/DesignMap.hpp"
#include "yee/scene/SceneJson.hpp"

namespace yee::python {

namespace {

/// The design region named `name` and its index.
std::pair<scene::Design*, std::size_t> findDesign(PyScene& ps, const std::string& name) {
    const std::size_t d = designIndex(*ps.scene, name);
    return {&ps.scene->designs[d], d};
}

/// Voxel grid of design `d` as numpy shape [vz, vy, vx] (the latent order is x fastest).
std::vector<std::int64_t> designShape(const scene::Scene& s, std::size_t d) {
    const auto v = s.designVoxels(d);
    return {v[2], v[1], v[0]};
}

/// Makes design `d` hold its latent values explicitly (0.5 everywhere when the scene had none).
std::vector<double>& materialisedLatent(scene::Scene& s, std::size_t d) {
    auto& latent = s.designs[d].latent;
    const std::size_t n = s.designLatentSize(d);
    if (latent.empty())
        latent.assign(n, 0.5);
    return latent;
}

} // namespace

void bindScene(py::module_& m) {
    py::class_<PyScene>(m, "Scene", py::dynamic_attr(), R"doc(
A scene: the C++ scene model of libyee, read and written with the scene file format's keys.

Load one with Scene.load(path) or Scene.from_json(text), build one from a dict of the file's keys
(Scene.from_dict), edit it with set()/add()/remove() (paths as in error messages,
"sources[0].profile.wavelength_um"). Every edit goes through the same parser and validator as
yee-run: bad input raises yee.SceneError with the one-line message naming the field.
)doc")
        .def(py::init<>(), "An empty scene with the format's defaults (not validated).")
        .def_static(
            "load",
            [](const std::string& path, bool validate) {
                PyScene ps;
                ps.scene = std::make_shared<scene::Scene>(scene::loadScene(path, validate));
                const auto parent = std::filesystem::path(path).parent_path();
                ps.baseDir = parent.empty() ? "." : parent.string();
                return ps;
            },
            py::arg("path"), py::arg("validate") = true,
            "Read a scene file (sidecar arrays relative to its directory). Raises SceneError.")
        .def_static(
            "from_json",
            [](const std::string& text, const std::string& baseDir, bool validate) {
                PyScene ps;
                ps.scene = std::make_shared<scene::Scene>(scene::parseScene(text, baseDir, validate));
                ps.baseDir = baseDir;
                return ps;
            },
            py::arg("text"), py::arg("base_dir") = ".", py::arg("validate") = true,
            "Parse scene JSON text (sidecar arrays relative to base_dir). Raises SceneError.")
        .def(
            "_assign_json",
            [](PyScene& ps, const std::string& text, bool validate) {
                // A new C++ scene: views of the old one keep the old storage.
                ps.scene = std::make_shared<scene::Scene>(scene::parseScene(text, ps.baseDir, validate));
            },
            py::arg("text"), py::arg("validate") = true)
        .def(
            "to_json",
            [](const PyScene& ps, bool inlineArrays) { return scene::sceneToJson(*ps.scene, inlineArrays); },
            py::arg("inline_arrays") = false,
            "The scene as indented JSON text; Scene.from_json(s.to_json()) gives it back exactly.")
        .def(
            "save", [](const PyScene& ps, const std::string& path) { scene::saveScene(*ps.scene, path); },
            py::arg("path"), "Write the scene file atomically (latent arrays to the <stem>.h5 sidecar).")
        .def(
            "validate", [](const PyScene& ps) { scene::validateScene(*ps.scene); },
            "Check the scene as yee-run does; raises SceneError naming the first bad field.")
        .def_property_readonly(
            "hash", [](const PyScene& ps) { return scene::sceneHash(*ps.scene); },
            "Content hash (16 hex digits), the scene_hash of results files.")
        .def_property_readonly("name", [](const PyScene& ps) { return ps.scene->name; })
        .def_property_readonly("base_dir", [](const PyScene& ps) { return ps.baseDir; })
        .def_property_readonly(
            "grid_cells", [](const PyScene& ps) { return ps.scene->gridCells(); },
            "Cells per axis (x, y, z).")
        .def_property_readonly(
            "steps", [](const PyScene& ps) { return ps.scene->steps(); },
            "Time steps of the scene's duration.")
        .def_property_readonly(
            "dt_fs", [](const PyScene& ps) { return ps.scene->dtFs(); }, "Time step, fs.")
        .def_property_readonly(
            "design_names",
            [](const PyScene& ps) {
                std::vector<std::string> names;
                for (const auto& d : ps.scene->designs)
                    names.push_back(d.name);
                return names;
            },
            "Names of the design regions, in scene order.")
        .def(
            "design_shape",
            [](const PyScene& ps, const std::string& name) {
                const auto v = designShape(*ps.scene, designIndex(*ps.scene, name));
                return py::make_tuple(v[0], v[1], v[2]);
            },
            py::arg("name"), "Voxel grid of a design region as (vz, vy, vx).")
        .def(
            "latent",
            [](PyScene& ps, const std::string& name) {
                auto [design, d] = findDesign(ps, name);
                (void)design;
                std::vector<double>& latent = materialisedLatent(*ps.scene, d);
                const auto shape = designShape(*ps.scene, d);
                // The capsule owns a reference to this version of the scene: the view stays valid
                // after an edit replaced it (it then no longer belongs to the scene).
                auto* owner = new std::shared_ptr<scene::Scene>(ps.scene);
                py::capsule base(owner,
                                 [](void* p) { delete static_cast<std::shared_ptr<scene::Scene>*>(p); });
                const std::int64_t nx = shape[2], ny = shape[1];
                return py::array_t<double>({shape[0], shape[1], shape[2]},
                                           {std::int64_t(sizeof(double)) * nx * ny,
                                            std::int64_t(sizeof(double)) * nx, std::int64_t(sizeof(double))},
                                           latent.data(), base);
            },
            py::arg("name"), R"doc(
Writable float64 view (no copy) of a design region's latent parameters, shape (vz, vy, vx), C order
(x fastest, as in the scene). A design without values first gets 0.5 everywhere. The view belongs to
this version of the scene: set()/add()/remove() replace it, after which the view is detached.
)doc")
        .def(
            "set_latent",
            [](PyScene& ps, const std::string& name,
               const py::array_t<double, py::array::c_style | py::array::forcecast>& values) {
                auto [design, d] = findDesign(ps, name);
                const std::size_t n = ps.scene->designLatentSize(d);
                if (std::size_t(values.size()) != n) {
                    const auto v = designShape(*ps.scene, d);
                    throw InputError("designs[" + std::to_string(d) + "].latent: expected " +
                                     std::to_string(n) + " values (vz, vy, vx = " + std::to_string(v[0]) +
                                     ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + "), got " +
                                     std::to_string(values.size()));
                }
                design->latent.assign(values.data(), values.data() + n);
            },
            py::arg("name"), py::arg("values"), "Copy latent values (any shape with the voxel count) in.")
        .def(
            "density",
            [](const PyScene& ps, const std::string& name) {
                const std::size_t d = designIndex(*ps.scene, name);
                scene::validateScene(*ps.scene);
                const scene::DesignMap map(*ps.scene, d);
                std::vector<double> latent = ps.scene->designs[d].latent;
                if (latent.empty())
                    latent.assign(map.size(), 0.5);
                const auto shape = designShape(*ps.scene, d);
                py::array_t<double> out({shape[0], shape[1], shape[2]});
                const std::vector<double> rho = map.forward(latent);
                std::copy(rho.begin(), rho.end(), out.mutable_data());
                return out;
            },
            py::arg("name"),
            "The design's density (filter and projection of the latent), shape (vz, vy, vx).")
        .def(
            "design_box",
            [](const PyScene& ps, const std::string& name) {
                const std::size_t d = designIndex(*ps.scene, name);
                const Box b = ps.scene->designCells(d);
                const auto lo = ps.scene->domainLo();
                const double c = ps.scene->cellUm;
                py::tuple blo(3), bhi(3);
                for (int a = 0; a < 3; ++a) {
                    blo[a] = lo[a] + c * b.lo[a];
                    bhi[a] = lo[a] + c * b.hi[a];
                }
                return py::make_tuple(blo, bhi);
            },
            py::arg("name"), "The cells a design region covers, as ((x0, y0, z0), (x1, y1, z1)) in um.")
        .def("__copy__",
             [](const PyScene& ps) {
                 return PyScene{std::make_shared<scene::Scene>(*ps.scene), ps.baseDir};
             })
        .def(
            "copy",
            [](const PyScene& ps) {
                return PyScene{std::make_shared<scene::Scene>(*ps.scene), ps.baseDir};
            },
            "An independent copy.")
        .def("__eq__",
             [](const PyScene& a, const PyScene& b) {
                 return scene::sceneHash(*a.scene) == scene::sceneHash(*b.scene);
             })
        .def("__repr__", [](const PyScene& ps) {
            const auto g = ps.scene->gridCells();
            return "<yee.Scene '" + ps.scene->name + "' " + std::to_string(g[0]) + "x" +
                   std::to_string(g[1]) + "x" + std::to_string(g[2]) + " cells, hash " +
                   scene::sceneHash(*ps.scene) + ">";
        });
}

} // namespace yee::python

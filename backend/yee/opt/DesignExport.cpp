#include "yee/opt/DesignExport.hpp"

#include <cctype>
#include <exception>
#include <functional>

#include "yee/core/Error.hpp"
#include "yee/files/AtomicFile.hpp"
#include "yee/files/Gdsii.hpp"
#include "yee/files/Hdf5Util.hpp"
#include "yee/io/VtkHdfWriter.hpp"
#include "yee/scene/DesignMap.hpp"
#include "yee/scene/SceneJson.hpp"
#include "yee/solver/Result.hpp"

namespace yee::opt {

namespace h5 = files::h5;

namespace {

/// GDSII names: letters, digits, '_', '?', '$'; at most 32 characters.
std::string gdsName(const std::string& text) {
    std::string n;
    for (const char c : text) {
        if (n.size() == 32)
            break;
        const auto u = static_cast<unsigned char>(c);
        n.push_back(std::isalnum(u) || c == '_' || c == '?' || c == '$' ? c : '_');
    }
    return n.empty() ? std::string("YEE_DESIGN") : n;
}

std::vector<double> voxelUm(const scene::Scene& s, std::size_t d) {
    const auto& v = s.designs[d].voxelCells;
    return {s.cellUm * v[0], s.cellUm * v[1], s.cellUm * v[2]};
}

} // namespace

std::vector<std::vector<double>> designDensities(const scene::Scene& s,
                                                 const std::vector<std::vector<double>>& latent,
                                                 const std::vector<double>& beta) {
    if (latent.size() != s.designs.size() || beta.size() != s.designs.size())
        throw InputError("design export: " + std::to_string(s.designs.size()) + " design regions, got " +
                         std::to_string(latent.size()) + " latent arrays and " + std::to_string(beta.size()) +
                         " beta values");
    std::vector<std::vector<double>> out;
    for (std::size_t d = 0; d < s.designs.size(); ++d) {
        if (latent[d].size() != s.designLatentSize(d))
            throw InputError("designs[" + std::to_string(d) + "]: " + std::to_string(s.designLatentSize(d)) +
                             " voxels, got " + std::to_string(latent[d].size()) + " latent values");
        scene::Scene one = s;
        one.designs[d].beta = beta[d];
        out.push_back(scene::DesignMap(one, d).forward(latent[d]));
    }
    return out;
}

DesignExportReport exportDesign(const scene::Scene& s, const std::vector<std::vector<double>>& latent,
                                const std::vector<double>& beta, const DesignExportOptions& o) {
    if (!(o.level > 0 && o.level < 1))
        throw InputError("--level: the traced density level must lie in (0, 1), got " +
                         std::to_string(o.level));
    if (o.prefix.empty())
        throw InputError("design export: an empty output prefix");
    const auto density = designDensities(s, latent, beta);
    DesignExportReport r;
    auto attempt = [&](const std::string& path, const std::function<void()>& write) {
        try {
            write();
            r.written.push_back(path);
        } catch (const std::exception& e) {
            r.failed.push_back(path + ": " + e.what());
        }
    };
    const std::string h5Path = o.prefix + ".design.h5";
    attempt(h5Path, [&] {
        files::writeAtomically(h5Path, [&](const std::string& tmp) {
            h5::Session session;
            h5::Handle f = h5::createFile(tmp);
            h5::writeAttr(f, "format", "yee-design");
            h5::writeAttr(f, "version", 1);
            h5::writeAttr(f, "scene_hash", scene::sceneHash(s));
            h5::writeAttr(f, "level", o.level);
            {
                h5::Handle g = h5::createGroup(f, "designs");
                for (std::size_t d = 0; d < s.designs.size(); ++d) {
                    const auto& dz = s.designs[d];
                    const auto n = s.designVoxels(d);
                    const std::vector<std::int64_t> shape{n[2], n[1], n[0]};
                    h5::Handle dg = h5::createGroup(g, dz.name);
                    const Box b = s.designCells(d);
                    const scene::Vec3 lo = s.domainLo();
                    h5::writeAttr(dg, "origin_um",
                                  std::vector<double>{lo[0] + s.cellUm * b.lo[0], lo[1] + s.cellUm * b.lo[1],
                                                      lo[2] + s.cellUm * b.lo[2]});
                    h5::writeAttr(dg, "voxel_um", voxelUm(s, d));
                    h5::writeAttr(dg, "beta", beta[d]);
                    h5::writeAttr(dg, "eta", dz.eta);
                    h5::writeAttr(dg, "materials",
                                  std::vector<std::string>{dz.materials[0], dz.materials[1]});
                    h5::writeAttr(h5::writeDataset(dg, "latent", shape, latent[d]), "shape", shape);
                    h5::writeAttr(h5::writeDataset(dg, "density", shape, density[d]), "shape", shape);
                }
            }
            f.close(tmp);
        });
    });
    for (std::size_t d = 0; d < s.designs.size(); ++d) {
        const std::string path = o.prefix + "." + s.designs[d].name + ".density.vtkhdf";
        attempt(path, [&] {
            solver::Snapshot img;
            img.detector = s.designs[d].name;
            img.component = "density";
            const auto n = s.designVoxels(d);
            img.dims = {n[0], n[1], n[2]};
            const Box b = s.designCells(d);
            const scene::Vec3 lo = s.domainLo();
            const auto v = voxelUm(s, d);
            for (int a = 0; a < 3; ++a) {
                img.spacingUm[std::size_t(a)] = v[std::size_t(a)];
                img.originUm[std::size_t(a)] = lo[a] + s.cellUm * b.lo[a] + 0.5 * v[std::size_t(a)];
            }
            img.data.assign(density[d].begin(), density[d].end());
            io::writeVtkHdf(path, img);
        });
    }
    if (!o.geometry)
        return r;
    std::vector<scene::DesignTrace> traces;
    try {
        for (std::size_t d = 0; d < s.designs.size(); ++d) {
            traces.push_back(scene::traceDesign(s, d, density[d], o.level, o.mode));
            r.solidAreaUm2.push_back(traces.back().solidAreaUm2());
        }
    } catch (const InputError& e) {
        r.notes.push_back(std::string("no geometry written: ") + e.what());
        return r;
    }
    const std::string jsonPath = o.prefix + ".geometry.json";
    attempt(jsonPath, [&] { scene::saveScene(scene::withTraces(s, traces), jsonPath); });
    const std::string gdsPath = o.prefix + ".gds";
    attempt(gdsPath, [&] {
        std::vector<files::GdsPolygon> polys;
        for (const auto& t : traces)
            for (std::size_t i = 0; i < t.loops.size(); ++i) {
                if (t.loops[i].depth % 2)
                    continue;
                files::GdsPolygon p;
                p.layer = o.gdsLayer;
                p.datatype = o.gdsDatatype;
                p.outline = t.loops[i].vertices;
                for (const auto& h : t.loops)
                    if (h.parent == int(i))
                        p.holes.push_back(h.vertices);
                polys.push_back(std::move(p));
            }
        files::writeGdsii(gdsPath, "YEE", gdsName(s.name), polys);
    });
    return r;
}

} // namespace yee::opt

/// Designs out (scene/DesignTrace.hpp, files/Gdsii.hpp, opt/DesignExport.hpp). Asserted with numbers:
/// a traced disk, ring and island have the analytic areas and nesting; staircase tracing of a binary
/// design is exact voxel by voxel; a GDSII file reads back with the same polygons, layers and areas;
/// the traced geometry re-simulated as a plain scene gives the binarised design's objective (staircase:
/// to rounding; smooth: within a stated tolerance); every output is written, and one failing output
/// does not stop the others.
#include <QtTest>

#include <cmath>
#include <filesystem>

#include "yee/core/Error.hpp"
#include "yee/files/AtomicFile.hpp"
#include "yee/files/Gdsii.hpp"
#include "yee/opt/DesignExport.hpp"
#include "yee/run/Run.hpp"
#include "yee/scene/DesignMap.hpp"
#include "yee/scene/DesignTrace.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;

namespace {

constexpr double kPi = 3.14159265358979323846;

/// A 4 um x 4 um design of 0.05 um voxels (80 x 80 x 1), centred at the origin.
scene::Scene planarScene(int voxelCells = 1) {
    const std::string t = R"({
  "format": "yee-scene", "version": 1, "name": "trace test",
  "grid": {"cell_um": 0.05, "courant": 0.99},
  "domain": {"center_um": [0, 0, 0], "size_um": [5.0, 5.0, 0.05]},
  "time": {"duration_fs": 1},
  "boundaries": {"x": {"type": "pml", "cells": 5}, "y": {"type": "pml", "cells": 5}, "z": {"type": "periodic"}},
  "materials": {"air": {"eps": 1.0}, "si": {"eps": 12.0}},
  "sources": [{"name": "d", "type": "point_dipole", "center_um": [2.2, 2.2, 0], "polarization": "z",
               "profile": {"type": "gaussian_pulse", "wavelength_um": 1.55, "bandwidth_um": 0.3}}],
  "designs": [{"name": "dev", "center_um": [0, 0, 0], "size_um": [4.0, 4.0, 0.05], "voxel_cells": [)" +
                          std::to_string(voxelCells) + "," + std::to_string(voxelCells) + R"(, 1],
               "materials": ["air", "si"]}]
})";
    return scene::parseScene(t);
}

/// Density 0.5 + 0.5 tanh(f(x, y) / w) at the voxel centres of design 0, f > 0 inside.
std::vector<double> densityOf(const scene::Scene& s, const std::function<double(double, double)>& f,
                              double w) {
    const auto n = s.designVoxels(0);
    const double v = s.cellUm * s.designs[0].voxelCells[0];
    std::vector<double> rho;
    for (int j = 0; j < n[1]; ++j)
        for (int i = 0; i < n[0]; ++i) {
            const double x = -2.0 + (i + 0.5) * v, y = -2.0 + (j + 0.5) * v;
            rho.push_back(0.5 + 0.5 * std::tanh(f(x, y) / w));
        }
    return rho;
}

double polygonArea(const std::vector<std::array<double, 2>>& p) {
    double a = 0;
    for (std::size_t i = 0; i < p.size(); ++i)
        a += p[i][0] * p[(i + 1) % p.size()][1] - p[(i + 1) % p.size()][0] * p[i][1];
    return 0.5 * a;
}

const std::string kArScene = YEE_SOURCE_DIR "/resources/scenes/ar_coating_opt.json";

run::RunOptions options(const scene::Scene& s) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.tiles = {1, 1, 1};
    o.devices = 1;
    o.threadsPerDevice = 1;
    return o;
}

double objectiveOf(const scene::Scene& s) {
    run::RunOptions o = options(s);
    o.gradient = false;
    const run::RunResult r = run::run(s, o);
    if (!r.objective)
        qFatal("no objective");
    return *r.objective;
}

} // namespace

class tst_design_export : public QObject {
    Q_OBJECT
private slots:
    void diskArea();
    void ringAndIsland();
    void staircaseIsExact();
    void boundaryContours();
    void refusesThickDesign();
    void gdsRoundTrip();
    void resimulatedGeometryMatchesBinarisedDesign();
    void exportWritesEveryOutput();
    void oneFailingOutputKeepsTheOthers();
};

void tst_design_export::diskArea() {
    const scene::Scene s = planarScene();
    const double R = 1.2;
    const auto rho = densityOf(
        s, [&](double x, double y) { return R - std::hypot(x, y); }, 0.05);
    const auto t = scene::traceDesign(s, 0, rho);
    QCOMPARE(t.axis, 2);
    QCOMPARE(t.loops.size(), std::size_t(1));
    QCOMPARE(t.loops[0].depth, 0);
    QVERIFY(polygonArea(t.loops[0].vertices) > 0); // counter-clockwise
    const double rel = t.solidAreaUm2() / (kPi * R * R) - 1;
    qInfo("disk R = %.2f um on 0.05 um voxels: traced area / pi R^2 - 1 = %.2e", R, rel);
    QVERIFY(std::abs(rel) < 2e-3);
    for (const auto& v : t.loops[0].vertices)
        QVERIFY(std::abs(std::hypot(v[0], v[1]) - R) < 0.01);
}

void tst_design_export::ringAndIsland() {
    const scene::Scene s = planarScene();
    // Solid for r < 0.4 (island), void for 0.4 < r < 0.9 (hole), solid for 0.9 < r < 1.6 (ring).
    auto f = [](double x, double y) {
        const double r = std::hypot(x, y);
        return std::max(std::min(r - 0.9, 1.6 - r), 0.4 - r);
    };
    const auto rho = densityOf(s, f, 0.05);
    const auto t = scene::traceDesign(s, 0, rho);
    QCOMPARE(t.loops.size(), std::size_t(3));
    QCOMPARE(t.loops[0].depth, 0);
    QCOMPARE(t.loops[1].depth, 1);
    QCOMPARE(t.loops[2].depth, 2);
    QCOMPARE(t.loops[1].parent, 0);
    QCOMPARE(t.loops[2].parent, 1);
    QVERIFY(polygonArea(t.loops[1].vertices) < 0); // holes clockwise
    const double exact = kPi * (1.6 * 1.6 - 0.9 * 0.9 + 0.4 * 0.4);
    qInfo("ring + island: traced solid area / exact - 1 = %.2e", t.solidAreaUm2() / exact - 1);
    QVERIFY(std::abs(t.solidAreaUm2() / exact - 1) < 3e-3);
    const auto objs = scene::tracedObjects(s, t);
    QCOMPARE(objs.size(), std::size_t(4));
    QCOMPARE(objs[0].material, std::string("air"));
    QCOMPARE(objs[1].material, std::string("si"));
    QCOMPARE(objs[2].material, std::string("air"));
    QCOMPARE(objs[3].material, std::string("si"));
    // The traced scene validates and round-trips through JSON.
    const scene::Scene g = scene::withTracedDesigns(s, {rho});
    QVERIFY(g.designs.empty());
    const scene::Scene back = scene::parseScene(scene::sceneToJson(g));
    QCOMPARE(back.objects.size(), g.objects.size());
    QCOMPARE(scene::sceneHash(back), scene::sceneHash(g));
}

void tst_design_export::staircaseIsExact() {
    for (const int vc : {1, 3}) {
        const scene::Scene s = planarScene(vc);
        // A checker of 0/1 blocks and a few single voxels: the outline follows voxel faces exactly.
        const auto n = s.designVoxels(0);
        std::vector<double> rho(s.designLatentSize(0));
        std::size_t on = 0;
        for (int j = 0; j < n[1]; ++j)
            for (int i = 0; i < n[0]; ++i) {
                const bool v = ((i / 4 + j / 5) % 2 == 0) || (i * 7 + j * 3) % 11 == 0;
                rho[std::size_t(i + n[0] * j)] = v ? 0.93 : 0.02;
                on += v;
            }
        const auto t = scene::traceDesign(s, 0, rho, 0.5, scene::TraceMode::Staircase);
        // Voxels of the last row/column may be partial (80 cells / 3 = 26 2/3): count cell areas.
        double want = 0;
        const double c = s.cellUm;
        for (int j = 0; j < n[1]; ++j)
            for (int i = 0; i < n[0]; ++i)
                if (rho[std::size_t(i + n[0] * j)] >= 0.5) {
                    const int wi = std::min(vc, 80 - i * vc), wj = std::min(vc, 80 - j * vc);
                    want += wi * c * wj * c;
                }
        qInfo("voxel_cells %d: %zu solid voxels, %zu loops, area error %.2e um^2", vc, on, t.loops.size(),
              t.solidAreaUm2() - want);
        QVERIFY(std::abs(t.solidAreaUm2() - want) < 1e-9);
        for (const auto& l : t.loops)
            for (const auto& v : l.vertices)
                for (const double x : v) {
                    const double k = (x + 2.0) / c; // on a cell face
                    QVERIFY2(std::abs(k - std::round(k)) < 1e-9, qPrintable(QString::number(x, 'g', 17)));
                }
    }
}

void tst_design_export::boundaryContours() {
    const scene::Scene s = planarScene();
    // A bar through the whole region (touching two opposite sides): one loop whose ends lie on the
    // region's faces, area = length x width.
    const auto rho = densityOf(
        s, [](double, double y) { return 0.3 - std::abs(y); }, 0.02);
    const auto t = scene::traceDesign(s, 0, rho);
    QCOMPARE(t.loops.size(), std::size_t(1));
    double xmin = 1e9, xmax = -1e9;
    for (const auto& v : t.loops[0].vertices) {
        xmin = std::min(xmin, v[0]);
        xmax = std::max(xmax, v[0]);
    }
    QCOMPARE(xmin, -2.0);
    QCOMPARE(xmax, 2.0);
    QVERIFY(std::abs(t.solidAreaUm2() - 4.0 * 0.6) < 1e-3);
    // All solid: the region's rectangle; all void: nothing.
    const auto all = scene::traceDesign(s, 0, std::vector<double>(rho.size(), 1.0));
    QCOMPARE(all.loops.size(), std::size_t(1));
    QVERIFY(std::abs(all.solidAreaUm2() - 16.0) < 1e-12);
    QVERIFY(scene::traceDesign(s, 0, std::vector<double>(rho.size(), 0.0)).loops.empty());
}

void tst_design_export::refusesThickDesign() {
    scene::Scene s = scene::loadScene(kArScene); // 20 x 1 x 1 voxels: fine
    QCOMPARE(scene::traceDesign(s, 0, std::vector<double>(s.designLatentSize(0), 0.7)).axis, 2);
    s.designs[0].voxelCells = {1, 1, 1}; // 20 x 2 x 2: not extrudable
    try {
        scene::traceDesign(s, 0, std::vector<double>(s.designLatentSize(0), 0.7));
        QFAIL("a design two voxels thick on every axis was traced");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).rfind("designs[0]:", 0) == 0, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, scene::traceDesign(s, 0, {0.5}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             scene::traceDesign(s, 0, std::vector<double>(s.designLatentSize(0), 0.7), 1.0));
}

void tst_design_export::gdsRoundTrip() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("ring.gds").toStdString();
    files::GdsPolygon ring;
    ring.layer = 7;
    ring.datatype = 3;
    for (int k = 0; k < 64; ++k) {
        const double a = 2 * kPi * k / 64;
        ring.outline.push_back({1.5 * std::cos(a), 1.5 * std::sin(a)});
    }
    std::vector<std::array<double, 2>> hole;
    for (int k = 0; k < 32; ++k) {
        const double a = 2 * kPi * k / 32;
        hole.push_back({0.3 + 0.6 * std::cos(a), 0.6 * std::sin(a)});
    }
    ring.holes.push_back(hole);
    files::GdsPolygon square;
    square.outline = {{3, 3}, {4, 3}, {4, 4}, {3, 4}};
    files::writeGdsii(path, "LIB", "TOP", {ring, square});
    const files::GdsLibrary lib = files::readGdsii(path);
    QCOMPARE(lib.library, std::string("LIB"));
    QCOMPARE(lib.cell, std::string("TOP"));
    QVERIFY(std::abs(lib.dbUnitUm - 1e-3) < 1e-15);
    QCOMPARE(lib.boundaries.size(), std::size_t(2));
    QCOMPARE(lib.boundaries[0].layer, 7);
    QCOMPARE(lib.boundaries[0].datatype, 3);
    QCOMPARE(lib.boundaries[1].layer, 1);
    // The stored polygon is the keyhole polygon rounded to the 1 nm database grid, vertex by vertex.
    const auto key = files::keyholePolygon(ring);
    QCOMPARE(lib.boundaries[0].points.size(), key.size());
    QCOMPARE(key.size(), ring.outline.size() + hole.size() + 2); // the cut repeats two vertices
    for (std::size_t k = 0; k < key.size(); ++k)
        for (int c = 0; c < 2; ++c)
            QVERIFY(std::abs(lib.boundaries[0].points[k][std::size_t(c)] - key[k][std::size_t(c)]) <=
                    0.5e-3 + 1e-12);
    const double want = std::abs(polygonArea(ring.outline)) - std::abs(polygonArea(hole));
    QVERIFY(std::abs(polygonArea(key) - want) < 1e-12);
    const double got = polygonArea(lib.boundaries[0].points);
    qInfo("keyhole ring: area %.9f um^2 read back, %.9f written (1 nm grid)", got, want);
    QVERIFY(std::abs(got - want) < 0.5e-3 * 13.2); // half a database unit times the perimeter
    QVERIFY(std::abs(polygonArea(lib.boundaries[1].points) - 1.0) < 1e-12);
    // Not a GDSII file / bad values.
    const std::string junk = dir.filePath("junk.gds").toStdString();
    files::writeTextAtomically(junk, "not a layout");
    QVERIFY_THROWS_EXCEPTION(InputError, files::readGdsii(junk));
    files::GdsPolygon bad = square;
    bad.layer = 40000;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, files::writeGdsii(path, "LIB", "TOP", {bad}));
    QCOMPARE(files::readGdsii(path).boundaries.size(), std::size_t(2)); // the old file stayed intact
}

void tst_design_export::resimulatedGeometryMatchesBinarisedDesign() {
    scene::Scene s = scene::loadScene(kArScene);
    s.optimization = {};
    const std::size_t n = s.designLatentSize(0);
    // A graded latent design (3 layers of rising index), binarised at 0.5, and its traced geometry.
    std::vector<double> latent(n);
    for (std::size_t i = 0; i < n; ++i)
        latent[i] = 0.5 + 0.45 * std::sin(0.9 * double(i) + 0.3);
    std::vector<double> binary(n);
    for (std::size_t i = 0; i < n; ++i)
        binary[i] = latent[i] >= 0.5 ? 1.0 : 0.0;
    scene::Scene bin = s;
    bin.designs[0].latent = binary;
    bin.designs[0].beta = 0;
    bin.designs[0].filterRadius = 0;
    const double jBin = objectiveOf(bin);
    scene::Scene stair = scene::withTracedDesigns(s, {binary}, 0.5, scene::TraceMode::Staircase);
    scene::validateScene(stair);
    const double jStair = objectiveOf(stair);
    // Not equal to rounding: inside a design every component takes the voxel of its cell index (Ey at
    // the x face i takes cell i), while the geometry is averaged where its faces really are, so the two
    // discretisations place each interface up to half a cell apart. Measured 2.0 % on this coarse scene
    // (5 cells per wavelength in the core).
    qInfo("binarised design %.12e, staircase geometry %.12e (rel %.2e)", jBin, jStair, jStair / jBin - 1);
    QVERIFY(std::abs(jStair / jBin - 1) < 0.05);
    // A projected design (beta 8) traced smoothly against its binarised version: sub-voxel boundaries
    // move the interfaces by less than half a voxel, so the objective agrees to a few per cent.
    scene::Scene proj = s;
    proj.designs[0].beta = 8;
    const auto rho = scene::DesignMap(proj, 0).forward(latent);
    std::vector<double> rhoBin(n);
    for (std::size_t i = 0; i < n; ++i)
        rhoBin[i] = rho[i] >= 0.5 ? 1.0 : 0.0;
    bin.designs[0].latent = rhoBin;
    const double jBin2 = objectiveOf(bin);
    const double jSmooth = objectiveOf(scene::withTracedDesigns(proj, {rho}, 0.5, scene::TraceMode::Smooth));
    qInfo("beta 8: binarised %.6e, smooth geometry %.6e (rel %.2e)", jBin2, jSmooth, jSmooth / jBin2 - 1);
    QVERIFY(std::abs(jSmooth / jBin2 - 1) < 0.1);
}

void tst_design_export::exportWritesEveryOutput() {
    QTemporaryDir dir;
    const scene::Scene s = planarScene();
    auto f = [](double x, double y) {
        const double r = std::hypot(x, y);
        return std::min(r - 0.5, 1.4 - r);
    };
    // Latent values whose projection (beta 0: identity) is the ring density.
    const auto rho = densityOf(s, f, 0.05);
    opt::DesignExportOptions o;
    o.prefix = dir.filePath("ring").toStdString();
    o.gdsLayer = 5;
    const auto r = opt::exportDesign(s, {rho}, {0.0}, o);
    QVERIFY2(r.failed.empty(), r.failed.empty() ? "" : r.failed.front().c_str());
    QCOMPARE(r.written.size(), std::size_t(4));
    for (const char* ext : {".design.h5", ".dev.density.vtkhdf", ".geometry.json", ".gds"})
        QVERIFY2(QFile::exists(QString::fromStdString(o.prefix) + ext), ext);
    const auto lib = files::readGdsii(o.prefix + ".gds");
    QCOMPARE(lib.boundaries.size(), std::size_t(1)); // the ring, its hole joined by a cut
    QCOMPARE(lib.boundaries[0].layer, 5);
    QCOMPARE(lib.cell, std::string("trace_test"));
    const double exact = kPi * (1.4 * 1.4 - 0.5 * 0.5);
    QVERIFY(std::abs(polygonArea(lib.boundaries[0].points) / exact - 1) < 3e-3);
    QCOMPARE(r.solidAreaUm2.size(), std::size_t(1));
    const scene::Scene g = scene::loadScene(o.prefix + ".geometry.json");
    QCOMPARE(g.objects.size(), std::size_t(3)); // background box, ring, hole
    QVERIFY(g.designs.empty());
}

void tst_design_export::oneFailingOutputKeepsTheOthers() {
    QTemporaryDir dir;
    const scene::Scene s = planarScene();
    const auto rho = densityOf(
        s, [](double x, double y) { return 1.0 - std::hypot(x, y); }, 0.05);
    opt::DesignExportOptions o;
    o.prefix = dir.filePath("d").toStdString();
    QVERIFY(QDir().mkpath(QString::fromStdString(o.prefix + ".gds"))); // a directory in the way
    const auto r = opt::exportDesign(s, {rho}, {0.0}, o);
    QCOMPARE(r.failed.size(), std::size_t(1));
    QVERIFY2(r.failed[0].rfind(o.prefix + ".gds: ", 0) == 0, r.failed[0].c_str());
    QCOMPARE(r.written.size(), std::size_t(3));
    QVERIFY(QFile::exists(QString::fromStdString(o.prefix + ".geometry.json")));
    // A design that cannot be extruded: density files written, geometry left out with a note.
    scene::Scene thick = scene::loadScene(kArScene);
    thick.designs[0].voxelCells = {1, 1, 1};
    o.prefix = dir.filePath("thick").toStdString();
    const auto t = opt::exportDesign(thick, {std::vector<double>(thick.designLatentSize(0), 0.5)}, {0.0}, o);
    QVERIFY(t.failed.empty());
    QCOMPARE(t.written.size(), std::size_t(2));
    QCOMPARE(t.notes.size(), std::size_t(1));
    QVERIFY_THROWS_EXCEPTION(InputError, opt::exportDesign(s, {rho}, {0.0, 1.0}, o));
    o.level = 1.5;
    QVERIFY_THROWS_EXCEPTION(InputError, opt::exportDesign(s, {rho}, {0.0}, o));
}

QTEST_MAIN(tst_design_export)
#include "tst_design_export.moc"

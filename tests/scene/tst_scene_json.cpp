// Scene files: round trips of the examples and of a scene using every feature, defaults, derived
// quantities, hashing, atomic saving and the HDF5 sidecar.
#include <QtTest/QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "yee/core/Error.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee::scene;

namespace {

const QString kScenes = QStringLiteral(YEE_SOURCE_DIR "/resources/scenes");

std::string readText(const QString& path) {
    std::ifstream in(path.toStdString());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void writeText(const QString& path, const std::string& text) {
    std::ofstream out(path.toStdString());
    out << text;
}

/// The smallest valid scene.
const char* kMinimal = R"({"format": "yee-scene", "version": 1,
  "grid": {"cell_um": 0.1}, "domain": {"size_um": [3, 3, 3]}})";

/// Message of the InputError `f` throws ("" if none).
template <class F> QString inputError(F&& f) {
    try {
        f();
    } catch (const yee::InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

/// A scene exercising every field the format carries, with non-default values.
Scene everything() {
    Scene s;
    s.name = "everything \"quoted\" \u00e9";
    s.cellUm = 0.05;
    s.courant = 0.95;
    s.domainCenter = {0.1, -0.2, 0.3};
    s.domainSize = {4.0, 3.0, 2.0};
    s.durationFs = 33.3;
    s.boundaries[0] = {BoundaryType::Pml, 6, 2.5, 1.1, 3.0, 0.2};
    s.boundaries[1].type = BoundaryType::Periodic;
    s.boundaries[2] = {BoundaryType::Pml, 5, 3.0, 0.9, 1.0, 0.0};
    s.materials = {
        {"si", 12.11, 1.0, 0.0}, {"ox", 2.085, 1.0, 0.0}, {"lossy", 3.0, 1.5, 1e4}, {"ox2", 3.5, 1.0, 0.0}};
    s.background = "ox";
    Object box;
    box.name = "box";
    box.shape = Shape::Box;
    box.center = {0.1, 0, 0.3};
    box.size = {1, 10, 0.22};
    box.material = "si";
    Object sph;
    sph.shape = Shape::Sphere;
    sph.center = {0.5, 0.25, 0.4};
    sph.radius = 0.3;
    sph.size = {0.6, 0.6, 0.6};
    sph.material = "lossy";
    Object cyl;
    cyl.name = "pillar";
    cyl.shape = Shape::Cylinder;
    cyl.center = {-1, 0.5, 0.3};
    cyl.radius = 0.2;
    cyl.axis = 2;
    cyl.height = 0.5;
    cyl.size = {0.4, 0.4, 0.5};
    cyl.material = "si";
    Object poly;
    poly.name = "wedge";
    poly.shape = Shape::Polygon;
    poly.axis = 0;
    poly.height = 0.7;
    poly.vertices = {{-0.5, 0.0}, {0.5, 0.1}, {0.1, 0.6}};
    poly.center = {1.2, 0.0, 0.3};
    const auto [plo, phi] = objectBounds(poly);
    for (int a = 0; a < 3; ++a)
        poly.size[a] = phi[a] - plo[a];
    poly.material = "ox";
    s.objects = {box, sph, cyl, poly};

    Source dip;
    dip.name = "dip";
    dip.type = SourceType::PointDipole;
    dip.center = {0.2, 0.1, 0.3};
    dip.polarization = {0.3, -0.4, 0.5};
    dip.profile = {ProfileType::GaussianPulse, 1.31, 0.21, 12.5, 20, 2.0, 0.25};
    Source gp;
    gp.name = "beam";
    gp.type = SourceType::GaussianPlane;
    gp.center = {-1.2, 0.0, 0.3};
    gp.size = {0, 1.0, 0.8};
    gp.normal = 0;
    gp.direction = -1;
    gp.polarization = {0, 0, 1};
    gp.waist = 0.35;
    gp.profile = {ProfileType::Cw, 1.55, 0.3, -1, 7.5, 1.0, 0.0};
    Source up;
    up.type = SourceType::UniformPlane;
    up.center = {0.1, -0.2, 0.9};
    up.size = {2.0, 3.0, 0};
    up.normal = 2;
    up.direction = 1;
    up.polarization = {0, 1, 0};
    up.profile.wavelength = 1.0;
    s.sources = {dip, gp, up};

    Detector snap;
    snap.name = "snap";
    snap.type = DetectorType::Snapshot;
    snap.center = {0.1, -0.2, 0.3};
    snap.size = {4.0, 3.0, 0};
    snap.components = {"Ex", "Hz"};
    snap.every = 7;
    snap.downsample = 3;
    Detector flux;
    flux.name = "flux";
    flux.type = DetectorType::Flux;
    flux.center = {1.4, -0.2, 0.3};
    flux.size = {0, 3.0, 0.6};
    flux.normal = 0;
    flux.direction = 1;
    flux.wavelengths = {1.5, 1.55};
    flux.every = 2;
    Detector energy;
    energy.name = "energy";
    energy.type = DetectorType::Energy;
    energy.center = {0, 0, 0.3};
    energy.size = {1, 1, 0.5};
    energy.every = 5;
    Detector ph;
    ph.name = "ph";
    ph.type = DetectorType::Phasor;
    ph.center = {0, 0, 0.3};
    ph.size = {1, 1, 0};
    ph.components = {"Ey"};
    ph.wavelengths = {1.55};
    Detector probe;
    probe.name = "probe";
    probe.type = DetectorType::Probe;
    probe.center = {0.3, 0.3, 0.3};
    probe.components = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
    probe.every = 3;
    s.detectors = {snap, flux, energy, ph, probe};

    Design d;
    d.name = "dev";
    d.center = {0.0, 0.0, 0.3};
    d.size = {0.4, 0.3, 0.1};
    d.voxelCells = {2, 3, 2};
    d.materials = {"ox", "ox2"};
    d.filterRadius = 0.07;
    d.beta = 5.5;
    d.eta = 0.45;
    const std::size_t n = 4 * 2 * 1;
    for (std::size_t i = 0; i < n; ++i)
        d.latent.push_back(0.1 + 0.8 * double(i) / double(n));
    s.designs = {d};

    s.objective.maximize = false;
    s.objective.terms = {{"flux", Quantity::Flux, Reduce::AtWavelength, 1.55, 2.0},
                         {"energy", Quantity::Energy, Reduce::Final, 0, -0.5},
                         {"ph", Quantity::PhasorPower, Reduce::AtWavelength, 1.55, 1.0}};
    s.gradient.method = GradientMethod::Reversible;
    s.gradient.numCheckpointsReversible = 3;
    s.gradient.recorder = {{"LinearReconstructEveryK", 4, 10, ""}, {"DtypeConversion", 1, 0, "int8"}};
    s.gradient.tier = "disk";
    s.gradient.transferInterval = 3;
    s.gradient.ringBuffers = 6;
    s.gradient.diskPath = "/tmp/yee-rec";
    s.run.tiles = {2, 1, 2};
    s.run.devices = "cuda:0,1,2,3";
    s.run.precision = "float64";
    s.run.overlap = false;
    return s;
}

} // namespace

class tst_SceneJson : public QObject {
    Q_OBJECT

private slots:
    void examplesRoundTrip_data() {
        QTest::addColumn<QString>("file");
        const QStringList files = QDir(kScenes).entryList({"*.json"}, QDir::Files, QDir::Name);
        QVERIFY(files.size() >= 5);
        for (const QString& f : files)
            QTest::newRow(qPrintable(f)) << f;
    }

    void examplesRoundTrip() {
        QFETCH(QString, file);
        const Scene a = loadScene((kScenes + "/" + file).toStdString());
        const std::string ja = sceneToJson(a);
        const Scene b = parseScene(ja, kScenes.toStdString());
        QCOMPARE(sceneToJson(b), ja);
        QCOMPARE(sceneHash(b), sceneHash(a));
        QCOMPARE(b.objects.size(), a.objects.size());
        QCOMPARE(b.steps(), a.steps());
        QVERIFY(a.steps() > 0);
        // Examples stay small enough for a laptop CPU.
        const auto n = a.gridCells();
        const double updates = double(n[0]) * n[1] * n[2] * a.steps();
        QVERIFY2(updates < 2e9, qPrintable(QString("%1 cell updates").arg(updates)));
    }

    void quickBoxIsQuick() {
        const Scene s = loadScene((kScenes + "/quick_box.json").toStdString());
        const auto n = s.gridCells();
        QCOMPARE(n[0], 40);
        QCOMPARE(n[1], 40);
        QCOMPARE(n[2], 40);
        QVERIFY(s.steps() >= 150 && s.steps() <= 250);
    }

    void waveguideBenchmarkScene() {
        const Scene s = loadScene((kScenes + "/straight_waveguide.json").toStdString());
        QCOMPARE(s.findMaterial("core")->eps, 4.0);
        QCOMPARE(s.findMaterial("clad")->eps, 1.44 * 1.44);
        QVERIFY(s.gradient.method == GradientMethod::Reversible);
        QCOMPARE(s.gradient.recorder.size(), std::size_t(2));
        QCOMPARE(s.gradient.recorder[0].module, std::string("LinearReconstructEveryK"));
        QCOMPARE(s.gradient.recorder[0].k, 5);
        QCOMPARE(s.gradient.recorder[1].dtype, std::string("bfloat16"));
        QCOMPARE(s.designs.size(), std::size_t(1));
        QVERIFY(s.objective.defined());
        QVERIFY(s.sources[0].type == SourceType::GaussianPlane);
    }

    void everyFieldRoundTrips() {
        const Scene s = everything();
        validateScene(s);
        const std::string j = sceneToJson(s);
        const Scene b = parseScene(j, ".");
        QCOMPARE(sceneToJson(b), j);
        QCOMPARE(b.name, s.name);
        QCOMPARE(b.cellUm, s.cellUm);
        QCOMPARE(b.courant, s.courant);
        QCOMPARE(b.domainCenter, s.domainCenter);
        QCOMPARE(b.durationFs, s.durationFs);
        for (int a = 0; a < 3; ++a) {
            QVERIFY(b.boundaries[a].type == s.boundaries[a].type);
            if (s.boundaries[a].type != BoundaryType::Pml)
                continue;
            QCOMPARE(b.boundaries[a].cells, s.boundaries[a].cells);
            QCOMPARE(b.boundaries[a].order, s.boundaries[a].order);
            QCOMPARE(b.boundaries[a].sigmaFactor, s.boundaries[a].sigmaFactor);
            QCOMPARE(b.boundaries[a].kappaMax, s.boundaries[a].kappaMax);
            QCOMPARE(b.boundaries[a].alphaMax, s.boundaries[a].alphaMax);
        }
        QCOMPARE(b.materials.size(), s.materials.size());
        for (std::size_t i = 0; i < s.materials.size(); ++i) {
            QCOMPARE(b.materials[i].name, s.materials[i].name);
            QCOMPARE(b.materials[i].sigma, s.materials[i].sigma);
            QCOMPARE(b.materials[i].mu, s.materials[i].mu);
        }
        for (std::size_t i = 0; i < s.objects.size(); ++i) {
            QVERIFY(b.objects[i].shape == s.objects[i].shape);
            QCOMPARE(b.objects[i].center, s.objects[i].center);
            QCOMPARE(b.objects[i].size, s.objects[i].size);
            QCOMPARE(b.objects[i].radius, s.objects[i].radius);
            QCOMPARE(b.objects[i].vertices, s.objects[i].vertices);
            QCOMPARE(b.objects[i].name, s.objects[i].name);
        }
        for (std::size_t i = 0; i < s.sources.size(); ++i) {
            QCOMPARE(b.sources[i].polarization, s.sources[i].polarization);
            QCOMPARE(b.sources[i].normal, s.sources[i].normal);
            QCOMPARE(b.sources[i].direction, s.sources[i].direction);
            QCOMPARE(b.sources[i].profile.delay, s.sources[i].profile.delay);
            QCOMPARE(b.sources[i].profile.ramp, s.sources[i].profile.ramp);
            QCOMPARE(b.sources[i].profile.phase, s.sources[i].profile.phase);
        }
        for (std::size_t i = 0; i < s.detectors.size(); ++i) {
            QCOMPARE(b.detectors[i].components, s.detectors[i].components);
            QCOMPARE(b.detectors[i].wavelengths, s.detectors[i].wavelengths);
            QCOMPARE(b.detectors[i].every, s.detectors[i].every);
            QCOMPARE(b.detectors[i].downsample, s.detectors[i].downsample);
        }
        QCOMPARE(b.designs[0].latent, s.designs[0].latent);
        QCOMPARE(b.designs[0].voxelCells, s.designs[0].voxelCells);
        QCOMPARE(b.designs[0].beta, s.designs[0].beta);
        QCOMPARE(b.objective.maximize, false);
        QCOMPARE(b.objective.terms.size(), std::size_t(3));
        QCOMPARE(b.objective.terms[1].weight, -0.5);
        QCOMPARE(b.gradient.recorder[0].startAfter, 10);
        QCOMPARE(b.gradient.diskPath, s.gradient.diskPath);
        QCOMPARE(b.gradient.ringBuffers, 6);
        QCOMPARE(b.run.tiles, s.run.tiles);
        QCOMPARE(b.run.devices, s.run.devices);
        QCOMPARE(b.run.overlap, false);
    }

    /// flux_box: center_um, size_um (all three extents > 0), optional wavelengths_um and every; usable as
    /// flux (any reduction) and phasor_power terms.
    void fluxBoxParsesAndValidates() {
        Scene s = everything();
        Detector box;
        box.name = "box";
        box.type = DetectorType::FluxBox;
        box.center = {0.1, -0.2, 0.3};
        box.size = {1.0, 0.8, 0.6};
        box.wavelengths = {1.3, 1.55};
        box.every = 3;
        s.detectors.push_back(box);
        ObjectiveTerm last;
        last.detector = "box";
        last.reduce = Reduce::Final;
        ObjectiveTerm power;
        power.detector = "box";
        power.quantity = Quantity::PhasorPower;
        power.reduce = Reduce::AtWavelength;
        power.wavelength = 1.55;
        s.objective.terms = {last, power};
        validateScene(s);
        const std::string j = sceneToJson(s);
        QVERIFY(j.find("\"flux_box\"") != std::string::npos);
        const Scene b = parseScene(j, ".");
        QCOMPARE(sceneToJson(b), j);
        const Detector& got = b.detectors.back();
        QVERIFY(got.type == DetectorType::FluxBox);
        QCOMPARE(got.size, box.size);
        QCOMPARE(got.wavelengths, box.wavelengths);
        QCOMPARE(got.every, 3);
        Scene flat = s;
        flat.detectors.back().size[1] = 0;
        try {
            validateScene(flat);
            QFAIL("a flat flux_box was accepted");
        } catch (const yee::InputError& e) {
            QVERIFY2(QString(e.what()).contains("size_um[1]"), e.what());
        }
    }

    void defaults() {
        const Scene s = parseScene(kMinimal);
        QCOMPARE(s.courant, 0.99);
        QCOMPARE(s.durationFs, 100.0);
        QCOMPARE(s.domainCenter, (Vec3{0, 0, 0}));
        for (const auto& b : s.boundaries) {
            QVERIFY(b.type == BoundaryType::Pml);
            QCOMPARE(b.cells, 10);
        }
        QVERIFY(s.background.empty());
        QVERIFY(!s.objective.defined());
        QVERIFY(s.gradient.method == GradientMethod::Checkpointed);
        QCOMPARE(s.gradient.tier, std::string("device"));
        QCOMPARE(s.run.tiles, (std::array<int, 3>{1, 1, 1}));
        QCOMPARE(s.run.precision, std::string("float32"));
    }

    void derivedQuantities() {
        Scene s = parseScene(kMinimal);
        QCOMPARE(s.gridCells(), (std::array<int, 3>{30, 30, 30}));
        QVERIFY(std::fabs(s.dt() - 0.99 / std::sqrt(3.0)) < 1e-15);
        QVERIFY(std::fabs(s.dtFs() - s.dt() * 0.1 / kC_um_per_fs) < 1e-15);
        QCOMPARE(s.steps(), int(std::ceil(100.0 / s.dtFs())));
        // A duration of exactly N steps gives N steps, not N + 1.
        s.durationFs = 250 * s.dtFs();
        QCOMPARE(s.steps(), 250);
        QCOMPARE(s.pmlCells(0), 10);
        QCOMPARE(s.interiorCells(), (yee::Box{{10, 10, 10}, {20, 20, 20}}));
        s.materials = {{"a", 2.0, 1.0, 0.0}, {"b", 3.0, 1.0, 0.0}};
        QCOMPARE(s.materialIndex("b"), 1);
        QCOMPARE(s.materialIndex("c"), -1);
        QCOMPARE(s.findMaterial("a")->eps, 2.0);
        QVERIFY(s.findMaterial("zz") == nullptr);
        // Design box [-0.27, 0.27] snaps to cell faces -0.3 / 0.3 (cells 12 .. 18 of 0.1 um).
        Design d;
        d.center = {0, 0, 0};
        d.size = {0.54, 0.54, 0.32};
        d.voxelCells = {4, 2, 1};
        s.designs = {d};
        QCOMPARE(s.designCells(0), (yee::Box{{12, 12, 13}, {18, 18, 17}}));
        QCOMPARE(s.designVoxels(0), (std::array<int, 3>{2, 3, 4}));
        QCOMPARE(s.designLatentSize(0), std::size_t(24));
    }

    void polygonCenterComesFromVertices() {
        const std::string base = R"({"format": "yee-scene", "version": 1, "grid": {"cell_um": 0.1},
          "domain": {"size_um": [3, 3, 3]}, "materials": {"m": {"eps": 2}},
          "objects": [{"shape": "polygon", "axis": "y", "height_um": 0.5, "material": "m",
                       "vertices_um": [[0, 0], [1, 0], [0, 0.5]] )";
        const Scene s = parseScene(base + "}]}");
        QCOMPARE(s.objects[0].center, (Vec3{0.5, 0, 0.25}));
        QCOMPARE(s.objects[0].size, (Vec3{1.0, 0.5, 0.5}));
        const Scene t = parseScene(base + R"(, "center_um": [0.5, -0.3, 0.25]}]})");
        QCOMPARE(t.objects[0].center, (Vec3{0.5, -0.3, 0.25}));
        const QString msg = inputError([&] { parseScene(base + R"(, "center_um": [0, 0, 0]}]})"); });
        QVERIFY2(msg.startsWith("objects[0].center_um[0]: 0 contradicts vertices_um"), qPrintable(msg));
    }

    void hashIsStable() {
        const Scene s = everything();
        const std::string h = sceneHash(s);
        QCOMPARE(h.size(), std::size_t(16));
        QVERIFY(h.find_first_not_of("0123456789abcdef") == std::string::npos);
        QCOMPARE(sceneHash(parseScene(sceneToJson(s))), h);
        Scene t = s;
        t.materials[0].eps = 12.1100001;
        QVERIFY(sceneHash(t) != h);
        t = s;
        t.designs[0].latent[3] += 1e-12;
        QVERIFY(sceneHash(t) != h);
        // Where the latent values are stored does not change the hash.
        t = s;
        t.designs[0].params = "elsewhere.h5:/x";
        QCOMPARE(sceneHash(t), h);
    }

    void sidecarRoundTrip() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const Scene s = everything();
        const QString path = dir.filePath("dev scene.json");
        saveScene(s, path.toStdString());
        QVERIFY(QFile::exists(dir.filePath("dev scene.h5")));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 2); // no temporaries left behind
        const Scene b = loadScene(path.toStdString());
        QCOMPARE(b.designs[0].params, std::string("dev scene.h5:/designs/dev"));
        QCOMPARE(b.designs[0].latent, s.designs[0].latent);
        QCOMPARE(sceneHash(b), sceneHash(s));
        // The JSON refers to the sidecar instead of carrying the values...
        QVERIFY(readText(path).find("\"latent\"") == std::string::npos);
        // ...unless asked for self-contained text.
        const std::string inlined = sceneToJson(b, true);
        QVERIFY(inlined.find("\"params\"") == std::string::npos);
        QCOMPARE(parseScene(inlined, "/nonexistent").designs[0].latent, s.designs[0].latent);
        // Saving the loaded scene elsewhere carries the arrays along.
        QDir(dir.path()).mkdir("copy");
        const QString copy = dir.filePath("copy/moved.json");
        saveScene(b, copy.toStdString());
        const Scene c = loadScene(copy.toStdString());
        QCOMPARE(c.designs[0].params, std::string("moved.h5:/designs/dev"));
        QCOMPARE(c.designs[0].latent, s.designs[0].latent);
        // Saving over an existing scene replaces it.
        Scene d = b;
        d.designs[0].latent[0] = 0.75;
        saveScene(d, path.toStdString());
        QCOMPARE(loadScene(path.toStdString()).designs[0].latent[0], 0.75);
    }

    void sidecarErrors() {
        QTemporaryDir dir;
        const QString path = dir.filePath("s.json");
        saveScene(everything(), path.toStdString());
        const std::string text = readText(path);
        // Same number of values, different shape: [nz, ny, nx] = [1, 2, 4] is stored, [1, 4, 2] expected.
        std::string swapped = text;
        const std::string from = "\"voxel_cells\": [2, 3, 2]";
        QVERIFY(swapped.find(from) != std::string::npos);
        swapped.replace(swapped.find(from), from.size(), "\"voxel_cells\": [4, 1, 2]");
        const std::string sizeFrom = "\"size_um\": [0.4, 0.3, 0.1]";
        QVERIFY(swapped.find(sizeFrom) != std::string::npos);
        swapped.replace(swapped.find(sizeFrom), sizeFrom.size(), "\"size_um\": [0.4, 0.2, 0.1]");
        writeText(dir.filePath("swapped.json"), swapped);
        QString msg = inputError([&] { loadScene(dir.filePath("swapped.json").toStdString()); });
        QVERIFY2(msg.startsWith("designs[0].params: dataset \"/designs/dev\" has shape [1, 2, 4]"),
                 qPrintable(msg));
        // Missing dataset and missing file name the field.
        std::string missing = text;
        missing.replace(missing.find("/designs/dev"), 12, "/designs/nope");
        writeText(dir.filePath("missing.json"), missing);
        msg = inputError([&] { loadScene(dir.filePath("missing.json").toStdString()); });
        QVERIFY2(msg.startsWith("designs[0].params: no dataset \"/designs/nope\""), qPrintable(msg));
        QFile::remove(dir.filePath("s.h5"));
        msg = inputError([&] { loadScene(path.toStdString()); });
        QVERIFY2(msg.startsWith("designs[0].params: cannot find sidecar file"), qPrintable(msg));
    }

    void saveFailureLeavesNothing() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("no/such/dir/s.json").toStdString();
        QVERIFY_THROWS_EXCEPTION(yee::RunError, saveScene(everything(), path));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot).size(), 0);
    }

    void parseWithoutValidation() {
        // An unfinished scene can be opened and saved again (an editor must not lose it)...
        const std::string wip =
            R"({"format": "yee-scene", "version": 1, "grid": {"cell_um": 0.1, "courant": 2},
          "domain": {"size_um": [3, 3, 3]}, "objects": [{"shape": "sphere", "center_um": [9, 9, 9],
          "radius_um": 0.1, "material": "later"}]})";
        const Scene s = parseScene(wip, ".", false);
        QCOMPARE(s.courant, 2.0);
        QCOMPARE(sceneToJson(parseScene(sceneToJson(s), ".", false)), sceneToJson(s));
        // ...but is refused by validation.
        QCOMPARE(inputError([&] { parseScene(wip); }),
                 QString("grid.courant: 2 is unstable (must be in (0, 1])"));
    }

    void malformedJsonHasLineAndColumn() {
        const QString msg =
            inputError([] { parseScene("{\n  \"format\": \"yee-scene\",\n  \"version\" 1\n}"); });
        QVERIFY2(msg.contains("line 3, column"), qPrintable(msg));
        QVERIFY(!msg.contains('\n'));
    }

    void duplicateKeysAreRefused() {
        const QString msg = inputError([] {
            parseScene(R"({"format": "yee-scene", "version": 1, "grid": {"cell_um": 0.1, "cell_um": 0.2},
                          "domain": {"size_um": [3, 3, 3]}})");
        });
        QCOMPARE(msg, QString("grid.cell_um: duplicate key"));
    }

    void unknownKeySuggestsSpelling() {
        const QString msg = inputError([] {
            parseScene(R"({"format": "yee-scene", "version": 1, "grid": {"cell_um": 0.1, "courrant": 0.5},
                          "domain": {"size_um": [3, 3, 3]}})");
        });
        QCOMPARE(msg, QString("grid.courrant: unknown key (did you mean \"courant\"?)"));
    }
};

QTEST_APPLESS_MAIN(tst_SceneJson)
#include "tst_scene_json.moc"

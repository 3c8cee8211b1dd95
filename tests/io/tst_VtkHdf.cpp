/// VTKHDF snapshots: the attributes ParaView needs, exactly typed, and a lossless round trip.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <hdf5.h>

#include "yee/core/Error.hpp"
#include "yee/files/AtomicFile.hpp"
#include "yee/io/ResultsWriter.hpp"
#include "yee/io/VtkHdfWriter.hpp"

using namespace yee;

namespace {

solver::Snapshot snapshot(const std::string& detector, const std::string& component, int step,
                          std::array<int, 3> dims) {
    solver::Snapshot s;
    s.detector = detector;
    s.component = component;
    s.step = step;
    s.timeFs = 0.125 * step;
    s.dims = dims;
    s.originUm = {-1.0, 0.25, 3.5};
    s.spacingUm = {0.05, 0.05, 0.1};
    const std::size_t n = std::size_t(dims[0]) * std::size_t(dims[1]) * std::size_t(dims[2]);
    for (std::size_t i = 0; i < n; ++i)
        s.data.push_back(float(i) * 0.5f - float(step) + (component == "Ey" ? 1e3f : 0.f));
    return s;
}

/// Raw HDF5 view of an attribute of /VTKHDF: class, element size, element count, string padding/cset.
struct RawAttr {
    H5T_class_t cls = H5T_NO_CLASS;
    std::size_t size = 0;
    hssize_t count = -1;
    bool variableString = false;
    H5T_str_t pad = H5T_STR_ERROR;
    H5T_cset_t cset = H5T_CSET_ERROR;
    int rank = -1;
};

RawAttr rawAttr(const std::string& file, const char* object, const char* name) {
    RawAttr r;
    hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t a = H5Aopen_by_name(f, object, name, H5P_DEFAULT, H5P_DEFAULT);
    hid_t t = H5Aget_type(a);
    hid_t s = H5Aget_space(a);
    r.cls = H5Tget_class(t);
    r.size = H5Tget_size(t);
    r.count = H5Sget_simple_extent_npoints(s);
    r.rank = H5Sget_simple_extent_ndims(s);
    if (r.cls == H5T_STRING) {
        r.variableString = H5Tis_variable_str(t) > 0;
        r.pad = H5Tget_strpad(t);
        r.cset = H5Tget_cset(t);
    }
    H5Sclose(s);
    H5Tclose(t);
    H5Aclose(a);
    H5Fclose(f);
    return r;
}

std::vector<hsize_t> datasetDims(const std::string& file, const char* dataset, H5T_class_t* cls,
                                 std::size_t* size) {
    hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, dataset, H5P_DEFAULT);
    hid_t s = H5Dget_space(d);
    hid_t t = H5Dget_type(d);
    std::vector<hsize_t> dims(std::size_t(std::max(H5Sget_simple_extent_ndims(s), 0)));
    H5Sget_simple_extent_dims(s, dims.data(), nullptr);
    *cls = H5Tget_class(t);
    *size = H5Tget_size(t);
    H5Tclose(t);
    H5Sclose(s);
    H5Dclose(d);
    H5Fclose(f);
    return dims;
}

} // namespace

class tst_VtkHdf : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;
    std::string path(const QString& name) const { return dir_.filePath(name).toStdString(); }

private slots:
    void requiredAttributesHaveTheSpecTypes() {
        const std::string file = path("spec.vtkhdf");
        io::writeVtkHdf(file, snapshot("vol", "Ez", 40, {5, 4, 3}));

        RawAttr type = rawAttr(file, "/VTKHDF", "Type");
        QCOMPARE(type.cls, H5T_STRING);
        QVERIFY(!type.variableString); // VTK reads Type as a fixed-length string
        QCOMPARE(type.size, std::size_t(9));
        QCOMPARE(type.cset, H5T_CSET_ASCII);
        QCOMPARE(type.rank, 0);

        RawAttr version = rawAttr(file, "/VTKHDF", "Version");
        QCOMPARE(version.cls, H5T_INTEGER);
        QCOMPARE(version.count, hssize_t(2));
        RawAttr extent = rawAttr(file, "/VTKHDF", "WholeExtent");
        QCOMPARE(extent.cls, H5T_INTEGER);
        QCOMPARE(extent.count, hssize_t(6));
        for (const char* name : {"Origin", "Spacing"}) {
            RawAttr a = rawAttr(file, "/VTKHDF", name);
            QCOMPARE(a.cls, H5T_FLOAT);
            QCOMPARE(a.size, std::size_t(8));
            QCOMPARE(a.count, hssize_t(3));
        }
        RawAttr direction = rawAttr(file, "/VTKHDF", "Direction");
        QCOMPARE(direction.cls, H5T_FLOAT);
        QCOMPARE(direction.count, hssize_t(9));

        H5T_class_t cls{};
        std::size_t size = 0;
        auto dims = datasetDims(file, "/VTKHDF/PointData/Ez", &cls, &size);
        QCOMPARE(dims, (std::vector<hsize_t>{3, 4, 5})); // (z, y, x)
        QCOMPARE(cls, H5T_FLOAT);
        QCOMPARE(size, std::size_t(4));
    }

    void roundTripGivesTheSameImage() {
        const std::string file = path("round.vtkhdf");
        const solver::Snapshot ex = snapshot("plane", "Ex", 12, {7, 1, 4});
        const solver::Snapshot ey = snapshot("plane", "Ey", 12, {7, 1, 4});
        io::writeVtkHdf(file, std::vector<const solver::Snapshot*>{&ex, &ey});

        const io::VtkImage img = io::readVtkHdf(file);
        QCOMPARE(img.type, std::string("ImageData"));
        QCOMPARE(img.version, (std::array<std::int64_t, 2>{1, 0}));
        QCOMPARE(img.dims, ex.dims);
        QCOMPARE(img.origin, ex.originUm);
        QCOMPARE(img.spacing, ex.spacingUm);
        QCOMPARE(img.direction, (std::array<double, 9>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
        QCOMPARE(img.pointData.size(), std::size_t(2));
        QCOMPARE(img.pointData.at("Ex"), ex.data);
        QCOMPARE(img.pointData.at("Ey"), ey.data);
        QVERIFY(img.cellData.empty());
        QCOMPARE(img.detector, std::string("plane"));
        QCOMPARE(img.step, 12);
        QCOMPARE(img.timeFs, ex.timeFs);
    }

    void badSnapshotsAreRefused_data() {
        QTest::addColumn<int>("which");
        QTest::newRow("size mismatch") << 0;
        QTest::newRow("grid mismatch") << 1;
        QTest::newRow("step mismatch") << 2;
        QTest::newRow("zero dims") << 3;
        QTest::newRow("empty list") << 4;
    }

    void badSnapshotsAreRefused() {
        QFETCH(int, which);
        solver::Snapshot a = snapshot("d", "Ex", 1, {2, 2, 2});
        solver::Snapshot b = snapshot("d", "Ey", 1, {2, 2, 2});
        std::vector<const solver::Snapshot*> list{&a, &b};
        if (which == 0)
            a.data.pop_back();
        if (which == 1)
            b.originUm[1] += 1;
        if (which == 2)
            b.step = 2;
        if (which == 3) {
            a.dims = {0, 2, 2};
            a.data.clear();
        }
        if (which == 4)
            list.clear();
        const std::string file = path("bad.vtkhdf");
        QVERIFY_THROWS_EXCEPTION(yee::RunError, io::writeVtkHdf(file, list));
        QVERIFY(!QFile::exists(QString::fromStdString(file)));
    }

    void seriesPerDetector() {
        const QString sub = "run.fields";
        const std::string dir = path(sub);
        std::vector<solver::Snapshot> snaps;
        for (int step : {0, 10, 20}) {
            snaps.push_back(snapshot("xy plane", "Ez", step, {3, 3, 1}));
            snaps.push_back(snapshot("vol", "Ex", step, {2, 2, 2}));
            snaps.push_back(snapshot("vol", "Ey", step, {2, 2, 2}));
        }
        auto series = io::writeSnapshotSeries(dir, snaps);
        QCOMPARE(series.size(), std::size_t(2));
        QCOMPARE(series.at("xy plane"), dir + "/xy_plane.vtkhdf.series");
        QCOMPARE(series.at("vol"), dir + "/vol.vtkhdf.series");

        auto entries = io::readSeriesIndex(series.at("vol"));
        QCOMPARE(entries.size(), std::size_t(3));
        QCOMPARE(entries[1].name, std::string("vol_000010.vtkhdf"));
        QCOMPARE(entries[1].time, 1.25);
        const io::VtkImage img = io::readVtkHdf(dir + "/" + entries[2].name);
        QCOMPARE(img.pointData.size(), std::size_t(2));
        QCOMPARE(img.step, 20);
        QCOMPARE(img.pointData.at("Ey"), snaps[8].data);

        // The index is the JSON ParaView expects.
        QFile f(QString::fromStdString(series.at("xy plane")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray json = f.readAll();
        QVERIFY(json.contains("\"file-series-version\": \"1.0\""));
        QVERIFY(json.contains("\"name\": \"xy_plane_000020.vtkhdf\""));

        // A shorter second run replaces the series and drops the stale step files, nothing else.
        files::writeTextAtomically(dir + "/notes.txt", "mine");
        snaps.resize(3);
        io::writeSnapshotSeries(dir, snaps);
        QStringList files = QDir(QString::fromStdString(dir)).entryList(QDir::Files, QDir::Name);
        QCOMPARE(files, (QStringList{"notes.txt", "vol.vtkhdf.series", "vol_000000.vtkhdf",
                                     "xy_plane.vtkhdf.series", "xy_plane_000000.vtkhdf"}));
        QCOMPARE(io::readSeriesIndex(series.at("vol")).size(), std::size_t(1));
    }

    void noSnapshotsWritesNothing() {
        const std::string dir = path("none.fields");
        QVERIFY(io::writeSnapshotSeries(dir, {}).empty());
        QVERIFY(!QDir(QString::fromStdString(dir)).exists());
    }

    void readingForeignFilesIsAnInputError() {
        const std::string text = path("text.vtkhdf");
        files::writeTextAtomically(text, "not hdf5");
        QVERIFY_THROWS_EXCEPTION(yee::InputError, io::readVtkHdf(text));
        QVERIFY_THROWS_EXCEPTION(yee::InputError, io::readVtkHdf(path("missing.vtkhdf")));
        QVERIFY_THROWS_EXCEPTION(yee::InputError, io::readSeriesIndex(text));

        // An HDF5 file of the wrong kind, both ways round.
        const std::string results = path("r.h5");
        io::writeResults(results, scene::Scene{}, "{}", run::RunResult{});
        QVERIFY_THROWS_EXCEPTION(yee::InputError, io::readVtkHdf(results));
        const std::string image = path("i.vtkhdf");
        io::writeVtkHdf(image, snapshot("p", "Ex", 0, {1, 1, 1}));
        try {
            io::readResults(image);
            QFAIL("no exception");
        } catch (const yee::InputError& e) {
            QVERIFY2(QString(e.what()).contains("not a yee results file"), e.what());
        }
    }
};

QTEST_APPLESS_MAIN(tst_VtkHdf)
#include "tst_VtkHdf.moc"

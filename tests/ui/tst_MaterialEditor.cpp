#include <QFile>
#include <QLineSeries>
#include <QScatterSeries>
#include <QTemporaryDir>
#include <QTextStream>
#include <QtTest>

#include <cmath>
#include <complex>

#include "UiTestScenes.hpp"
#include "ui/MaterialEditor.hpp"
#include "ui/SceneDocument.hpp"
#include "yee/scene/MaterialLibrary.hpp"
#include "yee/scene/MaterialModel.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;
using namespace yee::ui;

namespace {
constexpr double kHbarEvFs = 0.6582119569; // eV fs
constexpr double kPi = 3.14159265358979323846;

/// The plotted value of `s` nearest wavelength `um`.
QPointF nearest(const QLineSeries* s, double um) {
    QPointF best = s->at(0);
    for (const QPointF& p : s->points())
        if (std::abs(p.x() - um) < std::abs(best.x() - um))
            best = p;
    return best;
}

/// A scene whose one source spans 0.2-1.8 um; material 2 ("metal", used by no design region: design
/// materials must be constant) is the one edited.
scene::Scene bandScene() {
    scene::Scene s = test::smallScene();
    s.sources[0].profile.wavelength = 1.0;
    s.sources[0].profile.bandwidth = 0.8;
    s.materials.push_back({"metal", 1.0, 1.0, 0.0});
    return s;
}
} // namespace

/// The material editor: each form (constant, n/k, library, poles) round-trips through the scene file,
/// the eps(lambda) plot matches the analytic permittivity, a library material's valid range is marked,
/// bad poles are refused with the validator's message.
class tst_MaterialEditor : public QObject {
    Q_OBJECT
private slots:
    void drudePlotMatchesTheAnalyticPermittivity() {
        SceneDocument doc;
        doc.resetScene(bandScene(), {});
        MaterialEditor ed(&doc);
        doc.setCurrentItem({ItemKind::Material, 2});
        QCOMPARE(ed.materialIndex(), 2);
        QCOMPARE(ed.band().first, 0.2);
        QCOMPARE(ed.band().second, 1.8);
        scene::Pole p;
        p.type = scene::PoleType::Drude;
        p.omegaEv = 9.0;
        p.gammaEv = 0.07;
        QCOMPARE(ed.setPoles(1.0, {p}), QString());
        QCOMPARE(ed.form(), MaterialEditor::Form::Poles);
        // eps = 1 - wp^2 / (w^2 + i g w) at 1 um, exp(-i w t): Im eps > 0 is loss.
        const QPointF re = nearest(ed.realSeries(), 1.0), im = nearest(ed.imagSeries(), 1.0);
        QCOMPARE(re.x(), 1.0);
        const double w = 2 * kPi * 0.299792458 / 1.0; // rad/fs
        const double wp = 9.0 / kHbarEvFs, g = 0.07 / kHbarEvFs;
        const std::complex<double> eps = 1.0 - wp * wp / (w * w + std::complex<double>(0, 1) * g * w);
        QVERIFY2(std::abs(re.y() - eps.real()) < 1e-9 * std::abs(eps.real()),
                 qPrintable(QString::number(re.y())));
        QVERIFY2(std::abs(im.y() - eps.imag()) < 1e-9 * std::abs(eps.imag()),
                 qPrintable(QString::number(im.y())));
        QVERIFY(eps.real() < -50 && eps.imag() > 0);
        QCOMPARE(ed.realSeries()->count(), 241);
        QCOMPARE(ed.validLoSeries()->count(), 0); // no library range

        const scene::Scene back = scene::parseScene(scene::sceneToJson(doc.scene()));
        QCOMPARE(back.materials[2].poles.size(), std::size_t(1));
        QCOMPARE(int(back.materials[2].poles[0].type), int(scene::PoleType::Drude));
        QCOMPARE(back.materials[2].poles[0].omegaEv, 9.0);
        QCOMPARE(back.materials[2].poles[0].gammaEv, 0.07);
        doc.undoStack()->undo();
        QCOMPARE(ed.form(), MaterialEditor::Form::Constant);
        QCOMPARE(nearest(ed.realSeries(), 1.0).y(), 1.0); // eps 1 again
    }

    void nkAndConstantForms() {
        SceneDocument doc;
        doc.resetScene(bandScene(), {});
        MaterialEditor ed(&doc);
        ed.setMaterialIndex(2);
        QCOMPARE(ed.setNk(2.0, 0.1, 1.0), QString());
        QCOMPARE(ed.form(), MaterialEditor::Form::Nk);
        // At the stated wavelength eps = (n + i k)^2 = 3.99 + 0.4 i.
        const QPointF re = nearest(ed.realSeries(), 1.0), im = nearest(ed.imagSeries(), 1.0);
        QVERIFY(std::abs(re.y() - 3.99) < 1e-9);
        QVERIFY(std::abs(im.y() - 0.4) < 1e-9);
        const scene::Scene back = scene::parseScene(scene::sceneToJson(doc.scene()));
        QCOMPARE(back.materials[2].n, 2.0);
        QCOMPARE(back.materials[2].k, 0.1);
        QCOMPARE(back.materials[2].nkWavelengthUm, 1.0);
        QCOMPARE(ed.setConstant(2.25, 1.0, 0.0), QString());
        QCOMPARE(ed.form(), MaterialEditor::Form::Constant);
        QCOMPARE(nearest(ed.imagSeries(), 0.5).y(), 0.0);
        QCOMPARE(nearest(ed.realSeries(), 0.5).y(), 2.25);
    }

    void libraryMaterialShowsItsValidRange() {
        SceneDocument doc;
        doc.resetScene(bandScene(), {});
        MaterialEditor ed(&doc);
        ed.setMaterialIndex(2);
        QCOMPARE(ed.setLibrary("Si"), QString());
        QCOMPARE(ed.form(), MaterialEditor::Form::Library);
        const scene::LibraryMaterial* si = scene::findLibraryMaterial("Si");
        QVERIFY(si);
        // Si is valid from 1.36 um: the marker sits there, and the band (from 0.2 um) is flagged.
        QCOMPARE(ed.validLoSeries()->count(), 2);
        QCOMPARE(ed.validLoSeries()->at(0).x(), si->validLoUm);
        QCOMPARE(ed.validHiSeries()->count(), 0); // 11 um is outside the band
        QVERIFY(ed.infoText().contains("1.36"));
        QVERIFY(ed.infoText().contains("Warning"));
        QVERIFY(ed.infoText().contains("Salzberg"));
        const scene::Scene back = scene::parseScene(scene::sceneToJson(doc.scene()));
        QCOMPARE(back.materials[2].library, std::string("Si"));
        QVERIFY(ed.setLibrary("Unobtainium").contains("Unobtainium"));
        QCOMPARE(doc.scene().materials[2].library, std::string("Si"));
    }

    /// Tabulated n, k data (from a known Lorentz material) loaded from CSV is drawn over the plot as
    /// eps = (n + i k)^2 at the data's wavelengths inside the band; a malformed file is refused naming it
    /// and the line; "Fit poles" recovers the material (one undo step), its curve through the points.
    void fitDataOverlayAndFit() {
        SceneDocument doc;
        doc.resetScene(bandScene(), {});
        MaterialEditor ed(&doc);
        ed.setMaterialIndex(2);
        scene::Material truth;
        truth.name = "truth";
        truth.eps = 2.0;
        scene::Pole p;
        p.type = scene::PoleType::Lorentz;
        p.deltaEps = 1.5;
        p.omegaEv = 4.0;
        p.gammaEv = 0.1;
        truth.poles = {p};
        const scene::MaterialModel model = scene::materialModel(truth);
        QTemporaryDir dir;
        const QString csv = dir.filePath("nk.csv");
        {
            QFile f(csv);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QTextStream o(&f);
            o << "wavelength_um,n,k\n";
            for (int i = 0; i <= 28; ++i) {
                const double um = 0.3 + 0.05 * i;
                const std::complex<double> nk =
                    std::sqrt(scene::permittivity(model, scene::omegaOfWavelength(um)));
                o << QString::number(um, 'g', 15) << ',' << QString::number(nk.real(), 'g', 15) << ','
                  << QString::number(nk.imag(), 'g', 15) << '\n';
            }
            o << "2.0,1.5,0\n2.2,1.5,0\n"; // outside the band 0.2-1.8 um
        }
        QCOMPARE(ed.loadFitData(csv), QString());
        QCOMPARE(ed.fitData().size(), std::size_t(31));
        QCOMPARE(ed.dataRealSeries()->count(), 29);
        QCOMPARE(ed.dataImagSeries()->count(), 29);
        const std::complex<double> at1 = scene::permittivity(model, scene::omegaOfWavelength(1.0));
        const QPointF d1 = ed.dataRealSeries()->at(14);
        QVERIFY(std::abs(d1.x() - 1.0) < 1e-12);
        QVERIFY2(std::abs(d1.y() - at1.real()) < 1e-9 * std::abs(at1.real()),
                 qPrintable(QString::number(d1.y())));
        QVERIFY(std::abs(ed.dataImagSeries()->at(14).y() - at1.imag()) < 1e-9);
        QVERIFY2(ed.infoText().contains("29 of 31"), qPrintable(ed.infoText()));
        // A malformed file: refused with the file and line; the loaded data stays.
        const QString bad = dir.filePath("bad.csv");
        {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("1.0,1.5,0\n1.1,abc,0\n1.2,1.5,0\n1.3,1.5,0\n");
        }
        const QString why = ed.loadFitData(bad);
        QVERIFY2(why.contains("bad.csv:2"), qPrintable(why));
        QCOMPARE(ed.fitData().size(), std::size_t(31));
        // Fit one Lorentz pole to the points.
        const int steps = doc.undoStack()->count();
        double maxError = 1;
        QCOMPARE(ed.fitLoadedData(1, &maxError), QString());
        qInfo("fit of 1 Lorentz pole: max relative error %.3g", maxError);
        QVERIFY(maxError < 1e-3);
        QCOMPARE(doc.undoStack()->count(), steps + 1);
        QCOMPARE(ed.form(), MaterialEditor::Form::Poles);
        QCOMPARE(doc.scene().materials[2].poles.size(), std::size_t(1));
        QVERIFY(std::abs(nearest(ed.realSeries(), 1.0).y() - at1.real()) < 2e-3 * std::abs(at1.real()));
        QCOMPARE(ed.dataRealSeries()->count(), 29); // the points stay over the fitted curve
        // Data belongs to its material: another material shows none.
        ed.setMaterialIndex(1);
        QCOMPARE(ed.dataRealSeries()->count(), 0);
    }

    void badPolesAreRefused() {
        SceneDocument doc;
        doc.resetScene(bandScene(), {});
        MaterialEditor ed(&doc);
        ed.setMaterialIndex(2);
        const int steps = doc.undoStack()->count();
        scene::Pole p;
        p.type = scene::PoleType::Lorentz;
        p.deltaEps = 1;
        p.omegaEv = 3;
        p.gammaEv = -0.1; // gain
        const QString e = ed.setPoles(2.0, {p});
        QVERIFY2(e.contains("materials.metal"), qPrintable(e));
        QCOMPARE(doc.undoStack()->count(), steps);
        QVERIFY(doc.scene().materials[2].poles.empty());
    }
};

QTEST_MAIN(tst_MaterialEditor)
#include "tst_MaterialEditor.moc"

/// The inverse-design loop (opt/Optimize.hpp) on a small scene that runs in well under a second per
/// value-and-grad: an anti-reflection problem (a plane wave onto a 1 um design slab between air and
/// n = 2, periodic in y and z). Asserted: MMA and Adam reduce the reflection by stated factors in stated
/// evaluations; a resumed run equals an uninterrupted one bit for bit; a decomposed optimisation has the
/// same iterates as the single-domain one; the worst-case form and a constraint behave; cancel leaves a
/// valid history; bad settings are refused naming the field.
#include <QtTest>

#include <atomic>
#include <cstring>
#include <filesystem>

#include "yee/core/Error.hpp"
#include "yee/opt/Optimize.hpp"
#include "yee/scene/SceneJson.hpp"

using namespace yee;

namespace {

const std::string kScenePath = YEE_SOURCE_DIR "/resources/scenes/ar_coating_opt.json";

/// The example scene's text without its "optimization" section (tests set what they need).
std::string sceneText() {
    QFile f(QString::fromStdString(kScenePath));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", kScenePath.c_str());
    std::string t = f.readAll().toStdString();
    const auto at = t.find(",\n  \"optimization\"");
    if (at == std::string::npos)
        qFatal("%s has no optimization section", kScenePath.c_str());
    return t.substr(0, at) + "\n}\n";
}

scene::Scene baseScene() {
    return scene::parseScene(sceneText());
}

run::RunOptions options(const scene::Scene& s, std::array<int, 3> tiles = {1, 1, 1}) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.tiles = tiles;
    o.devices = tiles[0] * tiles[1] * tiles[2];
    o.threadsPerDevice = 1;
    o.guardInterval = 1000;
    return o;
}

QString tempPath(const char* name) {
    return QDir::temp().filePath(
        QString("yee-opt-%1-%2.h5").arg(QCoreApplication::applicationPid()).arg(name));
}

bool sameLatents(const std::vector<opt::Evaluation>& a, const std::vector<opt::Evaluation>& b,
                 std::string& why) {
    if (a.size() != b.size()) {
        why = std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " evaluations";
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        for (std::size_t d = 0; d < a[i].latent.size(); ++d)
            if (a[i].latent[d].size() != b[i].latent[d].size() ||
                std::memcmp(a[i].latent[d].data(), b[i].latent[d].data(),
                            a[i].latent[d].size() * sizeof(double))) {
                why = "latent of evaluation " + std::to_string(i) + " differs";
                return false;
            }
        if (std::memcmp(&a[i].merit, &b[i].merit, sizeof(double)) != 0) {
            why = "merit of evaluation " + std::to_string(i) + " differs";
            return false;
        }
    }
    return true;
}

} // namespace

class tst_Opt : public QObject {
    Q_OBJECT
private slots:
    void improves_data();
    void improves();
    void resumeEqualsUninterrupted();
    void decomposedSameIterates();
    void worstCaseAndConstraint();
    void continuationRaisesBeta();
    void cancelLeavesValidHistory();
    void badSettingsRefused();
};

void tst_Opt::improves_data() {
    QTest::addColumn<QString>("optimizer");
    QTest::addColumn<int>("evaluations");
    QTest::addColumn<double>("factor");
    QTest::newRow("mma") << "mma" << 12 << 10.0;
    QTest::newRow("ccsa") << "ccsa" << 12 << 10.0;
    QTest::newRow("adam") << "adam" << 15 << 5.0;
}

void tst_Opt::improves() {
    QFETCH(QString, optimizer);
    QFETCH(int, evaluations);
    QFETCH(double, factor);
    scene::Scene s = baseScene();
    s.optimization.optimizer = optimizer == "mma"    ? scene::OptimizerKind::Mma
                               : optimizer == "ccsa" ? scene::OptimizerKind::Ccsa
                                                     : scene::OptimizerKind::Adam;
    s.optimization.iterations = evaluations;
    s.optimization.step = 0.1;
    const opt::OptResult r = opt::optimize(s, options(s), {});
    QVERIFY2(r.completed, r.status.c_str());
    QCOMPARE(int(r.history.size()), evaluations);
    const double first = r.history.front().merit;
    double best = first;
    for (const auto& e : r.history)
        best = std::min(best, e.merit);
    qInfo("%s: reflection %.4g -> best %.4g (x%.1f) in %d evaluations; last %.4g", qPrintable(optimizer),
          first, best, first / best, evaluations, r.history.back().merit);
    QVERIFY(first > 0);
    QVERIFY2(best * factor <= first, qPrintable(QString("improved only x%1").arg(first / best)));
    // Every recorded point lies in the box [0, 1].
    for (const auto& e : r.history)
        for (double v : e.latent[0])
            QVERIFY(v >= 0 && v <= 1);
}

void tst_Opt::resumeEqualsUninterrupted() {
    scene::Scene s = baseScene();
    s.optimization.iterations = 8;
    const QString full = tempPath("full"), part = tempPath("part"), resumed = tempPath("resumed");
    opt::OptOptions a;
    a.historyPath = full.toStdString();
    const opt::OptResult ra = opt::optimize(s, options(s), a);
    opt::OptOptions b;
    b.historyPath = part.toStdString();
    b.maxEvaluations = 3;
    const opt::OptResult rb = opt::optimize(s, options(s), b);
    QCOMPARE(int(rb.history.size()), 3);
    opt::OptOptions c;
    c.historyPath = resumed.toStdString();
    c.resumePath = part.toStdString();
    const opt::OptResult rc = opt::optimize(s, options(s), c);
    QCOMPARE(rc.replayed, 3);
    std::string why;
    QVERIFY2(sameLatents(ra.history, rc.history, why), why.c_str());
    // The files say the same.
    opt::HistoryHeader h;
    const auto fa = opt::readHistory(full.toStdString(), &h);
    QVERIFY(h.completed);
    QCOMPARE(h.designNames, std::vector<std::string>{"coating"});
    const auto fc = opt::readHistory(resumed.toStdString());
    QVERIFY2(sameLatents(fa, fc, why), why.c_str());
    QVERIFY2(sameLatents(fa, ra.history, why), why.c_str());
    QCOMPARE(fa.back().gradients.size(), std::size_t(1));
    QCOMPARE(fa.back().gradients[0], ra.history.back().gradients[0]);
    // A history of another scene is refused.
    scene::Scene other = s;
    other.materials[1].eps = 4.5;
    opt::OptOptions d;
    d.resumePath = part.toStdString();
    QVERIFY_THROWS_EXCEPTION(InputError, opt::optimize(other, options(other), d));
    for (const QString& p : {full, part, resumed})
        QFile::remove(p);
}

void tst_Opt::decomposedSameIterates() {
    scene::Scene s = baseScene();
    s.optimization.iterations = 5;
    const opt::OptResult one = opt::optimize(s, options(s, {1, 1, 1}), {});
    const opt::OptResult two = opt::optimize(s, options(s, {2, 1, 1}), {});
    const opt::OptResult four = opt::optimize(s, options(s, {4, 1, 1}), {});
    std::string why;
    QVERIFY2(sameLatents(one.history, two.history, why), why.c_str());
    QVERIFY2(sameLatents(one.history, four.history, why), why.c_str());
    QCOMPARE(two.history.back().peakBytes.size(), std::size_t(2));
    QVERIFY(two.history.back().peakBytes[0] < one.history.back().peakBytes[0]);
}

void tst_Opt::worstCaseAndConstraint() {
    // Worst of the reflection at 0.95 and 1.05 um (epigraph form with MMA).
    scene::Scene s = baseScene();
    scene::ObjectiveTerm t = s.objective.terms[0];
    t.wavelength = 0.95;
    scene::ObjectiveTerm u = t;
    u.wavelength = 1.05;
    s.objective.terms = {t, u};
    s.optimization.form = scene::ObjectiveForm::Worst;
    s.optimization.iterations = 10;
    const opt::OptResult r = opt::optimize(s, options(s), {});
    QVERIFY2(r.completed, r.status.c_str());
    const auto& e0 = r.history.front();
    QCOMPARE(e0.values.size(), std::size_t(2));
    QCOMPARE(e0.merit, std::max(e0.values[0], e0.values[1]));
    double best = e0.merit;
    for (const auto& e : r.history)
        best = std::min(best, e.merit);
    qInfo("worst-case reflection %.4g -> %.4g", e0.merit, best);
    QVERIFY(best * 3 <= e0.merit);

    // Maximise transmission at 1.0 um subject to reflection at 1.05 um <= a fifth of its start value.
    scene::Scene c = baseScene();
    scene::ObjectiveTerm tr = c.objective.terms[0];
    tr.detector = "trans";
    c.objective.terms = {tr};
    c.objective.maximize = true;
    c.optimization.iterations = 12;
    const opt::OptResult start = [&] {
        scene::Scene q = c;
        q.optimization.iterations = 1;
        scene::OptConstraint k;
        k.term = s.objective.terms[1];
        k.bound = 1e9;
        q.optimization.constraints = {k};
        return opt::optimize(q, options(q), {});
    }();
    const double refl0 = start.history.front().constraints[0];
    scene::OptConstraint k;
    k.term = s.objective.terms[1];
    k.upper = true;
    k.bound = refl0 / 5;
    c.optimization.constraints = {k};
    const opt::OptResult rc = opt::optimize(c, options(c), {});
    const auto& last = rc.history.back();
    qInfo("transmission %.4g -> %.4g, reflection(1.05) %.4g -> %.4g (limit %.4g)", rc.history.front().merit,
          last.merit, refl0, last.constraints[0], k.bound);
    QCOMPARE(last.values.size(), std::size_t(2));
    QVERIFY(last.constraints[0] <= k.bound * 1.02);
    QVERIFY(last.merit >= rc.history.front().merit);
}

void tst_Opt::continuationRaisesBeta() {
    scene::Scene s = baseScene();
    s.designs[0].beta = 2;
    s.optimization.betaFactor = 2;
    s.optimization.betaEvery = 3;
    s.optimization.betaMax = 6;
    s.optimization.iterations = 9;
    const opt::OptResult r = opt::optimize(s, options(s), {});
    QCOMPARE(int(r.history.size()), 9);
    const double want[] = {2, 2, 2, 4, 4, 4, 6, 6, 6};
    for (int i = 0; i < 9; ++i) {
        QCOMPARE(r.history[std::size_t(i)].beta[0], want[i]);
        QCOMPARE(r.history[std::size_t(i)].stage, i / 3);
    }
    // Binarisation is reported; a steeper projection makes the design less grey at the same latent.
    QVERIFY(r.history.back().binarisation >= 0 && r.history.back().binarisation <= 1);
}

void tst_Opt::cancelLeavesValidHistory() {
    scene::Scene s = baseScene();
    s.optimization.iterations = 10;
    std::atomic<bool> cancel{false};
    const QString path = tempPath("cancel");
    opt::OptOptions o;
    o.historyPath = path.toStdString();
    o.cancel = &cancel;
    o.onEvaluation = [&](int i, const opt::Evaluation&) {
        if (i == 1)
            cancel = true;
    };
    const opt::OptResult r = opt::optimize(s, options(s), o);
    QVERIFY(!r.completed);
    QVERIFY2(r.status.find("cancelled after 2") != std::string::npos, r.status.c_str());
    opt::HistoryHeader h;
    const auto ev = opt::readHistory(path.toStdString(), &h);
    QCOMPARE(ev.size(), std::size_t(2));
    QVERIFY(!h.completed);
    QCOMPARE(h.status, r.status);
    QFile::remove(path);
}

void tst_Opt::badSettingsRefused() {
    auto refusedWith = [](const scene::Scene& s, const char* field) {
        try {
            opt::optimize(s, options(s), {});
        } catch (const InputError& e) {
            if (std::string(e.what()).rfind(field, 0) == 0)
                return true;
            qWarning("message: %s", e.what());
        }
        return false;
    };
    scene::Scene a = baseScene();
    a.optimization.optimizer = scene::OptimizerKind::Adam;
    a.optimization.form = scene::ObjectiveForm::Worst;
    QVERIFY(refusedWith(a, "optimization.form"));
    scene::Scene b = baseScene();
    b.objective.terms.clear();
    QVERIFY(refusedWith(b, "objective"));
    scene::Scene c = baseScene();
    c.designs.clear();
    QVERIFY(refusedWith(c, "designs"));
    // From the file: the section's keys go through the schema.
    std::string text = sceneText();
    text.insert(text.rfind('}'), R"(, "optimization": {"optimizer": "adam", "xtol_rel": 0.1})");
    try {
        scene::parseScene(text);
        QFAIL("xtol_rel with adam accepted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("optimization") != std::string::npos, e.what());
    }
    std::string good = sceneText();
    good.insert(
        good.rfind('}'),
        R"(, "optimization": {"optimizer": "mma", "iterations": 7, "constraints": [{"detector": "trans",
                 "quantity": "flux", "reduce": "at_wavelength", "wavelength_um": 1.0, "bound": "min", "limit": 0.5}]})");
    const scene::Scene g = scene::parseScene(good);
    QCOMPARE(g.optimization.iterations, 7);
    QCOMPARE(g.optimization.constraints.size(), std::size_t(1));
    QVERIFY(!g.optimization.constraints[0].upper);
    // Round trip through the writer.
    const scene::Scene back = scene::parseScene(scene::sceneToJson(g));
    QCOMPARE(back.optimization.constraints.size(), std::size_t(1));
    QCOMPARE(back.optimization.constraints[0].bound, 0.5);
    QCOMPARE(scene::sceneHash(back), scene::sceneHash(g));
    // A scene without the section writes none (scene files and hashes of other scenes do not change).
    QVERIFY(scene::sceneToJson(baseScene()).find("optimization") == std::string::npos);
}

QTEST_APPLESS_MAIN(tst_Opt)
#include "tst_opt.moc"

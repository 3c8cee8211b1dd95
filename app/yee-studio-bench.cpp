/// \file yee-studio-bench.cpp
/// The studio's run overhead against yee-run's on the same scene, in one process: a benchmark, not a
/// test (it prints numbers and asserts nothing).
///
///   yee-studio-bench [scene.json] [--reps N] [--hidden] [--events] [--timeline]
///
/// Each repetition runs the scene twice, interleaved: yee-run's path (RunOptions::fromScene, run::run with
/// a telemetry timeline, S-parameters, io::writeRunOutputs: what `yee-run scene -o out.h5` does after
/// parsing) and the studio's (MainWindow::startRun on the open scene, up to MainWindow::runCompleted, the
/// results painted). It prints the best and median of both, for the time loop (RunResult::seconds) and
/// start-to-results, their ratios, the CPU time each path takes (and the studio's GUI thread's share),
/// and the machine's load average before and after, since other
/// processes on the machine move these numbers. The window is shown (a real display: run under
/// xvfb-run on a machine without one) unless --hidden. --events sums the GUI thread's wall and CPU time per
/// receiver class and event type over the studio's runs; --timeline lists, for the last repetition, every
/// GUI-thread event of 1 ms or more and when the run's reports and outcome arrived.
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "ui/MainWindow.hpp"
#include "ui/VtkWidget.hpp"
#include "yee/io/RunOutputs.hpp"
#include "yee/run/SParameters.hpp"
#include "yee/scene/SceneJson.hpp"

namespace {

/// CPU seconds of the calling thread.
double threadCpu() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

/// The GUI thread's event deliveries while `recording`: wall and CPU time spent per (receiver class, event
/// type). Events delivered inside another's delivery count in both (a paint inside an update request).
class ProfiledApp : public QApplication {
public:
    using QApplication::QApplication;
    bool recording = false;
    struct Spent {
        double wall = 0, cpu = 0;
        int count = 0;
    };
    std::map<std::pair<std::string, int>, Spent> spent;
    /// With `timeline`: every delivery of at least 1 ms, as (start since `origin`, wall seconds, CPU
    /// seconds, receiver, type).
    bool timeline = false;
    QElapsedTimer origin;
    std::vector<std::tuple<double, double, double, std::string, int>> slow;

    bool notify(QObject* receiver, QEvent* event) override {
        if (!recording || QThread::currentThread() != thread())
            return QApplication::notify(receiver, event);
        QElapsedTimer t;
        t.start();
        const double cpu0 = threadCpu();
        const std::string cls = receiver->metaObject()->className();
        const int type = int(event->type());
        const bool r = QApplication::notify(receiver, event);
        const double took = double(t.nsecsElapsed()) * 1e-9, cpu = threadCpu() - cpu0;
        auto& e = spent[{cls, type}];
        e.wall += took;
        e.cpu += cpu;
        ++e.count;
        if (timeline && took >= 1e-3)
            slow.emplace_back(double(origin.nsecsElapsed()) * 1e-9 - took, took, cpu, cls, type);
        return r;
    }
};

/// The 1-, 5- and 15-minute load averages, as /proc/loadavg gives them.
QString loadAverage() {
    QFile f(QStringLiteral("/proc/loadavg"));
    if (!f.open(QIODevice::ReadOnly))
        return QStringLiteral("unknown");
    return QString::fromLatin1(f.readAll()).section(QLatin1Char(' '), 0, 2);
}

/// yee-run's path after parsing: run with a telemetry timeline, S-parameters, outputs written.
/// Returns {time loop, start to results written} in seconds.
std::pair<double, double> cliRun(const yee::scene::Scene& s, const QString& out) {
    using namespace yee;
    QElapsedTimer t;
    t.start();
    io::ResultsExtras extras;
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.onTelemetry = [&](const telemetry::Report& r) { extras.timeline.push_back(r); };
    const run::Estimate e = run::estimate(s, o); // yee-run estimates (and prints) before it runs
    run::checkFits(e);
    run::RunResult r = run::run(s, o);
    for (const auto& g : r.gradients)
        extras.gradients[g.name] = g;
    extras.sParameters = run::sParameters(s, r);
    io::writeRunOutputs({out.toStdString(), (out + QStringLiteral(".fields")).toStdString()}, s,
                        scene::sceneToJson(s), r, extras);
    return {r.seconds, t.elapsed() / 1000.0};
}

/// CPU seconds of the whole process.
double processCpu() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

double best(std::vector<double> v) {
    return *std::min_element(v.begin(), v.end());
}
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    yee::ui::VtkWidget::installDefaultFormat();
    ProfiledApp app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("yee-studio-bench"));
    QApplication::setOrganizationName(QStringLiteral("YeeStudio"));
    QCommandLineParser cli;
    cli.addPositionalArgument(QStringLiteral("scene"), QStringLiteral("Scene file (default: quick_box)."));
    const QCommandLineOption reps(QStringLiteral("reps"), QStringLiteral("Repetitions (default 5)."),
                                  QStringLiteral("N"), QStringLiteral("5"));
    const QCommandLineOption hidden(QStringLiteral("hidden"), QStringLiteral("Do not show the window."));
    const QCommandLineOption events(
        QStringLiteral("events"),
        QStringLiteral("Print where the GUI thread spent its time during the studio's "
                       "runs (by receiver class and event type)."));
    const QCommandLineOption timeline(
        QStringLiteral("timeline"),
        QStringLiteral("Print, for the last repetition, every GUI-thread event of 1 ms or more and when "
                       "the run's reports and outcome arrived (seconds since startRun)."));
    cli.addOptions({reps, hidden, events, timeline});
    cli.addHelpOption();
    cli.process(app);
    const QString scenePath =
        cli.positionalArguments().value(0, QStringLiteral(YEE_EXAMPLES_DIR "/quick_box.json"));
    const int n = std::max(1, cli.value(reps).toInt());

    QTemporaryDir dir;
    yee::scene::Scene s;
    try {
        s = yee::scene::loadScene(scenePath.toStdString());
        yee::scene::validateScene(s);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "yee-studio-bench: %s\n", e.what());
        return 2;
    }
    yee::ui::MainWindow w;
    w.resize(1280, 800);
    if (!cli.isSet(hidden))
        w.show();
    if (!w.openScene(scenePath))
        return 2;
    w.setRunFolder(dir.filePath(QStringLiteral("studio.runs")));
    // Let the window settle (first paint, the background estimate) before timing anything.
    QEventLoop settle;
    QTimer::singleShot(1500, &settle, &QEventLoop::quit);
    settle.exec();

    const QString loadBefore = loadAverage();
    std::vector<double> cliLoop, cliWall, studioLoop, studioWall, cliCpu, studioCpu, guiCpu;
    for (int rep = 0; rep < n; ++rep) {
        const double cpu0 = processCpu();
        const auto [loop, wall] = cliRun(s, dir.filePath(QStringLiteral("cli.h5")));
        cliCpu.push_back(processCpu() - cpu0);
        cliLoop.push_back(loop);
        cliWall.push_back(wall);
        QEventLoop wait;
        yee::ui::RunResultPtr result;
        const auto c = QObject::connect(&w, &yee::ui::MainWindow::runCompleted, &wait,
                                        [&](const yee::ui::RunResultPtr& r) {
                                            result = r;
                                            wait.quit();
                                        });
        std::vector<std::pair<double, QString>> arrivals;
        const bool last = rep == n - 1 && cli.isSet(timeline);
        QMetaObject::Connection tc;
        if (last) {
            tc = QObject::connect(w.runner(), &yee::ui::Runner::telemetryReceived, &wait,
                                  [&](const yee::telemetry::Report& r) {
                                      arrivals.push_back({double(app.origin.nsecsElapsed()) * 1e-9,
                                                          QStringLiteral("report %1 step %2")
                                                              .arg(QString::fromStdString(r.phase))
                                                              .arg(r.step)});
                                  });
            QObject::connect(w.runner(), &yee::ui::Runner::runFinished, &wait, [&] {
                arrivals.push_back({double(app.origin.nsecsElapsed()) * 1e-9, QStringLiteral("finished")});
            });
        }
        QElapsedTimer t;
        t.start();
        app.origin.start();
        app.timeline = last;
        const double gui0 = threadCpu(), proc0 = processCpu();
        app.recording = cli.isSet(events) || last;
        QString why;
        if (!w.startRun(false, &why)) {
            std::fprintf(stderr, "yee-studio-bench: the studio refused to run: %s\n", qPrintable(why));
            return 2;
        }
        wait.exec();
        // The results are shown when they are painted: deliver what runCompleted left queued (layout,
        // the results tab's paint) before the clock stops.
        for (int k = 0; k < 3; ++k) {
            QCoreApplication::sendPostedEvents();
            QCoreApplication::processEvents();
        }
        app.recording = false;
        app.timeline = false;
        guiCpu.push_back(threadCpu() - gui0);
        studioCpu.push_back(processCpu() - proc0);
        QObject::disconnect(c);
        studioWall.push_back(t.elapsed() / 1000.0);
        studioLoop.push_back(result ? result->seconds : 0.0);
        std::printf("rep %d: yee-run loop %.3f s, round trip %.3f s, cpu %.3f s | studio loop %.3f s, round "
                    "trip %.3f s, "
                    "cpu %.3f s (GUI thread %.3f s)\n",
                    rep + 1, loop, wall, cliCpu.back(), studioLoop.back(), studioWall.back(),
                    studioCpu.back(), guiCpu.back());
        if (last) {
            QObject::disconnect(tc);
            for (const auto& [at, what] : arrivals)
                std::printf("  %7.3f s  %s\n", at, qPrintable(what));
            for (const auto& [at, took, cpu, cls, type] : app.slow)
                std::printf("  %7.3f s  %6.1f ms (cpu %6.1f ms)  %s event %d\n", at, took * 1e3, cpu * 1e3,
                            cls.c_str(), type);
        }
        std::fflush(stdout);
    }
    const QString loadAfter = loadAverage();
    std::printf("scene %s, %d repetitions, window %s\n", qPrintable(scenePath), n,
                cli.isSet(hidden) ? "hidden" : "shown");
    std::printf("time loop:  yee-run best %.3f median %.3f s | studio best %.3f median %.3f s | ratio best "
                "%.3f median %.3f\n",
                best(cliLoop), median(cliLoop), best(studioLoop), median(studioLoop),
                best(studioLoop) / best(cliLoop), median(studioLoop) / median(cliLoop));
    std::printf("round trip: yee-run best %.3f median %.3f s | studio best %.3f median %.3f s | ratio best "
                "%.3f median %.3f\n",
                best(cliWall), median(cliWall), best(studioWall), median(studioWall),
                best(studioWall) / best(cliWall), median(studioWall) / median(cliWall));
    std::printf("cpu:        yee-run median %.3f s | studio median %.3f s, of which the GUI thread %.3f s\n",
                median(cliCpu), median(studioCpu), median(guiCpu));
    if (cli.isSet(events)) {
        std::vector<std::tuple<double, double, std::string>> rows;
        for (const auto& [key, v] : app.spent)
            rows.emplace_back(v.cpu, v.wall,
                              key.first + " event " + std::to_string(key.second) + " x" +
                                  std::to_string(v.count));
        std::sort(rows.rbegin(), rows.rend());
        std::printf("GUI thread during the studio's runs (all repetitions), most CPU first:\n");
        for (std::size_t i = 0; i < std::min<std::size_t>(rows.size(), 20); ++i)
            std::printf("  cpu %8.3f s  wall %8.3f s  %s\n", std::get<0>(rows[i]), std::get<1>(rows[i]),
                        std::get<2>(rows[i]).c_str());
    }
    std::printf("load average (1, 5, 15 min): before %s, after %s; %d cores\n", qPrintable(loadBefore),
                qPrintable(loadAfter), QThread::idealThreadCount());
    return 0;
}

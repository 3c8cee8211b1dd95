/// \file yee-studio.cpp
/// Yee Studio, the desktop application: a thin main over yee_ui.
///
///   yee-studio [scene.json] [--run] [--gradient] [--max-steps N] [--results FILE] [--screenshot FILE]
///              [--tab scene|results] [--size WxH] [--quit]
///
/// --screenshot grabs the main window once the scene is shown (after the run with --run) and quits.
#include <QApplication>
#include <QCommandLineParser>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>

#include "ui/MainWindow.hpp"
#include "ui/ResultsView.hpp"
#include "ui/SceneView.hpp"
#include "ui/VtkWidget.hpp"

int main(int argc, char** argv) {
    // VTK needs an OpenGL 3.2 core context: the default format must be set before QApplication exists.
    yee::ui::VtkWidget::installDefaultFormat();
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("yee-studio"));
    QApplication::setOrganizationName(QStringLiteral("YeeStudio"));
    QApplication::setApplicationVersion(QStringLiteral(YEE_VERSION));

    QCommandLineParser cli;
    cli.setApplicationDescription(QApplication::translate("main", "Differentiable 3-D FDTD studio"));
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument(QStringLiteral("scene"), QApplication::translate("main", "Scene file to open."),
                              QStringLiteral("[scene.json]"));
    const QCommandLineOption run(QStringLiteral("run"),
                                 QApplication::translate("main", "Run the scene after opening it."));
    const QCommandLineOption gradient(QStringLiteral("gradient"),
                                      QApplication::translate("main", "With --run: run value and gradient."));
    const QCommandLineOption maxSteps(QStringLiteral("max-steps"),
                                      QApplication::translate("main", "Stop runs after N steps."),
                                      QStringLiteral("N"));
    const QCommandLineOption results(QStringLiteral("results"),
                                     QApplication::translate("main", "Write run results to FILE."),
                                     QStringLiteral("FILE"));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QApplication::translate("main", "Save a PNG of the window to FILE, then quit."),
        QStringLiteral("FILE"));
    const QCommandLineOption tab(QStringLiteral("tab"),
                                 QApplication::translate("main", "Show the scene or results tab."),
                                 QStringLiteral("scene|results"));
    const QCommandLineOption size(QStringLiteral("size"), QApplication::translate("main", "Window size."),
                                  QStringLiteral("WxH"));
    const QCommandLineOption quit(QStringLiteral("quit"),
                                  QApplication::translate("main", "Quit after the run."));
    cli.addOptions({run, gradient, maxSteps, results, screenshot, tab, size, quit});
    cli.process(app);

    yee::ui::MainWindow window;
    if (cli.isSet(size)) {
        const QStringList wh = cli.value(size).split(QLatin1Char('x'));
        if (wh.size() == 2)
            window.resize(wh[0].toInt(), wh[1].toInt());
    }
    if (cli.isSet(maxSteps))
        window.setMaxSteps(cli.value(maxSteps).toInt());
    if (cli.isSet(results))
        window.setResultPath(cli.value(results));
    window.show();

    if (!cli.positionalArguments().isEmpty() && !window.openScene(cli.positionalArguments().first())) {
        std::fprintf(stderr, "yee-studio: cannot open %s\n", qPrintable(cli.positionalArguments().first()));
        if (cli.isSet(screenshot) || cli.isSet(quit))
            return 2;
    }

    int exitCode = 0;
    auto finish = [&] {
        if (cli.isSet(tab)) {
            if (cli.value(tab) == QLatin1String("scene"))
                window.centralTabs()->setCurrentWidget(window.sceneView());
            else
                window.centralTabs()->setCurrentWidget(window.resultsView());
        }
        if (cli.isSet(screenshot)) {
            // Let the views paint once more before grabbing.
            QTimer::singleShot(300, &window, [&] {
                if (!window.grab().save(cli.value(screenshot))) {
                    std::fprintf(stderr, "yee-studio: cannot write %s\n", qPrintable(cli.value(screenshot)));
                    exitCode = 3;
                }
                QApplication::exit(exitCode);
            });
        } else if (cli.isSet(quit)) {
            QApplication::exit(exitCode);
        }
    };
    if (cli.isSet(run)) {
        QObject::connect(&window, &yee::ui::MainWindow::runCompleted, &window,
                         [&](const yee::ui::RunResultPtr& r, const QString&) {
                             if (!r->completed)
                                 exitCode = 4;
                             finish();
                         });
        QObject::connect(window.runner(), &yee::ui::Runner::runFailed, &window, [&](const QString& m) {
            std::fprintf(stderr, "yee-studio: run failed: %s\n", qPrintable(m));
            exitCode = 5;
            finish();
        });
        // Start once the first estimate is in (the run action is enabled from it).
        QTimer::singleShot(0, &window, [&] {
            QString why;
            if (!window.startRun(cli.isSet(gradient), &why)) {
                std::fprintf(stderr, "yee-studio: cannot run: %s\n", qPrintable(why));
                exitCode = 6;
                finish();
            }
        });
    } else if (cli.isSet(screenshot) || cli.isSet(quit)) {
        QTimer::singleShot(500, &window, finish);
    }
    return app.exec();
}

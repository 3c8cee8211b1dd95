#include "ui/Estimator.hpp"

#include <QCoreApplication>

#include "yee/core/Error.hpp"
#include "yee/device/MemoryLedger.hpp"
#include "yee/scene/SceneJson.hpp"

namespace yee::ui {

run::RunOptions RunSettings::optionsFor(const scene::Scene& s) const {
    run::RunOptions o = run::RunOptions::fromScene(s);
    o.deviceCapacity = deviceCapacity;
    o.maxSteps = maxSteps;
    o.gradient = gradient;
    return o;
}

Estimator::Estimator(QObject* parent) : QObject(parent) {
    qRegisterMetaType<EstimateOutcome>();
    pool_.setMaxThreadCount(1);
    debounce_.setSingleShot(true);
    debounce_.setInterval(120);
    connect(&debounce_, &QTimer::timeout, this, &Estimator::launch);
}

Estimator::~Estimator() {
    pool_.waitForDone();
}

void Estimator::request(const scene::Scene& s, const RunSettings& settings, quint64 revision) {
    scene_ = std::make_shared<const scene::Scene>(s);
    settings_ = settings;
    revision_ = revision;
    ++generation_; // outcomes of earlier requests still in flight are now stale
    debounce_.start();
}

const EstimateOutcome* Estimator::current(quint64 revision, const RunSettings& settings) const {
    if (generation_ == 0 || busy() || latest_.generation != generation_ || revision != revision_ ||
        settings.deviceCapacity != settings_.deviceCapacity || settings.maxSteps != settings_.maxSteps)
        return nullptr;
    return &latest_;
}

namespace {
/// One dry run; returns the reason it cannot run (or an empty string) and fills `out`.
QString estimateOne(const scene::Scene& s, run::RunOptions o, std::optional<run::Estimate>& out) {
    try {
        run::Estimate e = run::estimate(s, o);
        QString problem;
        for (const auto& d : e.devices)
            if (d.memory.peakTotal > d.capacity && problem.isEmpty())
                problem = QCoreApplication::translate("yee::ui::Estimator",
                                                      "%1: needs %2 at its peak but holds only %3 "
                                                      "(use more tiles, a coarser grid, or more capacity)")
                              .arg(QString::fromStdString(d.name),
                                   QString::fromStdString(device::formatBytes(d.memory.peakTotal)),
                                   QString::fromStdString(device::formatBytes(d.capacity)));
        out = std::move(e);
        return problem;
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
}
} // namespace

EstimateOutcome Estimator::compute(const scene::Scene& s, const RunSettings& settings) {
    EstimateOutcome out;
    try {
        scene::validateScene(s);
    } catch (const std::exception& e) {
        out.problem = out.gradientProblem = QString::fromStdString(e.what());
        return out;
    }
    run::RunOptions o = settings.optionsFor(s);
    o.gradient = false;
    out.problem = estimateOne(s, o, out.estimate);
    if (!s.objective.defined())
        out.gradientProblem = QCoreApplication::translate(
            "yee::ui::Estimator", "objective: a gradient needs an objective (add a term)");
    else if (s.designs.empty())
        out.gradientProblem = QCoreApplication::translate(
            "yee::ui::Estimator", "designs: a gradient needs at least one design region");
    else {
        o.gradient = true;
        out.gradientProblem = estimateOne(s, o, out.gradientEstimate);
        if (out.gradientEstimate && s.gradient.tier == "host") {
            // What the staging moves to host memory: the same recorder kept on the device, less the ring.
            scene::Scene onDevice = s;
            onDevice.gradient.tier = "device";
            try {
                const run::Estimate d = run::estimate(onDevice, o);
                const int rec = int(device::Category::Recorder);
                for (std::size_t i = 0; i < d.devices.size() && i < out.gradientEstimate->devices.size(); ++i)
                    out.gradientHostBytes.push_back(
                        std::max<std::int64_t>(0, d.devices[i].memory.peak[rec] -
                                                      out.gradientEstimate->devices[i].memory.peak[rec]));
            } catch (const std::exception&) {
                // Without the comparison the bars show device memory only.
            }
        }
    }
    return out;
}

void Estimator::launch() {
    const quint64 gen = generation_;
    auto s = scene_;
    const RunSettings settings = settings_;
    ++pending_;
    pool_.start([this, s, settings, gen] {
        EstimateOutcome out = compute(*s, settings);
        out.generation = gen;
        QMetaObject::invokeMethod(
            this,
            [this, out = std::move(out)] {
                --pending_;
                // Drop outcomes overtaken by a newer request.
                if (out.generation != generation_)
                    return;
                latest_ = out;
                emit estimated(latest_);
            },
            Qt::QueuedConnection);
    });
}

} // namespace yee::ui

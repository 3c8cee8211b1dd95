#include "ui/OptRunner.hpp"

#include <QMetaObject>

#if YEE_UI_HAVE_OPT
#include "yee/opt/Optimize.hpp"
#endif

namespace yee::ui {

OptRunner::OptRunner(QObject* parent) : QObject(parent) {}

OptRunner::~OptRunner() {
    stop();
    join();
}

bool OptRunner::available() {
    return YEE_UI_HAVE_OPT != 0;
}

void OptRunner::join() {
    if (thread_.joinable())
        thread_.join();
}

bool OptRunner::start(OptRequest request) {
    if (running_ || !available())
        return false;
    join();
    cancel_ = false;
    paused_ = false;
    running_ = true;
    auto req = std::make_shared<const OptRequest>(std::move(request));
    thread_ = std::thread([this, req] { work(req); });
    emit started();
    return true;
}

void OptRunner::setPaused(bool paused) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        paused_ = paused;
    }
    wake_.notify_all();
}

void OptRunner::stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        cancel_ = true;
    }
    wake_.notify_all();
}

void OptRunner::work(std::shared_ptr<const OptRequest> req) {
    OptOutcome out;
    out.historyPath = req->historyPath;
#if YEE_UI_HAVE_OPT
    try {
        opt::OptOptions oo;
        oo.historyPath = req->historyPath.toStdString();
        oo.resumePath = req->resumePath.toStdString();
        oo.cancel = &cancel_;
        oo.maxEvaluations = req->maxEvaluations;
        oo.onEvaluation = [this](int index, const opt::Evaluation& e) {
            auto copy = std::make_shared<const opt::Evaluation>(e);
            QMetaObject::invokeMethod(
                this, [this, index, copy] { emit evaluated(index, *copy); }, Qt::QueuedConnection);
            // Pause: hold here, after the evaluation was written, until resumed or stopped.
            std::unique_lock<std::mutex> lock(mutex_);
            if (paused_ && !cancel_)
                QMetaObject::invokeMethod(
                    this, [this, index] { emit held(index); }, Qt::QueuedConnection);
            wake_.wait(lock, [this] { return !paused_ || cancel_; });
        };
        opt::checkOptimization(req->scene);
        const opt::OptResult r = opt::optimize(req->scene, req->options, oo);
        out.completed = r.completed;
        out.status = QString::fromStdString(r.status);
        out.evaluations = int(r.history.size());
        out.best = r.best;
        QMetaObject::invokeMethod(
            this,
            [this, out] {
                running_ = false;
                emit finished(out);
            },
            Qt::QueuedConnection);
        return;
    } catch (const std::exception& e) {
        const QString m = QString::fromStdString(e.what());
        QMetaObject::invokeMethod(
            this,
            [this, m] {
                running_ = false;
                emit failed(m);
            },
            Qt::QueuedConnection);
        return;
    }
#else
    (void)req;
    QMetaObject::invokeMethod(
        this,
        [this] {
            running_ = false;
            emit failed(tr("this build has no optimisation module (NLopt)"));
        },
        Qt::QueuedConnection);
#endif
}

} // namespace yee::ui

#pragma once
/// \file Bindings.hpp
/// Shared pieces of the pybind11 extension yee._yee: the Python-side scene holder, the registration
/// functions of each binding file, numpy views of result arrays and the pump that runs a simulation with
/// the GIL released while the calling thread delivers progress reports and watches for Ctrl-C.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "yee/run/Run.hpp"
#include "yee/scene/Scene.hpp"
#include "yee/solver/Result.hpp"
#include "yee/telemetry/Telemetry.hpp"

namespace yee::python {

namespace py = pybind11;

/// A scene as Python holds it: the C++ scene behind a shared pointer. Latent values are written in
/// place (views, set_latent); an edit of the scene's keys replaces the whole C++ scene, and numpy views
/// of the earlier version keep its storage alive.
struct PyScene {
    std::shared_ptr<scene::Scene> scene = std::make_shared<scene::Scene>();
    std::string baseDir = "."; ///< directory sidecar arrays (`params`) are resolved against
};

/// A finished (or stopped) run as Python sees it: the C++ result plus what the run layer leaves to its
/// caller (the telemetry timeline, whether Ctrl-C stopped it).
struct PyRunResult {
    run::RunResult result;
    std::vector<telemetry::Report> timeline; ///< every report the run emitted, in order
    bool interrupted = false;                ///< KeyboardInterrupt (or a progress callback) stopped it
};

/// Registration of each part of the module.
void bindScene(py::module_& m);
void bindResults(py::module_& m);
void bindRun(py::module_& m);
void bindOpt(py::module_& m);
void bindMpi(py::module_& m);

/// A read-only float64 numpy view of `data` shaped `shape` (C order), kept alive by `base`.
py::array readOnlyView(const std::vector<double>& data, const std::vector<std::int64_t>& shape,
                       py::handle base);

/// The scene's design index called `name`; throws yee::InputError ("designs: no design region 'x'").
std::size_t designIndex(const scene::Scene& s, const std::string& name);

/// Run options from a scene's "run" section and keyword overrides, as yee-run's command line maps them.
struct OptionArgs {
    std::optional<std::array<int, 3>> tiles;
    std::optional<std::string> devices;
    std::optional<std::string> precision;
    std::optional<bool> overlap;
    std::optional<int> maxSteps;
    std::optional<std::string> capacity;
    std::optional<int> guardInterval;
    std::optional<int> threadsPerDevice;
    std::optional<double> telemetryInterval;
    bool gradient = false;
};

/// RunOptions for `s` with the overrides of `a` (fields named as the Python keywords). Under an
/// active MPI world (MpiWorld), the world communicator with this rank's share of the host. Throws
/// InputError naming the keyword or scene field.
run::RunOptions makeOptions(const scene::Scene& s, const OptionArgs& a);

/// The MPI world communicator when the process was started by mpirun/srun with more than one rank
/// (MPI initialised at first use), else null.
comm::Communicator* mpiWorld();
/// Stops and frees every session over the MPI world (called before MPI is finalised).
void releaseMpiSessions();
/// This process's rank among the ranks sharing its host, and their number ({0, 1} without MPI).
std::pair<int, int> mpiNodePlace();

/// Runs `body` (a simulation) with the GIL released, on a worker thread when the run's tiles are
/// in-process (the calling thread, which holds Python, then waits in short slices) or on the calling
/// thread under MPI (whose rank-0 tile must stay there). Telemetry reports reach `progress` on the
/// calling thread; between slices the calling thread checks for signals: a KeyboardInterrupt, a
/// progress callback returning False, or an exception it raised sets the cancel flag, so the run stops
/// at its next guard step. A KeyboardInterrupt is swallowed (interrupted = true); any other Python
/// exception is rethrown after the run returned.
class Pump {
public:
    /// `progress` may be None.
    explicit Pump(py::object progress);
    /// Points o.cancel and o.onTelemetry at this pump (which must outlive every use of `o`).
    void attach(run::RunOptions& o);
    /// Runs body() as described above; returns its value. Rethrows what body threw.
    template <class R> R run(const std::function<R()>& body, bool onCallingThread);
    /// The cancel flag the pump sets (for loops that check their own flag, e.g. opt::OptOptions).
    const std::atomic<bool>* cancelFlag() const { return &cancel_; }
    /// True when KeyboardInterrupt or the callback stopped the run.
    bool interrupted() const { return interrupted_; }
    /// The reports collected so far (each report goes here and to the callback).
    std::vector<telemetry::Report> takeTimeline();
    /// Re-arms the pump for another run (session evaluations).
    void reset();

private:
    void deliver(const telemetry::Report& r);
    void checkSignals();
    void runOnWorker(const std::function<void()>& body);

    py::object progress_;
    std::atomic<bool> cancel_{false};
    std::mutex m_;
    std::condition_variable cv_;
    std::deque<telemetry::Report> queue_;
    bool inlineMode_ = false;
    bool done_ = false;
    bool interrupted_ = false;
    std::optional<py::error_already_set> pythonError_;
    std::vector<telemetry::Report> timeline_;
};

template <class R> R Pump::run(const std::function<R()>& body, bool onCallingThread) {
    std::optional<R> out;
    if (onCallingThread) {
        struct Inline {
            bool& flag;
            explicit Inline(bool& f) : flag(f) { flag = true; }
            ~Inline() { flag = false; }
        } inlineMode(inlineMode_);
        py::gil_scoped_release release;
        out = body();
    } else {
        runOnWorker([&] { out = body(); });
    }
    if (pythonError_) {
        py::error_already_set e = std::move(*pythonError_);
        pythonError_.reset();
        throw e;
    }
    return std::move(*out);
}

} // namespace yee::python

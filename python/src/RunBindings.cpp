/// \file RunBindings.cpp
/// yee.run, yee.value_and_grad, yee.estimate_memory and yee.Session over run/ (Run.hpp, Session.hpp):
/// the run options are made from the scene's "run" section and keyword overrides exactly as yee-run
/// makes them from its command line, so the same scene and options give the same bits.
#include <algorithm>
#include <set>

#include "Bindings.hpp"
#include "yee/comm/Communicator.hpp"
#include "yee/core/Error.hpp"
#include "yee/cuda/Runtime.hpp"
#include "yee/run/Devices.hpp"
#include "yee/run/Overrides.hpp"
#include "yee/run/Session.hpp"
#include "yee/scene/MaterialCheck.hpp"
#include "yee/scene/Resolution.hpp"
#include "yee/scene/SceneJson.hpp"

namespace yee::python {

run::RunOptions makeOptions(const scene::Scene& s, const OptionArgs& a) {
    run::RunOptions o = run::RunOptions::fromScene(s);
    run::overrideTilesAndDevices(s, a.tiles, a.devices, "devices", o); // as yee-run
    if (a.precision) {
        if (*a.precision == "float32")
            o.precision = run::Precision::Float32;
        else if (*a.precision == "float64")
            o.precision = run::Precision::Float64;
        else
            throw InputError("precision: expected float32 or float64, got '" + *a.precision + "'");
    }
    if (a.overlap)
        o.overlap = *a.overlap;
    if (a.maxSteps)
        o.maxSteps = *a.maxSteps;
    if (a.capacity)
        o.deviceCapacity = run::parseCapacity(*a.capacity, "capacity");
    if (a.guardInterval)
        o.guardInterval = *a.guardInterval;
    if (a.threadsPerDevice)
        o.threadsPerDevice = *a.threadsPerDevice;
    if (a.telemetryInterval)
        o.telemetryInterval = *a.telemetryInterval;
    o.gradient = a.gradient;
    if (comm::Communicator* world = mpiWorld()) {
        // One tile per rank, as yee-run places them (run::placeOneTilePerRank). The module's ranks
        // exchange GPU halos through host memory over MPI (no NCCL bootstrap here).
        const auto [localRank, ranksOnNode] = mpiNodePlace();
        o.communicator = world;
        run::placeOneTilePerRank(o, {localRank, ranksOnNode});
        if (o.backend == run::Backend::Cuda)
            o.nccl = false;
    }
    return o;
}

namespace {

/// The keyword arguments every run entry point takes, in one place.
OptionArgs optionArgs(const std::optional<std::array<int, 3>>& tiles,
                      const std::optional<std::string>& devices, const std::optional<std::string>& precision,
                      const std::optional<bool>& overlap, const std::optional<int>& maxSteps,
                      const std::optional<std::string>& capacity, const std::optional<int>& guardInterval,
                      const std::optional<int>& threadsPerDevice,
                      const std::optional<double>& telemetryInterval, bool gradient) {
    return OptionArgs{tiles,    devices,       precision,        overlap,           maxSteps,
                      capacity, guardInterval, threadsPerDevice, telemetryInterval, gradient};
}

/// A copy of `s` with the latent values of `latent` ({design: array}) set; `s` itself when none.
std::shared_ptr<scene::Scene> withLatent(const PyScene& s, const py::object& latent) {
    if (latent.is_none())
        return s.scene;
    auto copy = std::make_shared<scene::Scene>(*s.scene);
    for (auto item : latent.cast<py::dict>()) {
        const std::string name = item.first.cast<std::string>();
        const std::size_t d = designIndex(*copy, name);
        auto arr = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(item.second);
        if (!arr || std::size_t(arr.size()) != copy->designLatentSize(d))
            throw InputError("designs[" + std::to_string(d) + "].latent: expected " +
                             std::to_string(copy->designLatentSize(d)) + " values for design '" + name + "'");
        copy->designs[d].latent.assign(arr.data(), arr.data() + arr.size());
    }
    return copy;
}

/// What yee-run prints as notes before a run, as Python warnings: a device request that fell back
/// to CPU devices, library materials used outside their data, cells too coarse for the wavelengths.
void warnBeforeRunning(const scene::Scene& s, const run::RunOptions& o) {
    std::vector<std::string> notes;
    if (!o.deviceNotice.empty())
        notes.push_back(o.deviceNotice);
    for (const std::string& w : scene::materialWarnings(s))
        notes.push_back(w);
    for (const std::string& w : scene::resolutionWarnings(s))
        notes.push_back(w);
    for (const std::string& n : notes)
        if (PyErr_WarnEx(PyExc_RuntimeWarning, n.c_str(), 2) != 0)
            throw py::error_already_set(); // warnings turned into errors
}

std::shared_ptr<PyRunResult> runScene(const PyScene& ps, const py::object& latent, const OptionArgs& a,
                                      const py::object& progress) {
    std::shared_ptr<scene::Scene> s = withLatent(ps, latent);
    scene::validateScene(*s);
    run::RunOptions o = makeOptions(*s, a);
    warnBeforeRunning(*s, o);
    Pump pump(progress);
    pump.attach(o);
    auto out = std::make_shared<PyRunResult>();
    out->result = pump.run<run::RunResult>([&] { return run::run(*s, o); }, o.communicator != nullptr);
    out->timeline = pump.takeTimeline();
    out->interrupted = pump.interrupted();
    return out;
}

class PySession;
/// Sessions over the MPI world, released before MPI is finalised (releaseMpiSessions()).
std::set<PySession*> gMpiSessions;

/// A prepared scene for many evaluations (run::Session), with its own pump for progress and Ctrl-C.
class PySession {
public:
    PySession(const PyScene& ps, const OptionArgs& a, py::object progress)
        : scene_(std::make_shared<scene::Scene>(*ps.scene)), pump_(std::move(progress)) {
        scene::validateScene(*scene_);
        options_ = makeOptions(*scene_, a);
        warnBeforeRunning(*scene_, options_);
        pump_.attach(options_);
        const bool mpi = options_.communicator != nullptr;
        session_ = pump_.run<std::shared_ptr<run::Session>>(
            [&] { return std::make_shared<run::Session>(*scene_, options_); }, mpi);
        if (mpi)
            gMpiSessions.insert(this);
    }
    ~PySession() { gMpiSessions.erase(this); }
    PySession(const PySession&) = delete;
    PySession& operator=(const PySession&) = delete;

    /// Stops and frees the C++ session (before MPI is finalised); the object is unusable afterwards.
    void release() {
        close();
        session_.reset();
    }

    std::shared_ptr<PyRunResult> evaluate(const py::object& latent, const py::object& beta,
                                          const py::object& weights) {
        alive();
        run::DesignUpdate u;
        if (!latent.is_none()) {
            const auto& designs = scene_->designs;
            py::dict byName;
            if (py::isinstance<py::dict>(latent))
                byName = latent.cast<py::dict>();
            else if (designs.size() == 1)
                byName[py::str(designs[0].name)] = latent;
            else
                throw InputError("latent: give {design name: array} for a scene with " +
                                 std::to_string(designs.size()) + " design regions");
            u.latent.resize(designs.size());
            const auto current = session_->latent();
            for (std::size_t d = 0; d < designs.size(); ++d) {
                if (!byName.contains(designs[d].name)) {
                    u.latent[d] = current[d];
                    continue;
                }
                auto arr = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(
                    byName[py::str(designs[d].name)]);
                if (!arr)
                    throw InputError("latent['" + designs[d].name + "']: not a numeric array");
                u.latent[d].assign(arr.data(), arr.data() + arr.size());
            }
        }
        if (!beta.is_none())
            u.beta = beta.cast<std::vector<double>>();
        if (!weights.is_none())
            u.weights = weights.cast<std::vector<double>>();
        pump_.reset();
        auto out = std::make_shared<PyRunResult>();
        out->result = pump_.run<run::RunResult>([&] { return session_->evaluate(u); },
                                                options_.communicator != nullptr);
        out->timeline = pump_.takeTimeline();
        out->interrupted = pump_.interrupted();
        return out;
    }

    void serve() {
        alive();
        pump_.run<int>(
            [&] {
                session_->serve();
                return 0;
            },
            true);
    }

    void close() {
        // Under MPI only rank 0 closes (the serving ranks return from serve()).
        if (session_ && (!options_.communicator || options_.communicator->rank() == 0))
            session_->close();
    }

    int evaluations() const { return alive().evaluations(); }
    std::vector<std::size_t> designSizes() const { return alive().designSizes(); }
    std::vector<std::string> designNames() const {
        std::vector<std::string> n;
        for (const auto& d : scene_->designs)
            n.push_back(d.name);
        return n;
    }
    py::dict latent() const {
        py::dict d;
        const auto values = alive().latent();
        for (std::size_t i = 0; i < values.size(); ++i) {
            const auto v = scene_->designVoxels(i);
            py::array_t<double> a({v[2], v[1], v[0]});
            std::copy(values[i].begin(), values[i].end(), a.mutable_data());
            d[py::str(scene_->designs[i].name)] = a;
        }
        return d;
    }
    bool gradient() const { return options_.gradient; }

private:
    const run::Session& alive() const {
        if (!session_)
            throw RunError("Session: released (MPI was finalised)");
        return *session_;
    }

    std::shared_ptr<scene::Scene> scene_;
    Pump pump_;
    run::RunOptions options_;
    std::shared_ptr<run::Session> session_;
};

} // namespace

void releaseMpiSessions() {
    const std::set<PySession*> sessions = gMpiSessions;
    for (PySession* s : sessions)
        s->release();
}

namespace {

constexpr const char* kOptionsDoc = R"doc(
Keyword options (None: the scene's "run" section, as yee-run without the option):
  tiles=(px, py, pz)   tile grid, one device per tile
  devices="cpu:2"      "cpu:N", "cuda:0,1", "cuda:all" (no GPU: CPU devices, with a note)
  precision            "float32" | "float64"
  overlap              overlap halo exchange with interior work (bits are the same either way)
  max_steps            stop after this many steps
  capacity             bytes per device ("80GiB", "H100", ...) for the memory check
  guard_interval       steps between cancel/NaN checks (default 64): Ctrl-C stops within this many
  threads_per_device   host threads per emulated device
  telemetry_interval   seconds between progress reports (default 0.25; reports come at guard steps)
  progress             callable(yee.Report) on the calling thread; returning False cancels
Under mpirun with more than one rank, each rank runs one tile (tiles must match the rank count) and
only rank 0 gets the assembled result.
)doc";

} // namespace

void bindRun(py::module_& m) {
    using OptA3 = std::optional<std::array<int, 3>>;
    using OptS = std::optional<std::string>;
    using OptB = std::optional<bool>;
    using OptI = std::optional<int>;
    using OptD = std::optional<double>;

    m.def(
        "run",
        [](const PyScene& s, OptA3 tiles, OptS devices, OptS precision, OptB overlap, OptI maxSteps,
           OptS capacity, OptI guardInterval, OptI threadsPerDevice, OptD telemetryInterval,
           py::object progress, bool gradient, py::object latent) {
            return runScene(s, latent,
                            optionArgs(tiles, devices, precision, overlap, maxSteps, capacity, guardInterval,
                                       threadsPerDevice, telemetryInterval, gradient),
                            progress);
        },
        py::arg("scene"), py::kw_only(), py::arg("tiles") = py::none(), py::arg("devices") = py::none(),
        py::arg("precision") = py::none(), py::arg("overlap") = py::none(), py::arg("max_steps") = py::none(),
        py::arg("capacity") = py::none(), py::arg("guard_interval") = py::none(),
        py::arg("threads_per_device") = py::none(), py::arg("telemetry_interval") = py::none(),
        py::arg("progress") = py::none(), py::arg("gradient") = false, py::arg("latent") = py::none(),
        (std::string("Run the scene forward (gradient=True: value-and-grad) and return a RunResult.\n"
                     "latent={design: array} runs with those latent values instead of the scene's.\n") +
         kOptionsDoc)
            .c_str());

    m.def(
        "gpu_count", [] { return cuda::deviceCount(); },
        "Usable CUDA GPUs (0 in a build without CUDA or on a machine without a GPU driver).");

    m.def(
        "estimate_memory",
        [](const PyScene& s, OptA3 tiles, OptS devices, OptS precision, OptI maxSteps, OptS capacity,
           bool gradient) {
            scene::validateScene(*s.scene);
            const run::RunOptions o =
                makeOptions(*s.scene, optionArgs(tiles, devices, precision, std::nullopt, maxSteps, capacity,
                                                 std::nullopt, std::nullopt, std::nullopt, gradient));
            py::gil_scoped_release release;
            return run::estimate(*s.scene, o);
        },
        py::arg("scene"), py::kw_only(), py::arg("tiles") = py::none(), py::arg("devices") = py::none(),
        py::arg("precision") = py::none(), py::arg("max_steps") = py::none(),
        py::arg("capacity") = py::none(), py::arg("gradient") = false,
        "Per-device memory estimate of the run these options describe (nothing is allocated).");

    py::class_<PySession>(m, "Session",
                          (std::string(R"doc(
A prepared scene evaluated many times (run::Session): planned, rasterised and allocated once; each
evaluate() sets new latent values and runs forward (gradient=True: and the reverse sweep) with the
same bits as a fresh yee.run of the scene with those values.
)doc") + kOptionsDoc)
                              .c_str())
        .def(py::init([](const PyScene& s, OptA3 tiles, OptS devices, OptS precision, OptB overlap,
                         OptI maxSteps, OptS capacity, OptI guardInterval, OptI threadsPerDevice,
                         OptD telemetryInterval, py::object progress, bool gradient) {
                 return std::make_unique<PySession>(s,
                                                    optionArgs(tiles, devices, precision, overlap, maxSteps,
                                                               capacity, guardInterval, threadsPerDevice,
                                                               telemetryInterval, gradient),
                                                    std::move(progress));
             }),
             py::arg("scene"), py::kw_only(), py::arg("tiles") = py::none(), py::arg("devices") = py::none(),
             py::arg("precision") = py::none(), py::arg("overlap") = py::none(),
             py::arg("max_steps") = py::none(), py::arg("capacity") = py::none(),
             py::arg("guard_interval") = py::none(), py::arg("threads_per_device") = py::none(),
             py::arg("telemetry_interval") = py::none(), py::arg("progress") = py::none(),
             py::arg("gradient") = true)
        .def("evaluate", &PySession::evaluate, py::arg("latent") = py::none(), py::arg("beta") = py::none(),
             py::arg("weights") = py::none(), R"doc(
One evaluation. latent: {design: array} (or one array for a single design region; values in [0, 1],
x fastest); beta: projection steepness per design; weights: objective term weights. Returns a
RunResult (objective, gradients when the session was made with gradient=True).
)doc")
        .def("serve", &PySession::serve,
             "MPI ranks other than 0: evaluate what rank 0 sends until it closes.")
        .def("close", &PySession::close, "Stop the tiles (rank 0 under MPI: release the serving ranks).")
        .def_property_readonly("evaluations", &PySession::evaluations)
        .def_property_readonly("design_sizes", &PySession::designSizes)
        .def_property_readonly("design_names", &PySession::designNames)
        .def_property_readonly("gradient", &PySession::gradient)
        .def("latent", &PySession::latent, "Current latent values {design: array (vz, vy, vx)} (copies).")
        .def("__enter__", [](py::object self) { return self; })
        .def("__exit__", [](PySession& s, py::args) { s.close(); });
}

} // namespace yee::python

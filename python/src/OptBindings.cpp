/// \file OptBindings.cpp
/// yee.optimize over opt::optimize() (MMA/CCSA/Adam on a prepared session, history and resume) when the
/// build has the optimisation module (NLopt); otherwise yee.optimize raises RuntimeError saying so.
#include "Bindings.hpp"

#ifdef YEE_PYTHON_HAVE_OPT
#include "yee/opt/Optimize.hpp"
#endif

namespace yee::python {

#ifdef YEE_PYTHON_HAVE_OPT
namespace {

/// (k) or (k, n) float64 copy of a per-design list of vectors.
py::list arrays(const std::vector<std::vector<double>>& v) {
    py::list l;
    for (const auto& x : v)
        l.append(py::array_t<double>(py::ssize_t(x.size()), x.data()));
    return l;
}

/// What the loop found, with the design values shaped per region.
struct PyOptResult {
    opt::OptResult result;
    std::vector<std::string> designs;
    std::vector<std::array<int, 3>> voxels;
    bool interrupted = false;
};

} // namespace
#endif

void bindOpt(py::module_& m) {
#ifdef YEE_PYTHON_HAVE_OPT
    py::class_<opt::Evaluation>(m, "Evaluation", "One evaluation of the optimisation (a history row).")
        .def_readonly("stage", &opt::Evaluation::stage)
        .def_readonly("beta", &opt::Evaluation::beta)
        .def_readonly("merit", &opt::Evaluation::merit)
        .def_readonly("objective", &opt::Evaluation::objective)
        .def_readonly("terms", &opt::Evaluation::terms)
        .def_readonly("constraints", &opt::Evaluation::constraints)
        .def_readonly("grad_norm", &opt::Evaluation::gradNorm)
        .def_readonly("binarisation", &opt::Evaluation::binarisation)
        .def_readonly("seconds", &opt::Evaluation::seconds)
        .def_readonly("peak_bytes", &opt::Evaluation::peakBytes)
        .def_property_readonly("latent", [](const opt::Evaluation& e) { return arrays(e.latent); })
        .def_property_readonly("density", [](const opt::Evaluation& e) { return arrays(e.density); })
        .def("__repr__", [](const opt::Evaluation& e) {
            return "<yee.Evaluation merit " + std::to_string(e.merit) + ">";
        });

    py::class_<PyOptResult, std::shared_ptr<PyOptResult>>(m, "OptResult", "What yee.optimize found.")
        .def_property_readonly("completed", [](const PyOptResult& r) { return r.result.completed; })
        .def_property_readonly("status", [](const PyOptResult& r) { return r.result.status; })
        .def_readonly("interrupted", &PyOptResult::interrupted)
        .def_property_readonly("history", [](const PyOptResult& r) { return r.result.history; })
        .def_property_readonly("replayed", [](const PyOptResult& r) { return r.result.replayed; })
        .def_property_readonly("best", [](const PyOptResult& r) { return r.result.best; })
        .def_property_readonly(
            "latent",
            [](const PyOptResult& r) {
                py::dict d;
                for (std::size_t i = 0; i < r.result.latent.size() && i < r.designs.size(); ++i) {
                    const auto v = r.voxels[i];
                    py::array_t<double> a({v[2], v[1], v[0]});
                    std::copy(r.result.latent[i].begin(), r.result.latent[i].end(), a.mutable_data());
                    d[py::str(r.designs[i])] = a;
                }
                return d;
            },
            "The chosen point {design: latent (vz, vy, vx)}.");

    m.def(
        "optimize",
        [](const PyScene& ps, std::optional<int> iterations, std::string history, std::string resume,
           std::optional<int> maxEvaluations, py::object onEvaluation,
           std::optional<std::array<int, 3>> tiles, std::optional<std::string> devices,
           std::optional<std::string> precision, py::object progress) {
            scene::Scene s = *ps.scene;
            if (iterations)
                s.optimization.iterations = *iterations;
            opt::checkOptimization(s);
            OptionArgs a;
            a.tiles = tiles;
            a.devices = devices;
            a.precision = precision;
            run::RunOptions o = makeOptions(s, a);
            Pump pump(progress);
            pump.attach(o);
            o.cancel = nullptr; // a stop request ends the loop after the current evaluation
            opt::OptOptions oo;
            oo.historyPath = history;
            oo.resumePath = resume;
            oo.cancel = pump.cancelFlag();
            if (maxEvaluations)
                oo.maxEvaluations = *maxEvaluations;
            std::optional<py::error_already_set> callbackError;
            if (!onEvaluation.is_none())
                oo.onEvaluation = [&](int i, const opt::Evaluation& e) {
                    py::gil_scoped_acquire gil;
                    if (callbackError)
                        return;
                    try {
                        onEvaluation(i, e);
                    } catch (py::error_already_set& err) {
                        callbackError.emplace(std::move(err));
                        const_cast<std::atomic<bool>*>(pump.cancelFlag())->store(true);
                    }
                };
            auto out = std::make_shared<PyOptResult>();
            out->result =
                pump.run<opt::OptResult>([&] { return opt::optimize(s, o, oo); }, o.communicator != nullptr);
            out->interrupted = pump.interrupted();
            for (std::size_t d = 0; d < s.designs.size(); ++d) {
                out->designs.push_back(s.designs[d].name);
                out->voxels.push_back(s.designVoxels(d));
            }
            if (callbackError) {
                py::error_already_set e = std::move(*callbackError);
                callbackError.reset();
                throw e;
            }
            return out;
        },
        py::arg("scene"), py::kw_only(), py::arg("iterations") = py::none(), py::arg("history") = "",
        py::arg("resume") = "", py::arg("max_evaluations") = py::none(),
        py::arg("on_evaluation") = py::none(), py::arg("tiles") = py::none(), py::arg("devices") = py::none(),
        py::arg("precision") = py::none(), py::arg("progress") = py::none(), R"doc(
Optimise the scene's design regions as its "optimization" section says (as yee-opt does).
history: HDF5 history written after every evaluation; resume: continue one bit for bit;
on_evaluation(index, yee.Evaluation) after each evaluation. Ctrl-C stops after the current
evaluation (the result is then incomplete, interrupted=True, the history valid).
)doc");
#else
    m.def(
        "optimize",
        [](py::args, py::kwargs) -> py::object {
            throw std::runtime_error(
                "yee.optimize: this build has no optimisation module (NLopt was not found)");
        },
        "Unavailable: this build has no optimisation module (NLopt).");
#endif
}

} // namespace yee::python

/// \file ResultBindings.cpp
/// Result types as Python objects: run results, detector results, per-device summaries (memory by
/// category, collective counts), telemetry reports, memory estimates, and HDF5 results files written
/// and read by io/ResultsWriter (the files yee-run writes).
#include "Bindings.hpp"
#include "yee/core/Error.hpp"
#include "yee/io/ResultsWriter.hpp"
#include "yee/io/RunOutputs.hpp"
#include "yee/scene/SceneJson.hpp"

namespace yee::python {

namespace {

/// {category: bytes} of a ledger array.
py::dict categories(const std::array<std::int64_t, device::kCategoryCount>& bytes) {
    py::dict d;
    for (int c = 0; c < device::kCategoryCount; ++c)
        d[device::categoryName(device::Category(c))] = bytes[std::size_t(c)];
    return d;
}

/// {phase: {kind: count}} of a collective table.
py::dict commTable(const std::array<std::array<std::int64_t, comm::kKindCount>, comm::kPhaseCount>& t) {
    py::dict out;
    for (int p = 0; p < comm::kPhaseCount; ++p) {
        py::dict kinds;
        for (int k = 0; k < comm::kKindCount; ++k)
            kinds[comm::kindName(comm::Kind(k))] = t[std::size_t(p)][std::size_t(k)];
        out[comm::phaseName(comm::Phase(p))] = kinds;
    }
    return out;
}

py::dict gradientsOf(const std::vector<solver::NamedArray>& grads, py::handle base) {
    py::dict d;
    for (const auto& g : grads)
        d[py::str(g.name)] = readOnlyView(g.data, g.shape, base);
    return d;
}

py::list detectorsOf(const std::vector<solver::DetectorResult>& dets, py::handle parent) {
    py::list l;
    for (const auto& det : dets)
        l.append(py::cast(&det, py::return_value_policy::reference_internal, parent));
    return l;
}

} // namespace

void bindResults(py::module_& m) {
    py::class_<solver::DetectorResult>(m, "DetectorResult",
                                       "What one detector recorded, assembled over tiles.")
        .def_readonly("name", &solver::DetectorResult::name)
        .def_readonly("type", &solver::DetectorResult::type)
        .def_readonly("attrs", &solver::DetectorResult::attrs, "Scalar attributes (as in the results file).")
        .def_property_readonly(
            "arrays",
            [](py::object self) {
                const auto& det = self.cast<const solver::DetectorResult&>();
                py::dict d;
                for (const auto& a : det.arrays)
                    d[py::str(a.name)] = readOnlyView(a.data, a.shape, self);
                return d;
            },
            "{name: read-only float64 array} (views, no copies; C order as in the results file).")
        .def(
            "__getitem__",
            [](py::object self, const std::string& name) {
                const auto& det = self.cast<const solver::DetectorResult&>();
                const solver::NamedArray* a = det.find(name);
                if (!a)
                    throw py::key_error("detector '" + det.name + "' has no array '" + name + "'");
                return readOnlyView(a->data, a->shape, self);
            },
            py::arg("name"))
        .def("keys",
             [](const solver::DetectorResult& d) {
                 std::vector<std::string> k;
                 for (const auto& a : d.arrays)
                     k.push_back(a.name);
                 return k;
             })
        .def("__repr__", [](const solver::DetectorResult& d) {
            return "<yee.DetectorResult '" + d.name + "' (" + d.type + "), " +
                   std::to_string(d.arrays.size()) + " arrays>";
        });

    py::class_<solver::DeviceSummary>(
        m, "DeviceSummary", "One device of a run or estimate: tile, memory by category, collectives.")
        .def_readonly("name", &solver::DeviceSummary::name)
        .def_readonly("capacity", &solver::DeviceSummary::capacity, "Bytes the device may hold.")
        .def_property_readonly("tile",
                               [](const solver::DeviceSummary& d) {
                                   return py::make_tuple(
                                       py::make_tuple(d.tile.lo[0], d.tile.lo[1], d.tile.lo[2]),
                                       py::make_tuple(d.tile.hi[0], d.tile.hi[1], d.tile.hi[2]));
                               })
        .def_property_readonly(
            "memory_peak", [](const solver::DeviceSummary& d) { return categories(d.memory.peak); },
            "{category: peak bytes}")
        .def_property_readonly(
            "memory_current", [](const solver::DeviceSummary& d) { return categories(d.memory.current); },
            "{category: bytes held at the end}")
        .def_property_readonly("peak_total",
                               [](const solver::DeviceSummary& d) { return d.memory.peakTotal; })
        .def_property_readonly(
            "comm_calls", [](const solver::DeviceSummary& d) { return commTable(d.comm.calls); },
            "{phase: {kind: calls}} collectives and halo exchanges")
        .def_property_readonly(
            "comm_bytes", [](const solver::DeviceSummary& d) { return commTable(d.comm.bytes); },
            "{phase: {kind: bytes sent}}")
        .def_readonly("driver_bytes", &solver::DeviceSummary::driverBytes)
        .def("__repr__", [](const solver::DeviceSummary& d) {
            return "<yee.DeviceSummary " + d.name + " peak " + device::formatBytes(d.memory.peakTotal) + ">";
        });

    py::class_<telemetry::PhaseProgress>(m, "PhaseProgress")
        .def_readonly("name", &telemetry::PhaseProgress::name)
        .def_readonly("step", &telemetry::PhaseProgress::step)
        .def_readonly("total_steps", &telemetry::PhaseProgress::totalSteps)
        .def_readonly("seconds", &telemetry::PhaseProgress::seconds)
        .def_property_readonly("steps_per_second", &telemetry::PhaseProgress::stepsPerSecond);

    py::class_<telemetry::DeviceReport>(m, "DeviceReport")
        .def_readonly("device", &telemetry::DeviceReport::device)
        .def_readonly("name", &telemetry::DeviceReport::name)
        .def_readonly("capacity", &telemetry::DeviceReport::capacity)
        .def_property_readonly("memory_current",
                               [](const telemetry::DeviceReport& d) { return categories(d.memory.current); })
        .def_property_readonly("memory_peak",
                               [](const telemetry::DeviceReport& d) { return categories(d.memory.peak); })
        .def_property_readonly("comm_calls",
                               [](const telemetry::DeviceReport& d) { return commTable(d.comm.calls); });

    py::class_<telemetry::Report>(m, "Report", "A live progress report (the progress callback's argument).")
        .def_readonly("phase", &telemetry::Report::phase)
        .def_readonly("step", &telemetry::Report::step)
        .def_readonly("total_steps", &telemetry::Report::totalSteps)
        .def_readonly("elapsed_seconds", &telemetry::Report::elapsedSeconds)
        .def_readonly("steps_per_second", &telemetry::Report::stepsPerSecond)
        .def_readonly("cell_updates_per_second", &telemetry::Report::cellUpdatesPerSecond)
        .def_readonly("remaining_seconds", &telemetry::Report::remainingSeconds)
        .def_readonly("phases", &telemetry::Report::phases)
        .def_readonly("devices", &telemetry::Report::devices)
        .def("__repr__", [](const telemetry::Report& r) {
            return "<yee.Report " + r.phase + " " + std::to_string(r.step) + "/" +
                   std::to_string(r.totalSteps) + ">";
        });

    py::class_<PyRunResult, std::shared_ptr<PyRunResult>>(m, "RunResult",
                                                          "The result of a run (rank 0: assembled).")
        .def_property_readonly("completed", [](const PyRunResult& r) { return r.result.completed; })
        .def_property_readonly("status", [](const PyRunResult& r) { return r.result.status; })
        .def_readonly("interrupted", &PyRunResult::interrupted,
                      "True when KeyboardInterrupt (or the progress callback) stopped the run.")
        .def_property_readonly("failed_outputs", [](const PyRunResult& r) { return r.result.failedOutputs; })
        .def_property_readonly("steps", [](const PyRunResult& r) { return r.result.steps; })
        .def_property_readonly("total_steps", [](const PyRunResult& r) { return r.result.totalSteps; })
        .def_property_readonly("dt_fs", [](const PyRunResult& r) { return r.result.dtFs; })
        .def_property_readonly("seconds", [](const PyRunResult& r) { return r.result.seconds; })
        .def_property_readonly("forward_seconds",
                               [](const PyRunResult& r) { return r.result.forwardSeconds; })
        .def_property_readonly("backward_seconds",
                               [](const PyRunResult& r) { return r.result.backwardSeconds; })
        .def_property_readonly("cell_updates", [](const PyRunResult& r) { return r.result.cellUpdates; })
        .def_property_readonly("grid_cells", [](const PyRunResult& r) { return r.result.gridCells; })
        .def_property_readonly(
            "objective", [](const PyRunResult& r) { return r.result.objective; },
            "The objective's value (None without an objective).")
        .def_property_readonly(
            "objective_terms",
            [](py::object self) {
                const auto& r = self.cast<const PyRunResult&>();
                return readOnlyView(r.result.objectiveTerms, {std::int64_t(r.result.objectiveTerms.size())},
                                    self);
            },
            "Unweighted value of each objective term (term order).")
        .def_property_readonly(
            "detectors",
            [](py::object self) {
                const auto& r = self.cast<const PyRunResult&>();
                py::dict d;
                for (py::handle det : detectorsOf(r.result.detectors, self))
                    d[det.attr("name")] = det;
                return d;
            },
            "{name: DetectorResult}")
        .def_property_readonly(
            "gradients",
            [](py::object self) {
                return gradientsOf(self.cast<const PyRunResult&>().result.gradients, self);
            },
            "{design: dJ/dlatent, shape (vz, vy, vx)} (value-and-grad runs)")
        .def_property_readonly(
            "devices",
            [](py::object self) {
                py::list l;
                for (const auto& d : self.cast<const PyRunResult&>().result.devices)
                    l.append(py::cast(&d, py::return_value_policy::reference_internal, self));
                return l;
            },
            "Per device: memory by category and collective counts.")
        .def_property_readonly("phases", [](const PyRunResult& r) { return r.result.phases; })
        .def_readonly("timeline", &PyRunResult::timeline, "Every telemetry report of the run, in order.")
        .def(
            "write",
            [](PyRunResult& r, const std::string& path, const PyScene& s, const std::string& snapshotsDir) {
                io::ResultsExtras extras;
                for (const auto& g : r.result.gradients)
                    extras.gradients[g.name] = g;
                extras.timeline = r.timeline;
                std::string dir = snapshotsDir;
                if (dir.empty()) {
                    const auto dot = path.rfind(".results.h5");
                    dir = (dot != std::string::npos ? path.substr(0, dot) : path) + ".fields";
                }
                py::gil_scoped_release release;
                io::writeRunOutputs({path, dir}, *s.scene, scene::sceneToJson(*s.scene), r.result, extras);
            },
            py::arg("path"), py::arg("scene"), py::arg("snapshots_dir") = "",
            "Write the HDF5 results file (and snapshot series) as yee-run does.")
        .def("__repr__", [](const PyRunResult& r) {
            return "<yee.RunResult " + r.result.status + ", " + std::to_string(r.result.steps) + "/" +
                   std::to_string(r.result.totalSteps) + " steps>";
        });

    py::class_<run::Estimate>(m, "Estimate", "Per-device memory estimate (a dry run of the allocation path).")
        .def_readonly("grid_cells", &run::Estimate::gridCells)
        .def_readonly("steps", &run::Estimate::steps)
        .def_readonly("devices", &run::Estimate::devices)
        .def_readonly("capacity_note", &run::Estimate::capacityNote)
        .def_readonly("recompute_steps", &run::Estimate::recomputeSteps)
        .def_property_readonly("max_device_peak", &run::Estimate::maxDevicePeak)
        .def_property_readonly("total_peak", &run::Estimate::totalPeak)
        .def(
            "check", [](const run::Estimate& e) { run::checkFits(e); },
            "Raise DeviceMemoryError when a device's peak exceeds its capacity (the run's own verdict).")
        .def_property_readonly("fits", [](const run::Estimate& e) {
            try {
                run::checkFits(e);
                return true;
            } catch (const MemoryError&) {
                return false;
            }
        });

    py::class_<io::ResultsFile, std::shared_ptr<io::ResultsFile>>(m, "ResultsFile",
                                                                  "An HDF5 results file, read.")
        .def_readonly("version", &io::ResultsFile::version)
        .def_readonly("yee_version", &io::ResultsFile::yeeVersion)
        .def_readonly("scene_hash", &io::ResultsFile::sceneHash)
        .def_readonly("scene_name", &io::ResultsFile::sceneName)
        .def_readonly("scene_json", &io::ResultsFile::sceneJson)
        .def_readonly("status", &io::ResultsFile::status)
        .def_readonly("complete", &io::ResultsFile::complete)
        .def_readonly("failed_outputs", &io::ResultsFile::failedOutputs)
        .def_readonly("steps", &io::ResultsFile::steps)
        .def_readonly("total_steps", &io::ResultsFile::totalSteps)
        .def_readonly("dt_fs", &io::ResultsFile::dtFs)
        .def_readonly("grid_cells", &io::ResultsFile::gridCells)
        .def_readonly("objective", &io::ResultsFile::objective)
        .def_readonly("wall_seconds", &io::ResultsFile::wallSeconds)
        .def_readonly("cell_updates", &io::ResultsFile::cellUpdates)
        .def_readonly("phases", &io::ResultsFile::phases)
        .def_property_readonly(
            "detectors",
            [](py::object self) {
                py::dict d;
                for (py::handle det : detectorsOf(self.cast<const io::ResultsFile&>().detectors, self))
                    d[det.attr("name")] = det;
                return d;
            },
            "{name: DetectorResult}")
        .def_property_readonly(
            "gradients",
            [](py::object self) {
                py::dict d;
                for (const auto& [name, g] : self.cast<const io::ResultsFile&>().gradients)
                    d[py::str(name)] = readOnlyView(g.data, g.shape, self);
                return d;
            },
            "{design: gradient array}")
        .def_property_readonly("devices",
                               [](py::object self) {
                                   py::list l;
                                   for (const auto& d : self.cast<const io::ResultsFile&>().devices)
                                       l.append(
                                           py::cast(&d, py::return_value_policy::reference_internal, self));
                                   return l;
                               })
        .def("__repr__", [](const io::ResultsFile& f) {
            return "<yee.ResultsFile '" + f.sceneName + "' " + f.status + ">";
        });

    m.def(
        "read_results",
        [](const std::string& path) { return std::make_shared<io::ResultsFile>(io::readResults(path)); },
        py::arg("path"), "Read an HDF5 results file (yee-run's or RunResult.write's). Raises SceneError.");
}

} // namespace yee::python

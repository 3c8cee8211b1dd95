#include "yee/io/ResultsWriter.hpp"

#include <algorithm>

#include "yee/core/Error.hpp"
#include "yee/files/AtomicFile.hpp"
#include "yee/files/FaultInjection.hpp"
#include "yee/files/Hdf5Util.hpp"
#include "yee/scene/Scene.hpp"
#include "yee/scene/SceneJson.hpp"

namespace yee::io {

namespace h5 = files::h5;

namespace {

/// Names become HDF5 link names: refuse the ones HDF5 would misread as paths.
const std::string& linkName(const std::string& name, const char* what) {
    if (name.empty() || name == "." || name.find('/') != std::string::npos)
        throw RunError(std::string("cannot store ") + what + " '" + name +
                       "' in a results file: names must be non-empty and contain no '/'");
    return name;
}

std::vector<std::string> categoryNames() {
    std::vector<std::string> v;
    for (int c = 0; c < device::kCategoryCount; ++c)
        v.emplace_back(device::categoryName(device::Category(c)));
    return v;
}

std::vector<std::string> phaseNames() {
    std::vector<std::string> v;
    for (int p = 0; p < comm::kPhaseCount; ++p)
        v.emplace_back(comm::phaseName(comm::Phase(p)));
    return v;
}

std::vector<std::string> kindNames() {
    std::vector<std::string> v;
    for (int k = 0; k < comm::kKindCount; ++k)
        v.emplace_back(comm::kindName(comm::Kind(k)));
    return v;
}

void writeDetectors(hid_t file, const std::vector<solver::DetectorResult>& detectors) {
    h5::Handle group = h5::createGroup(file, "detectors");
    for (const auto& d : detectors) {
        h5::Handle g = h5::createGroup(group, linkName(d.name, "detector"));
        h5::writeAttr(g, "type", d.type);
        for (const auto& [key, value] : d.attrs)
            if (key != "type")
                h5::writeAttr(g, key, value);
        for (const auto& a : d.arrays)
            h5::writeDataset(g, linkName(a.name, "detector array"), a.shape, a.data);
    }
}

void writeSParameters(hid_t file, const run::SParameters& sp) {
    h5::Handle g = h5::createGroup(file, "s_parameters");
    h5::writeAttr(g, "ports", sp.ports);
    h5::writeAttr(g, "detectors", sp.detectors);
    h5::writeAttr(g, "excited_port", sp.ports[std::size_t(sp.excited)]);
    const std::int64_t L = std::int64_t(sp.wavelengthsUm.size()), N = std::int64_t(sp.ports.size());
    std::vector<double> re, im;
    for (const auto& v : sp.s) {
        re.push_back(v.real());
        im.push_back(v.imag());
    }
    h5::writeDataset(g, "wavelengths_um", {L}, sp.wavelengthsUm);
    h5::writeDataset(g, "s_re", {L, N}, re);
    h5::writeDataset(g, "s_im", {L, N}, im);
}

run::SParameters readSParameters(hid_t file) {
    h5::Handle g = h5::openGroup(file, "s_parameters");
    run::SParameters sp;
    sp.ports = h5::readStringArrayAttr(g, "ports");
    sp.detectors = h5::readStringArrayAttr(g, "detectors");
    const std::string excited = h5::readStringAttr(g, "excited_port");
    sp.excited = int(std::find(sp.ports.begin(), sp.ports.end(), excited) - sp.ports.begin());
    sp.wavelengthsUm = h5::readDoubles(h5::openDataset(g, "wavelengths_um"));
    const std::vector<double> re = h5::readDoubles(h5::openDataset(g, "s_re")),
                              im = h5::readDoubles(h5::openDataset(g, "s_im"));
    if (re.size() != im.size() || re.size() != sp.wavelengthsUm.size() * sp.ports.size() ||
        sp.excited >= int(sp.ports.size()))
        throw RunError("s_parameters: inconsistent shapes or excited port");
    for (std::size_t k = 0; k < re.size(); ++k)
        sp.s.emplace_back(re[k], im[k]);
    return sp;
}

void writeDeviceTables(hid_t telemetry, const std::vector<solver::DeviceSummary>& devices) {
    h5::Handle g = h5::createGroup(telemetry, "devices");
    const auto n = std::int64_t(devices.size());
    std::vector<std::string> names;
    std::vector<std::int64_t> capacity, tile, peak, current, peakTotal, calls, bytes;
    for (const auto& d : devices) {
        names.push_back(d.name);
        capacity.push_back(d.capacity);
        tile.insert(tile.end(), d.tile.lo.begin(), d.tile.lo.end());
        tile.insert(tile.end(), d.tile.hi.begin(), d.tile.hi.end());
        peak.insert(peak.end(), d.memory.peak.begin(), d.memory.peak.end());
        current.insert(current.end(), d.memory.current.begin(), d.memory.current.end());
        peakTotal.push_back(d.memory.peakTotal);
        for (int p = 0; p < comm::kPhaseCount; ++p)
            for (int k = 0; k < comm::kKindCount; ++k) {
                calls.push_back(d.comm.calls[p][k]);
                bytes.push_back(d.comm.bytes[p][k]);
            }
    }
    h5::writeAttr(g, "names", names);
    h5::writeDataset(g, "capacity", {n}, capacity);
    h5::writeDataset(g, "tile", {n, 6}, tile);
    const std::int64_t cats = device::kCategoryCount;
    h5::writeAttr(h5::writeDataset(g, "memory_peak", {n, cats}, peak), "categories", categoryNames());
    h5::writeAttr(h5::writeDataset(g, "memory_current", {n, cats}, current), "categories", categoryNames());
    h5::writeDataset(g, "memory_peak_total", {n}, peakTotal);
    for (auto [name, data] : {std::pair{"comm_calls", &calls}, std::pair{"comm_bytes", &bytes}}) {
        h5::Handle ds = h5::writeDataset(g, name, {n, comm::kPhaseCount, comm::kKindCount}, *data);
        h5::writeAttr(ds, "phases", phaseNames());
        h5::writeAttr(ds, "kinds", kindNames());
    }
}

void writePhases(hid_t telemetry, const std::vector<telemetry::PhaseProgress>& phases) {
    h5::Handle g = h5::createGroup(telemetry, "phases");
    std::vector<std::string> names;
    std::vector<std::int64_t> steps, total;
    std::vector<double> seconds;
    for (const auto& ph : phases) {
        names.push_back(ph.name);
        steps.push_back(ph.step);
        total.push_back(ph.totalSteps);
        seconds.push_back(ph.seconds);
    }
    h5::writeAttr(g, "names", names);
    h5::writeAttr(g, "steps", steps);
    h5::writeAttr(g, "total_steps", total);
    h5::writeAttr(g, "seconds", seconds);
}

std::vector<telemetry::PhaseProgress> readPhases(hid_t telemetry) {
    std::vector<telemetry::PhaseProgress> out;
    if (!h5::exists(telemetry, "phases"))
        return out;
    h5::Handle g = h5::openGroup(telemetry, "phases");
    const auto names = h5::readStringArrayAttr(g, "names");
    const auto steps = h5::readIntArrayAttr(g, "steps");
    const auto total = h5::readIntArrayAttr(g, "total_steps");
    const auto seconds = h5::readDoubleArrayAttr(g, "seconds");
    if (steps.size() != names.size() || total.size() != names.size() || seconds.size() != names.size())
        throw RunError("telemetry/phases: attributes disagree in length");
    for (std::size_t i = 0; i < names.size(); ++i)
        out.push_back({names[i], steps[i], total[i], seconds[i]});
    return out;
}

void writeTimeline(hid_t telemetry, const std::vector<telemetry::Report>& reports) {
    h5::Handle g = h5::createGroup(telemetry, "timeline");
    const auto n = std::int64_t(reports.size());
    std::size_t devices = 0;
    for (const auto& r : reports)
        devices = std::max(devices, r.devices.size());
    std::vector<std::string> phase;
    std::vector<std::int64_t> step, memory(std::size_t(n) * devices, 0);
    std::vector<double> elapsed, stepsPerS, cellsPerS;
    for (std::size_t i = 0; i < reports.size(); ++i) {
        const auto& r = reports[i];
        phase.push_back(r.phase);
        step.push_back(r.step);
        elapsed.push_back(r.elapsedSeconds);
        stepsPerS.push_back(r.stepsPerSecond);
        cellsPerS.push_back(r.cellUpdatesPerSecond);
        for (std::size_t d = 0; d < r.devices.size(); ++d)
            memory[i * devices + d] = r.devices[d].memory.currentTotal;
    }
    h5::writeStringArrayDataset(g, "phase", phase);
    h5::writeDataset(g, "step", {n}, step);
    h5::writeDataset(g, "elapsed_s", {n}, elapsed);
    h5::writeDataset(g, "steps_per_s", {n}, stepsPerS);
    h5::writeDataset(g, "cell_updates_per_s", {n}, cellsPerS);
    h5::writeDataset(g, "memory_current", {n, std::int64_t(devices)}, memory);
}

void writeFile(const std::string& path, const scene::Scene& scene, const std::string& sceneJson,
               const run::RunResult& result, const ResultsExtras& extras) {
    h5::Handle file = h5::createFile(path);
    h5::writeAttr(file, "format", kResultsFormat);
    h5::writeAttr(file, "version", kResultsVersion);
    h5::writeAttr(file, "yee_version", YEE_VERSION);
    h5::writeAttr(file, "scene_hash", scene::sceneHash(scene));
    h5::writeAttr(file, "scene_name", scene.name);
    h5::writeAttr(file, "status", resultsStatus(result));
    h5::writeAttr(file, "complete", result.completed ? 1 : 0);
    if (!result.failedOutputs.empty())
        h5::writeAttr(file, "failed_outputs", result.failedOutputs);
    h5::writeAttr(file, "steps", result.steps);
    h5::writeAttr(file, "total_steps", result.totalSteps);
    h5::writeAttr(file, "dt_fs", result.dtFs);
    h5::writeAttr(file, "grid_cells",
                  std::vector<std::int64_t>(result.gridCells.begin(), result.gridCells.end()));

    h5::writeStringDataset(file, "scene", sceneJson);
    writeDetectors(file, result.detectors);
    files::failIfInjected("results", path);
    if (extras.sParameters)
        writeSParameters(file, *extras.sParameters);
    if (result.objective)
        h5::writeDataset(file, "objective", {}, std::vector<double>{*result.objective});
    if (!extras.gradients.empty()) {
        h5::Handle g = h5::createGroup(file, "gradient");
        for (const auto& [design, array] : extras.gradients)
            h5::writeDataset(g, linkName(design, "design"), array.shape, array.data);
    }
    if (!extras.snapshotSeries.empty()) {
        h5::Handle g = h5::createGroup(file, "snapshots");
        for (const auto& [detector, series] : extras.snapshotSeries)
            h5::writeAttr(h5::createGroup(g, linkName(detector, "detector")), "series", series);
    }

    h5::Handle telemetry = h5::createGroup(file, "telemetry");
    h5::writeAttr(telemetry, "wall_seconds", result.seconds);
    h5::writeAttr(telemetry, "cell_updates", result.cellUpdates);
    // Cell updates are forward steps: their rate is the forward sweep's.
    const double forwardSeconds = result.forwardSeconds > 0 ? result.forwardSeconds : result.seconds;
    h5::writeAttr(telemetry, "cell_updates_per_second",
                  forwardSeconds > 0 ? double(result.cellUpdates) / forwardSeconds : 0.0);
    writeDeviceTables(telemetry, result.devices);
    if (!result.phases.empty())
        writePhases(telemetry, result.phases);
    if (!extras.timeline.empty())
        writeTimeline(telemetry, extras.timeline);
    telemetry = h5::Handle();
    file.close("closing '" + path + "'");
}

/// Index of `name` in `known` (the names this build uses), or -1.
int indexOf(const std::vector<std::string>& known, const std::string& name) {
    auto it = std::find(known.begin(), known.end(), name);
    return it == known.end() ? -1 : int(it - known.begin());
}

std::vector<solver::DeviceSummary> readDeviceTables(hid_t telemetry) {
    std::vector<solver::DeviceSummary> out;
    if (!h5::exists(telemetry, "devices"))
        return out;
    h5::Handle g = h5::openGroup(telemetry, "devices");
    auto names = h5::readStringArrayAttr(g, "names");
    const std::size_t n = names.size();
    out.resize(n);
    for (std::size_t d = 0; d < n; ++d)
        out[d].name = names[d];

    auto capacity = h5::readInts(h5::openDataset(g, "capacity"));
    auto tile = h5::readInts(h5::openDataset(g, "tile"));
    auto peakTotal = h5::readInts(h5::openDataset(g, "memory_peak_total"));
    for (std::size_t d = 0; d < n && d < capacity.size(); ++d)
        out[d].capacity = capacity[d];
    for (std::size_t d = 0; d < n && 6 * d + 5 < tile.size(); ++d)
        for (int a = 0; a < 3; ++a) {
            out[d].tile.lo[a] = int(tile[6 * d + a]);
            out[d].tile.hi[a] = int(tile[6 * d + 3 + a]);
        }
    for (std::size_t d = 0; d < n && d < peakTotal.size(); ++d)
        out[d].memory.peakTotal = peakTotal[d];

    const auto known = categoryNames();
    for (auto [name, isPeak] : {std::pair{"memory_peak", true}, std::pair{"memory_current", false}}) {
        h5::Handle ds = h5::openDataset(g, name);
        auto cats = h5::readStringArrayAttr(ds, "categories");
        auto v = h5::readInts(ds);
        for (std::size_t d = 0; d < n; ++d)
            for (std::size_t c = 0; c < cats.size() && d * cats.size() + c < v.size(); ++c) {
                int i = indexOf(known, cats[c]);
                if (i < 0)
                    continue;
                std::int64_t value = v[d * cats.size() + c];
                (isPeak ? out[d].memory.peak : out[d].memory.current)[std::size_t(i)] = value;
                if (!isPeak)
                    out[d].memory.currentTotal += value;
            }
    }

    const auto knownPhases = phaseNames();
    const auto knownKinds = kindNames();
    for (auto [name, isCalls] : {std::pair{"comm_calls", true}, std::pair{"comm_bytes", false}}) {
        h5::Handle ds = h5::openDataset(g, name);
        auto phases = h5::readStringArrayAttr(ds, "phases");
        auto kinds = h5::readStringArrayAttr(ds, "kinds");
        auto v = h5::readInts(ds);
        const std::size_t np = phases.size(), nk = kinds.size();
        if (v.size() != n * np * nk)
            throw RunError("telemetry/devices/" + std::string(name) + ": wrong shape");
        for (std::size_t d = 0; d < n; ++d)
            for (std::size_t p = 0; p < np; ++p)
                for (std::size_t k = 0; k < nk; ++k) {
                    int ip = indexOf(knownPhases, phases[p]), ik = indexOf(knownKinds, kinds[k]);
                    if (ip < 0 || ik < 0)
                        continue;
                    auto& table = isCalls ? out[d].comm.calls : out[d].comm.bytes;
                    table[std::size_t(ip)][std::size_t(ik)] = v[(d * np + p) * nk + k];
                }
    }
    return out;
}

std::vector<TimelineSample> readTimeline(hid_t telemetry) {
    std::vector<TimelineSample> out;
    if (!h5::exists(telemetry, "timeline"))
        return out;
    h5::Handle g = h5::openGroup(telemetry, "timeline");
    auto phase = h5::readStringArrayDataset(h5::openDataset(g, "phase"));
    auto step = h5::readInts(h5::openDataset(g, "step"));
    auto elapsed = h5::readDoubles(h5::openDataset(g, "elapsed_s"));
    auto stepsPerS = h5::readDoubles(h5::openDataset(g, "steps_per_s"));
    auto cellsPerS = h5::readDoubles(h5::openDataset(g, "cell_updates_per_s"));
    std::vector<std::int64_t> shape;
    auto memory = h5::readInts(h5::openDataset(g, "memory_current"), &shape);
    const std::size_t n = step.size();
    if (phase.size() != n || elapsed.size() != n || stepsPerS.size() != n || cellsPerS.size() != n ||
        shape.size() != 2 || std::size_t(shape[0]) != n)
        throw RunError("telemetry/timeline: datasets disagree in length");
    const auto devices = std::size_t(shape[1]);
    for (std::size_t i = 0; i < n; ++i) {
        TimelineSample s{phase[i], int(step[i]), elapsed[i], stepsPerS[i], cellsPerS[i], {}};
        s.deviceMemory.assign(memory.begin() + std::ptrdiff_t(i * devices),
                              memory.begin() + std::ptrdiff_t((i + 1) * devices));
        out.push_back(std::move(s));
    }
    return out;
}

solver::NamedArray readArray(hid_t loc, const std::string& name) {
    solver::NamedArray a;
    a.name = name;
    a.data = h5::readDoubles(h5::openDataset(loc, name), &a.shape);
    return a;
}

ResultsFile readFile(hid_t file) {
    ResultsFile r;
    r.version = int(h5::readIntAttr(file, "version"));
    if (r.version > kResultsVersion)
        throw InputError("results version " + std::to_string(r.version) +
                         " is newer than this build reads (" + std::to_string(kResultsVersion) + ")");
    r.yeeVersion = h5::readStringAttr(file, "yee_version");
    r.sceneHash = h5::readStringAttr(file, "scene_hash");
    r.sceneName = h5::readStringAttr(file, "scene_name");
    r.status = h5::readStringAttr(file, "status");
    r.complete = h5::readIntAttr(file, "complete") != 0;
    if (h5::hasAttr(file, "failed_outputs"))
        r.failedOutputs = h5::readStringArrayAttr(file, "failed_outputs");
    r.steps = int(h5::readIntAttr(file, "steps"));
    r.totalSteps = int(h5::readIntAttr(file, "total_steps"));
    r.dtFs = h5::readDoubleAttr(file, "dt_fs");
    auto grid = h5::readIntArrayAttr(file, "grid_cells");
    for (std::size_t a = 0; a < 3 && a < grid.size(); ++a)
        r.gridCells[a] = int(grid[a]);
    r.sceneJson = h5::readStringDataset(h5::openDataset(file, "scene"));

    if (h5::exists(file, "detectors")) {
        h5::Handle group = h5::openGroup(file, "detectors");
        for (const auto& name : h5::children(group)) {
            h5::Handle g = h5::openGroup(group, name);
            solver::DetectorResult d;
            d.name = name;
            for (const auto& attr : h5::attrNames(g)) {
                if (attr == "type")
                    d.type = h5::readStringAttr(g, attr);
                else if (!h5::attrIsString(g, attr))
                    d.attrs[attr] = h5::readDoubleAttr(g, attr);
            }
            for (const auto& array : h5::children(g))
                d.arrays.push_back(readArray(g, array));
            r.detectors.push_back(std::move(d));
        }
    }
    if (h5::exists(file, "objective")) {
        auto v = h5::readDoubles(h5::openDataset(file, "objective"));
        if (v.size() != 1)
            throw RunError("objective: expected one value");
        r.objective = v[0];
    }
    if (h5::exists(file, "s_parameters"))
        r.sParameters = readSParameters(file);
    if (h5::exists(file, "gradient")) {
        h5::Handle g = h5::openGroup(file, "gradient");
        for (const auto& name : h5::children(g))
            r.gradients[name] = readArray(g, name);
    }
    if (h5::exists(file, "snapshots")) {
        h5::Handle g = h5::openGroup(file, "snapshots");
        for (const auto& name : h5::children(g))
            r.snapshotSeries[name] = h5::readStringAttr(h5::openGroup(g, name), "series");
    }
    if (h5::exists(file, "telemetry")) {
        h5::Handle t = h5::openGroup(file, "telemetry");
        r.wallSeconds = h5::readDoubleAttr(t, "wall_seconds");
        r.cellUpdates = h5::readIntAttr(t, "cell_updates");
        r.cellUpdatesPerSecond = h5::readDoubleAttr(t, "cell_updates_per_second");
        r.devices = readDeviceTables(t);
        r.timeline = readTimeline(t);
        r.phases = readPhases(t);
    }
    return r;
}

} // namespace

const solver::DetectorResult* ResultsFile::detector(const std::string& name) const {
    for (const auto& d : detectors)
        if (d.name == name)
            return &d;
    return nullptr;
}

std::string resultsStatus(const run::RunResult& result) {
    if (result.completed)
        return "complete";
    return "incomplete: " + (result.status.empty() ? std::string("stopped") : result.status);
}

void writeResults(const std::string& path, const scene::Scene& scene, const std::string& sceneJson,
                  const run::RunResult& result, const ResultsExtras& extras) {
    files::writeAtomically(path, [&](const std::string& temp) {
        h5::Session session;
        writeFile(temp, scene, sceneJson, result, extras);
    });
}

ResultsFile readResults(const std::string& path) {
    h5::Session session;
    h5::Handle file = h5::openFileReadOnly(path);
    if (!h5::hasAttr(file, "format") || !h5::attrIsString(file, "format") ||
        h5::readStringAttr(file, "format") != kResultsFormat)
        throw InputError("'" + path + "': not a yee results file (no format=\"" + kResultsFormat +
                         "\" attribute)");
    try {
        return readFile(file);
    } catch (const InputError& e) {
        throw InputError("'" + path + "': " + e.what());
    } catch (const RunError& e) {
        throw InputError("'" + path + "': damaged results file: " + e.what());
    }
}

} // namespace yee::io

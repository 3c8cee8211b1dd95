#include "yee/io/VtkHdfWriter.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "yee/core/Error.hpp"
#include "yee/files/AtomicFile.hpp"
#include "yee/files/FaultInjection.hpp"
#include "yee/files/Hdf5Util.hpp"

namespace fs = std::filesystem;

namespace yee::io {

namespace h5 = files::h5;

namespace {

std::string safeFileName(const std::string& name) {
    std::string s = name.empty() ? std::string("snapshot") : name;
    for (char& c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_'))
            c = '_';
    return s;
}

std::string stepFileName(const std::string& stem, int step) {
    char digits[32];
    std::snprintf(digits, sizeof digits, "%06d", step);
    return stem + "_" + digits + ".vtkhdf";
}

void checkComponents(const std::vector<const solver::Snapshot*>& components) {
    if (components.empty())
        throw RunError("VTKHDF: no field components to write");
    const solver::Snapshot& first = *components.front();
    for (const auto* s : components) {
        std::int64_t n = std::int64_t(s->dims[0]) * s->dims[1] * s->dims[2];
        if (s->dims[0] <= 0 || s->dims[1] <= 0 || s->dims[2] <= 0 || std::int64_t(s->data.size()) != n)
            throw RunError("VTKHDF: snapshot '" + s->detector + "' " + s->component + " has " +
                           std::to_string(s->data.size()) + " values for dims " + std::to_string(s->dims[0]) +
                           "x" + std::to_string(s->dims[1]) + "x" + std::to_string(s->dims[2]));
        if (s->dims != first.dims || s->originUm != first.originUm || s->spacingUm != first.spacingUm ||
            s->step != first.step || s->detector != first.detector)
            throw RunError("VTKHDF: components of one file must share detector, step and grid ('" +
                           s->detector + "' " + s->component + ")");
    }
}

void writeImage(const std::string& path, const std::vector<const solver::Snapshot*>& components) {
    const solver::Snapshot& first = *components.front();
    h5::Handle file = h5::createFile(path);
    h5::writeAttr(file, "detector", first.detector);
    h5::writeAttr(file, "step", first.step);
    h5::writeAttr(file, "time_fs", first.timeFs);
    // Yee components are staggered: say where this image's samples are, so no reader has to guess.
    h5::writeAttr(file, "sample_positions",
                  std::string("each point is the value at its own position (Origin + index * Spacing) on the "
                              "Yee grid of its component; nothing is interpolated"));

    h5::Handle root = h5::createGroup(file, "VTKHDF");
    h5::writeAttr(root, "Version", std::vector<std::int64_t>{1, 0});
    h5::writeAttr(root, "Type", std::string("ImageData"), H5T_CSET_ASCII);
    const std::vector<std::int64_t> extent{0, first.dims[0] - 1, 0, first.dims[1] - 1, 0, first.dims[2] - 1};
    h5::writeAttr(root, "WholeExtent", extent);
    h5::writeAttr(root, "Origin", std::vector<double>(first.originUm.begin(), first.originUm.end()));
    h5::writeAttr(root, "Spacing", std::vector<double>(first.spacingUm.begin(), first.spacingUm.end()));
    h5::writeAttr(root, "Direction", std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1});

    h5::Handle points = h5::createGroup(root, "PointData");
    h5::writeAttr(points, "Scalars", first.component, H5T_CSET_ASCII);
    // VTK stores x fastest; HDF5's last index is fastest, so the dataset is shaped (z, y, x).
    const std::vector<hsize_t> dims{hsize_t(first.dims[2]), hsize_t(first.dims[1]), hsize_t(first.dims[0])};
    for (const auto* s : components)
        h5::writeDataset(points, s->component, dims, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, s->data.data());
    files::failIfInjected("snapshots", path);
    points = h5::Handle();
    root = h5::Handle();
    file.close("closing '" + path + "'");
}

std::map<std::string, std::vector<float>> readArrays(hid_t root, const char* group, std::int64_t expected) {
    std::map<std::string, std::vector<float>> out;
    if (!h5::exists(root, group))
        return out;
    h5::Handle g = h5::openGroup(root, group);
    for (const auto& name : h5::children(g)) {
        auto v = h5::readFloats(h5::openDataset(g, name));
        if (expected > 0 && std::int64_t(v.size()) % expected != 0)
            throw RunError(std::string(group) + "/" + name + ": " + std::to_string(v.size()) +
                           " values do not fit the image extent");
        out[name] = std::move(v);
    }
    return out;
}

VtkImage readImage(hid_t file) {
    if (!h5::exists(file, "VTKHDF"))
        throw InputError("no /VTKHDF group");
    h5::Handle root = h5::openGroup(file, "VTKHDF");
    VtkImage img;
    auto version = h5::readIntArrayAttr(root, "Version");
    if (version.size() != 2)
        throw InputError("/VTKHDF Version must hold two integers");
    img.version = {version[0], version[1]};
    if (img.version[0] < 1 || img.version[0] > 2)
        throw InputError("VTKHDF version " + std::to_string(img.version[0]) + " is not supported");
    img.type = h5::hasAttr(root, "Type") ? h5::readStringAttr(root, "Type") : std::string("ImageData");
    if (img.type != "ImageData")
        throw InputError("VTKHDF type '" + img.type + "' is not ImageData");
    if (h5::exists(root, "Steps"))
        throw InputError("time-dependent VTKHDF images are not supported");

    auto extent = h5::readIntArrayAttr(root, "WholeExtent");
    auto origin = h5::readDoubleArrayAttr(root, "Origin");
    auto spacing = h5::readDoubleArrayAttr(root, "Spacing");
    if (extent.size() != 6 || origin.size() != 3 || spacing.size() != 3)
        throw InputError("/VTKHDF WholeExtent, Origin and Spacing must hold 6, 3 and 3 values");
    for (int a = 0; a < 3; ++a) {
        img.dims[a] = int(extent[2 * a + 1] - extent[2 * a] + 1);
        img.origin[a] = origin[a] + double(extent[2 * a]) * spacing[a];
        img.spacing[a] = spacing[a];
    }
    if (h5::hasAttr(root, "Direction")) {
        auto dir = h5::readDoubleArrayAttr(root, "Direction");
        if (dir.size() != 9)
            throw InputError("/VTKHDF Direction must hold 9 values");
        std::copy(dir.begin(), dir.end(), img.direction.begin());
    }
    const std::int64_t points = std::int64_t(img.dims[0]) * img.dims[1] * img.dims[2];
    std::int64_t cells = 1;
    for (int a = 0; a < 3; ++a)
        cells *= std::max(img.dims[a] - 1, 1);
    img.pointData = readArrays(root, "PointData", points);
    img.cellData = readArrays(root, "CellData", cells);

    if (h5::hasAttr(file, "detector"))
        img.detector = h5::readStringAttr(file, "detector");
    if (h5::hasAttr(file, "step"))
        img.step = int(h5::readIntAttr(file, "step"));
    if (h5::hasAttr(file, "time_fs"))
        img.timeFs = h5::readDoubleAttr(file, "time_fs");
    return img;
}

} // namespace

void writeVtkHdf(const std::string& path, const std::vector<const solver::Snapshot*>& components) {
    checkComponents(components);
    files::writeAtomically(path, [&](const std::string& temp) {
        h5::Session session;
        writeImage(temp, components);
    });
}

void writeVtkHdf(const std::string& path, const solver::Snapshot& snapshot) {
    writeVtkHdf(path, std::vector<const solver::Snapshot*>{&snapshot});
}

void writeSeriesIndex(const std::string& path, const std::vector<SeriesEntry>& entries) {
    nlohmann::json files = nlohmann::json::array();
    for (const auto& e : entries)
        files.push_back({{"name", e.name}, {"time", e.time}});
    nlohmann::json index = {{"file-series-version", "1.0"}, {"files", files}};
    files::failIfInjected("snapshots", path);
    files::writeTextAtomically(path, index.dump(2) + "\n");
}

std::vector<SeriesEntry> readSeriesIndex(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        throw InputError("'" + path + "': no such file");
    std::vector<SeriesEntry> out;
    try {
        auto index = nlohmann::json::parse(in);
        if (index.value("file-series-version", std::string()) != "1.0")
            throw InputError("'" + path + "': file-series-version must be \"1.0\"");
        for (const auto& f : index.at("files"))
            out.push_back({f.at("name").get<std::string>(), f.at("time").get<double>()});
    } catch (const nlohmann::json::exception& e) {
        throw InputError("'" + path + "': not a file-series index: " + e.what());
    }
    return out;
}

namespace {

bool sameGrid(const solver::Snapshot& a, const solver::Snapshot& b) {
    return a.dims == b.dims && a.originUm == b.originUm && a.spacingUm == b.spacingUm;
}

/// True when every component of every step of one detector lies on the first component's grid.
bool oneGrid(const std::map<int, std::vector<const solver::Snapshot*>>& steps) {
    for (const auto& [step, components] : steps)
        for (const auto* c : components)
            if (!sameGrid(*c, *steps.begin()->second.front()))
                return false;
    return true;
}

/// Writes one series (`<stem>_<step>.vtkhdf` files and `<stem>.vtkhdf.series`) and returns the index
/// path; `names` receives the file names written.
std::string writeOneSeries(const std::string& dir, const std::string& stem,
                           const std::map<int, std::vector<const solver::Snapshot*>>& steps,
                           std::set<std::string>& names) {
    std::vector<SeriesEntry> entries;
    for (const auto& [step, components] : steps) {
        const std::string name = stepFileName(stem, step);
        writeVtkHdf((fs::path(dir) / name).string(), components);
        entries.push_back({name, components.front()->timeFs});
        names.insert(name);
    }
    const std::string index = stem + ".vtkhdf.series";
    writeSeriesIndex((fs::path(dir) / index).string(), entries);
    names.insert(index);
    return (fs::path(dir) / index).string();
}

std::string regexEscape(const std::string& s) {
    return std::regex_replace(s, std::regex(R"([.^$|()\[\]{}*+?\\-])"), R"(\$&)");
}

} // namespace

std::map<std::string, std::string> writeSnapshotSeries(const std::string& dir,
                                                       const std::vector<solver::Snapshot>& snapshots) {
    // detector -> step -> components, detectors in first-seen order.
    std::vector<std::string> order;
    std::map<std::string, std::map<int, std::vector<const solver::Snapshot*>>> byDetector;
    for (const auto& s : snapshots) {
        if (!byDetector.count(s.detector))
            order.push_back(s.detector);
        byDetector[s.detector][s.step].push_back(&s);
    }
    std::map<std::string, std::string> written;
    if (order.empty())
        return written;

    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
        throw RunError("cannot write snapshots into '" + dir + "': it is not a directory");
    fs::create_directories(dir, ec);
    if (ec)
        throw RunError("cannot create directory '" + dir + "': " + ec.message());

    std::set<std::string> stems;
    std::set<std::string> allNames;
    std::vector<std::regex> patterns;
    for (const auto& detector : order) {
        const std::string stem = safeFileName(detector);
        if (!stems.insert(stem).second)
            throw RunError("snapshot detectors '" + detector + "' and another map to the same file name '" +
                           stem + "'");
        const auto& steps = byDetector[detector];
        std::set<std::string> names;
        if (oneGrid(steps)) {
            written[detector] = writeOneSeries(dir, stem, steps, names);
        } else {
            // Yee components sit on staggered grids: one series per component, each image placed at
            // that component's own sample positions (nothing interpolated).
            std::vector<std::string> comps;
            std::map<std::string, std::map<int, std::vector<const solver::Snapshot*>>> byComponent;
            for (const auto& [step, components] : steps)
                for (const auto* c : components) {
                    if (!byComponent.count(c->component))
                        comps.push_back(c->component);
                    byComponent[c->component][step].push_back(c);
                }
            for (const auto& comp : comps) {
                const std::string key = detector + "." + comp;
                if (byDetector.count(key) || written.count(key))
                    throw RunError("snapshot detector '" + detector + "' component " + comp +
                                   " and the detector '" + key + "' map to the same series name");
                const std::string compStem = stem + "." + safeFileName(comp);
                if (!stems.insert(compStem).second)
                    throw RunError("snapshot detector '" + detector + "' component " + comp +
                                   " and another detector map to the same file name '" + compStem + "'");
                written[key] = writeOneSeries(dir, compStem, byComponent[comp], names);
            }
        }

        allNames.insert(names.begin(), names.end());
        patterns.push_back(
            std::regex(regexEscape(stem) + R"((\.[EH][xyz])?(_\d{6,}\.vtkhdf|\.vtkhdf\.series))"));
    }
    // Files of an earlier run under a detector's stem (a longer run, or the other layout: one series per
    // component or one for all) would join this run's series in ParaView's file grouping.
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (!entry.is_regular_file() || allNames.count(name))
            continue;
        for (const auto& pattern : patterns)
            if (std::regex_match(name, pattern)) {
                fs::remove(entry.path(), ec);
                break;
            }
    }
    return written;
}

VtkImage readVtkHdf(const std::string& path) {
    h5::Session session;
    h5::Handle file = h5::openFileReadOnly(path);
    try {
        return readImage(file);
    } catch (const InputError& e) {
        throw InputError("'" + path + "': " + e.what());
    } catch (const RunError& e) {
        throw InputError("'" + path + "': damaged VTKHDF file: " + e.what());
    }
}

} // namespace yee::io

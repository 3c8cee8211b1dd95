#include "yee/opt/History.hpp"

#include <functional>

#include "yee/core/Error.hpp"
#include "yee/files/AtomicFile.hpp"
#include "yee/files/Hdf5Util.hpp"

namespace yee::opt {

namespace h5 = files::h5;

namespace {
constexpr const char* kFormat = "yee-opt-history";
constexpr int kVersion = 1;

/// Rows of `k` records of `width` values each, from `get(record)`; a record of another width is a bug.
std::vector<double> rows(const std::vector<Evaluation>& ev, std::size_t width,
                         const std::function<std::vector<double>(const Evaluation&)>& get) {
    std::vector<double> out;
    out.reserve(ev.size() * width);
    for (const auto& e : ev) {
        const std::vector<double> r = get(e);
        if (r.size() != width)
            throw RunError("optimisation history: a record has " + std::to_string(r.size()) +
                           " values where " + std::to_string(width) + " were expected");
        out.insert(out.end(), r.begin(), r.end());
    }
    return out;
}

void put(hid_t g, const std::string& name, std::size_t k, std::size_t width,
         const std::vector<double>& data) {
    h5::writeDataset(g, name, {std::int64_t(k), std::int64_t(width)}, data);
}
void put1(hid_t g, const std::string& name, const std::vector<Evaluation>& ev,
          const std::function<double(const Evaluation&)>& get) {
    std::vector<double> v;
    for (const auto& e : ev)
        v.push_back(get(e));
    h5::writeDataset(g, name, {std::int64_t(ev.size())}, v);
}
} // namespace

void writeHistory(const std::string& path, const HistoryHeader& h, const std::vector<Evaluation>& ev) {
    const std::size_t k = ev.size();
    const std::size_t D = h.designNames.size();
    const Evaluation first = ev.empty() ? Evaluation{} : ev.front();
    const std::size_t T = first.terms.size(), C = first.constraints.size(), F = first.values.size();
    const std::size_t P = first.peakBytes.size();
    std::size_t n = 0;
    std::vector<std::size_t> sizes;
    for (std::size_t d = 0; d < D; ++d) {
        const auto& s = h.designShapes[d];
        sizes.push_back(std::size_t(s[0] * s[1] * s[2]));
        n += sizes.back();
    }
    files::writeAtomically(path, [&](const std::string& tmp) {
        h5::Session session;
        h5::Handle f = h5::createFile(tmp);
        h5::writeAttr(f, "format", kFormat);
        h5::writeAttr(f, "version", kVersion);
        h5::writeAttr(f, "scene_hash", h.sceneHash);
        h5::writeAttr(f, "optimizer", h.optimizer);
        h5::writeAttr(f, "form", h.form);
        h5::writeAttr(f, "status", h.status);
        h5::writeAttr(f, "completed", h.completed ? 1 : 0);
        h5::writeStringDataset(f, "scene", h.sceneJson);
        {
            h5::Handle g = h5::createGroup(f, "evaluations");
            h5::writeAttr(g, "count", std::int64_t(k));
            put1(g, "stage", ev, [](const Evaluation& e) { return double(e.stage); });
            put1(g, "merit", ev, [](const Evaluation& e) { return e.merit; });
            put1(g, "objective", ev, [](const Evaluation& e) { return e.objective; });
            put1(g, "grad_norm", ev, [](const Evaluation& e) { return e.gradNorm; });
            put1(g, "binarisation", ev, [](const Evaluation& e) { return e.binarisation; });
            put1(g, "seconds", ev, [](const Evaluation& e) { return e.seconds; });
            put(g, "beta", k, D, rows(ev, D, [](const Evaluation& e) { return e.beta; }));
            put(g, "terms", k, T, rows(ev, T, [](const Evaluation& e) { return e.terms; }));
            put(g, "constraints", k, C, rows(ev, C, [](const Evaluation& e) { return e.constraints; }));
            put(g, "peak_bytes", k, P, rows(ev, P, [](const Evaluation& e) {
                    return std::vector<double>(e.peakBytes.begin(), e.peakBytes.end());
                }));
            put(g, "values", k, F, rows(ev, F, [](const Evaluation& e) { return e.values; }));
            std::vector<double> grads;
            grads.reserve(k * F * n);
            for (const auto& e : ev)
                for (std::size_t q = 0; q < F; ++q) {
                    if (e.gradients.size() != F || e.gradients[q].size() != n)
                        throw RunError("optimisation history: a gradient record has the wrong size");
                    grads.insert(grads.end(), e.gradients[q].begin(), e.gradients[q].end());
                }
            h5::writeDataset(g, "gradients", {std::int64_t(k), std::int64_t(F), std::int64_t(n)}, grads);
        }
        h5::Handle dg = h5::createGroup(f, "designs");
        for (std::size_t d = 0; d < D; ++d) {
            h5::Handle g = h5::createGroup(dg, h.designNames[d]);
            const auto& s = h.designShapes[d];
            h5::writeAttr(g, "shape", std::vector<std::int64_t>{s[0], s[1], s[2]});
            put(g, "latent", k, sizes[d],
                rows(ev, sizes[d], [d](const Evaluation& e) { return e.latent[d]; }));
            put(g, "density", k, sizes[d],
                rows(ev, sizes[d], [d](const Evaluation& e) { return e.density[d]; }));
        }
        f.close(tmp);
    });
}

std::vector<Evaluation> readHistory(const std::string& path, HistoryHeader* header) {
    h5::Session session;
    h5::Handle f = h5::openFileReadOnly(path);
    auto bad = [&](const std::string& why) {
        return InputError(path + ": not a usable optimisation history (" + why + ")");
    };
    if (!h5::hasAttr(f, "format") || h5::readStringAttr(f, "format") != kFormat)
        throw bad("no format \"" + std::string(kFormat) + "\"");
    if (h5::readIntAttr(f, "version") != kVersion)
        throw bad("version " + std::to_string(h5::readIntAttr(f, "version")) + ", this build reads " +
                  std::to_string(kVersion));
    HistoryHeader h;
    h.sceneHash = h5::readStringAttr(f, "scene_hash");
    h.optimizer = h5::readStringAttr(f, "optimizer");
    h.form = h5::readStringAttr(f, "form");
    h.status = h5::readStringAttr(f, "status");
    h.completed = h5::readIntAttr(f, "completed") != 0;
    h.sceneJson = h5::readStringDataset(h5::openDataset(f, "scene"));
    h5::Handle g = h5::openGroup(f, "evaluations");
    const std::size_t k = std::size_t(h5::readIntAttr(g, "count"));
    auto col = [&](const std::string& name) {
        std::vector<std::int64_t> shape;
        std::vector<double> v = h5::readDoubles(h5::openDataset(g, name), &shape);
        if (shape.empty() || std::size_t(shape[0]) != k)
            throw bad("/evaluations/" + name + " has the wrong shape");
        return std::make_pair(v, shape);
    };
    std::vector<Evaluation> ev(k);
    auto scalar = [&](const std::string& name, auto set) {
        const auto [v, s] = col(name);
        for (std::size_t i = 0; i < k; ++i)
            set(ev[i], v[i]);
    };
    scalar("stage", [](Evaluation& e, double v) { e.stage = int(v); });
    scalar("merit", [](Evaluation& e, double v) { e.merit = v; });
    scalar("objective", [](Evaluation& e, double v) { e.objective = v; });
    scalar("grad_norm", [](Evaluation& e, double v) { e.gradNorm = v; });
    scalar("binarisation", [](Evaluation& e, double v) { e.binarisation = v; });
    scalar("seconds", [](Evaluation& e, double v) { e.seconds = v; });
    auto matrix = [&](const std::string& name, auto set) {
        const auto [v, s] = col(name);
        const std::size_t w = s.size() > 1 ? std::size_t(s[1]) : 0;
        for (std::size_t i = 0; i < k; ++i)
            set(ev[i], std::vector<double>(v.begin() + std::ptrdiff_t(i * w),
                                           v.begin() + std::ptrdiff_t((i + 1) * w)));
    };
    matrix("beta", [](Evaluation& e, std::vector<double> r) { e.beta = std::move(r); });
    matrix("terms", [](Evaluation& e, std::vector<double> r) { e.terms = std::move(r); });
    matrix("constraints", [](Evaluation& e, std::vector<double> r) { e.constraints = std::move(r); });
    matrix("peak_bytes",
           [](Evaluation& e, std::vector<double> r) { e.peakBytes.assign(r.begin(), r.end()); });
    matrix("values", [](Evaluation& e, std::vector<double> r) { e.values = std::move(r); });
    {
        const auto [v, s] = col("gradients");
        if (s.size() != 3)
            throw bad("/evaluations/gradients is not [evaluations][functions][voxels]");
        const std::size_t F = std::size_t(s[1]), n = std::size_t(s[2]);
        for (std::size_t i = 0; i < k; ++i)
            for (std::size_t q = 0; q < F; ++q) {
                const auto at = v.begin() + std::ptrdiff_t((i * F + q) * n);
                ev[i].gradients.emplace_back(at, at + std::ptrdiff_t(n));
            }
    }
    h5::Handle dg = h5::openGroup(f, "designs");
    for (const std::string& name : h5::children(dg)) {
        h5::Handle d = h5::openGroup(dg, name);
        const auto s = h5::readIntArrayAttr(d, "shape");
        if (s.size() != 3)
            throw bad("/designs/" + name + " has no shape");
        h.designNames.push_back(name);
        h.designShapes.push_back({s[0], s[1], s[2]});
        for (const char* what : {"latent", "density"}) {
            std::vector<std::int64_t> shape;
            const std::vector<double> v = h5::readDoubles(h5::openDataset(d, what), &shape);
            const std::size_t w = std::size_t(s[0] * s[1] * s[2]);
            if (shape.size() != 2 || std::size_t(shape[0]) != k || std::size_t(shape[1]) != w)
                throw bad("/designs/" + name + "/" + what + " has the wrong shape");
            for (std::size_t i = 0; i < k; ++i) {
                std::vector<double> r(v.begin() + std::ptrdiff_t(i * w),
                                      v.begin() + std::ptrdiff_t((i + 1) * w));
                (std::string(what) == "latent" ? ev[i].latent : ev[i].density).push_back(std::move(r));
            }
        }
    }
    if (header)
        *header = h;
    return ev;
}

} // namespace yee::opt

#include "yee/opt/Optimize.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>

#include <nlopt.hpp>

#include "yee/comm/Communicator.hpp"
#include "yee/core/Error.hpp"
#include "yee/opt/LengthScale.hpp"
#include "yee/run/Session.hpp"
#include "yee/scene/DesignMap.hpp"
#include "yee/scene/SceneJson.hpp"
#include "yee/scene/Schema.hpp"

namespace yee::opt {

namespace {
using Clock = std::chrono::steady_clock;
using scene::ObjectiveForm;
using scene::OptimizerKind;

/// The functions the optimiser sees, and the scene the session runs (objective terms, then the
/// constrained terms with weight 0, so one forward run reads them all).
struct Problem {
    scene::Scene scene;
    std::size_t T = 0, C = 0;    ///< objective terms, constraints
    std::size_t L = 0;           ///< length-scale functions: solid and void per region (0: off)
    int lengthFrom = 0;          ///< first stage whose beta is final: the length constraints apply from it
    double lengthTol = 0;        ///< their bound
    std::vector<double> weights; ///< the scene's weights, zeros for the constrained terms
    std::vector<std::size_t> sizes;
    std::size_t n = 0; ///< latent values in all regions
    bool maximize = true;
    ObjectiveForm form = ObjectiveForm::Sum;
    /// Functions per evaluation: the merit's (1, or one per term for "worst"), then the constraints'.
    std::size_t F() const { return (form == ObjectiveForm::Sum ? 1 : T) + C + L; }
    /// Index of the first length-scale function in Evaluation::values.
    std::size_t firstLength() const { return (form == ObjectiveForm::Sum ? 1 : T) + C; }
};

/// Beta of every region at stage k (regions without projection keep 0).
std::vector<double> betaAt(const scene::Scene& s, int k) {
    const auto& o = s.optimization;
    std::vector<double> b;
    for (const auto& d : s.designs) {
        double v = d.beta;
        if (v > 0)
            for (int i = 0; i < k; ++i)
                v = std::min(v * o.betaFactor, std::max(o.betaMax, d.beta));
        b.push_back(v);
    }
    return b;
}

Problem makeProblem(const scene::Scene& s) {
    Problem p;
    p.scene = s;
    p.T = s.objective.terms.size();
    p.C = s.optimization.constraints.size();
    for (const auto& t : s.objective.terms)
        p.weights.push_back(t.weight);
    for (const auto& c : s.optimization.constraints) {
        scene::ObjectiveTerm t = c.term;
        t.weight = 0;
        p.scene.objective.terms.push_back(t);
        p.weights.push_back(0);
    }
    p.maximize = s.objective.maximize;
    p.form = s.optimization.form;
    if (s.optimization.lengthConstraints) {
        p.L = 2 * s.designs.size();
        p.lengthTol = s.optimization.lengthTolerance;
        while (p.lengthFrom < 10000 && betaAt(s, p.lengthFrom) != betaAt(s, p.lengthFrom + 1))
            ++p.lengthFrom;
    }
    return p;
}

std::vector<double> flatten(const std::vector<std::vector<double>>& v) {
    std::vector<double> out;
    for (const auto& r : v)
        out.insert(out.end(), r.begin(), r.end());
    return out;
}

std::vector<std::vector<double>> split(const double* x, const std::vector<std::size_t>& sizes) {
    std::vector<std::vector<double>> out;
    std::size_t q = 0;
    for (std::size_t n : sizes) {
        out.emplace_back(x + q, x + q + n);
        q += n;
    }
    return out;
}

bool sameBits(const std::vector<double>& a, const double* b, std::size_t n) {
    return a.size() == n && (n == 0 || std::memcmp(a.data(), b, n * sizeof(double)) == 0);
}

/// Evaluates every function at a point (rank 0), from the resumed history while it lasts, and keeps the
/// history file current.
class Evaluator {
public:
    Evaluator(run::Session& ses, const Problem& pb, const OptOptions& oo, HistoryHeader header,
              std::vector<Evaluation> replay, int budget)
        : ses_(ses), pb_(pb), oo_(oo), header_(std::move(header)), replay_(std::move(replay)),
          budget_(budget) {}

    /// Evaluations made so far (replayed and new).
    int count() const { return int(history_.size()); }
    int replayed() const { return replayed_; }
    bool exhausted() const { return count() >= budget_; }
    bool cancelRequested() const { return oo_.cancel && oo_.cancel->load(); }
    std::vector<Evaluation>& history() { return history_; }

    /// True when the last evaluation was made at `x` with `beta` (NLopt asks for the objective and the
    /// constraints at one point in separate callbacks).
    bool current(const double* x, const std::vector<double>& beta) const {
        return !history_.empty() && history_.back().beta == beta &&
               sameBits(flatten(history_.back().latent), x, pb_.n);
    }

    /// Every function at `x` (the latent values of all regions) for stage `stage` with `beta`.
    const Evaluation& at(const double* x, int stage, const std::vector<double>& beta) {
        if (current(x, beta))
            return history_.back();
        const std::size_t i = history_.size();
        if (i < replay_.size()) {
            const Evaluation& r = replay_[i];
            if (!sameBits(flatten(r.latent), x, pb_.n) || r.beta != beta || r.values.size() != pb_.F())
                throw InputError("--resume: evaluation " + std::to_string(i) +
                                 " of the history was made at another point (the scene, the optimizer "
                                 "settings or the build differ); start afresh without --resume");
            history_.push_back(r);
            ++replayed_;
            return history_.back();
        }
        history_.push_back(evaluate(x, stage, beta));
        write("running", false);
        if (oo_.onEvaluation)
            oo_.onEvaluation(int(i), history_.back());
        return history_.back();
    }

    void write(const std::string& status, bool completed) {
        if (oo_.historyPath.empty())
            return;
        header_.status = status;
        header_.completed = completed;
        writeHistory(oo_.historyPath, header_, history_);
    }

private:
    Evaluation evaluate(const double* x, int stage, const std::vector<double>& beta) {
        Evaluation e;
        e.stage = stage;
        e.beta = beta;
        e.latent = split(x, pb_.sizes);
        const auto t0 = Clock::now();
        auto one = [&](const std::vector<double>& weights) {
            run::DesignUpdate u;
            u.latent = e.latent;
            u.beta = beta;
            u.weights = weights;
            run::RunResult r = ses_.evaluate(u);
            if (!r.completed)
                throw RunError("optimisation: evaluation " + std::to_string(history_.size()) + " " +
                               r.status);
            if (!r.objective || !std::isfinite(*r.objective))
                throw RunError("optimisation: evaluation " + std::to_string(history_.size()) +
                               " gave a non-finite figure of merit");
            if (e.peakBytes.empty())
                e.peakBytes.assign(r.devices.size(), 0);
            for (std::size_t q = 0; q < r.devices.size() && q < e.peakBytes.size(); ++q)
                e.peakBytes[q] = std::max(e.peakBytes[q], r.devices[q].memory.peakTotal);
            std::vector<double> g;
            for (const auto& a : r.gradients)
                g.insert(g.end(), a.data.begin(), a.data.end());
            if (g.size() != pb_.n)
                throw RunError("optimisation: the gradient has " + std::to_string(g.size()) +
                               " values, expected " + std::to_string(pb_.n));
            for (double v : g)
                if (!std::isfinite(v))
                    throw RunError("optimisation: evaluation " + std::to_string(history_.size()) +
                                   " gave a non-finite gradient");
            if (e.terms.empty()) {
                e.terms.assign(r.objectiveTerms.begin(), r.objectiveTerms.begin() + std::ptrdiff_t(pb_.T));
                e.constraints.assign(r.objectiveTerms.begin() + std::ptrdiff_t(pb_.T),
                                     r.objectiveTerms.end());
            }
            e.values.push_back(*r.objective);
            e.gradients.push_back(std::move(g));
        };
        const std::size_t W = pb_.weights.size();
        if (pb_.form == ObjectiveForm::Sum) {
            one(pb_.weights);
        } else {
            for (std::size_t t = 0; t < pb_.T; ++t) {
                std::vector<double> w(W, 0.0);
                w[t] = pb_.weights[t];
                one(w);
            }
        }
        for (std::size_t c = 0; c < pb_.C; ++c) {
            std::vector<double> w(W, 0.0);
            w[pb_.T + c] = 1.0;
            one(w);
        }
        // Length-scale functions: from the latent values alone (no simulation).
        for (std::size_t d = 0; pb_.L && d < pb_.sizes.size(); ++d) {
            const LengthScaleValues v = lengthScaleConstraints(pb_.scene, d, e.latent[d], beta[d]);
            std::size_t off = 0;
            for (std::size_t q = 0; q < d; ++q)
                off += pb_.sizes[q];
            for (const auto* part : {&v.dSolid, &v.dVoid}) {
                std::vector<double> g(pb_.n, 0.0);
                std::copy(part->begin(), part->end(), g.begin() + std::ptrdiff_t(off));
                e.gradients.push_back(std::move(g));
            }
            e.values.push_back(v.solid);
            e.values.push_back(v.voids);
        }
        e.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        e.objective = 0;
        for (std::size_t t = 0; t < pb_.T; ++t)
            e.objective += pb_.weights[t] * e.terms[t];
        std::size_t m = 0; // the merit's function
        if (pb_.form == ObjectiveForm::Worst)
            for (std::size_t t = 1; t < pb_.T; ++t)
                if (pb_.maximize ? e.values[t] < e.values[m] : e.values[t] > e.values[m])
                    m = t;
        e.merit = e.values[m];
        double g2 = 0;
        for (double v : e.gradients[m])
            g2 += v * v;
        e.gradNorm = std::sqrt(g2);
        // Densities through each region's chain at this beta (the session's scene holds the point now).
        double grey = 0;
        std::size_t voxels = 0;
        for (std::size_t d = 0; d < pb_.sizes.size(); ++d) {
            e.density.push_back(scene::DesignMap(ses_.scene(), d).forward(e.latent[d]));
            for (double rho : e.density.back())
                grey += 4 * rho * (1 - rho);
            voxels += e.density.back().size();
        }
        e.binarisation = voxels ? grey / double(voxels) : 0;
        return e;
    }

    run::Session& ses_;
    const Problem& pb_;
    const OptOptions& oo_;
    HistoryHeader header_;
    std::vector<Evaluation> replay_;
    int budget_;
    int replayed_ = 0;
    std::vector<Evaluation> history_;
};

/// The best evaluation of [from, history end): the best merit among those meeting every constraint
/// (to 1e-6 of its limit's scale), else the last one.
std::size_t bestOf(const std::vector<Evaluation>& h, std::size_t from, const Problem& pb) {
    std::size_t best = h.size() - 1;
    bool found = false;
    for (std::size_t i = from; i < h.size(); ++i) {
        bool feasible = true;
        if (pb.L && h[i].stage >= pb.lengthFrom)
            for (std::size_t k = 0; k < pb.L; ++k)
                if (h[i].values[pb.firstLength() + k] > pb.lengthTol * (1 + 1e-6))
                    feasible = false;
        for (std::size_t k = 0; k < pb.C; ++k) {
            const scene::OptConstraint& oc = pb.scene.optimization.constraints[k];
            const double tol = 1e-6 * std::max(std::fabs(oc.bound), 1e-300);
            const double v = h[i].constraints[k];
            if (oc.upper ? v > oc.bound + tol : v < oc.bound - tol)
                feasible = false;
        }
        if (!feasible)
            continue;
        if (!found || (pb.maximize ? h[i].merit > h[best].merit : h[i].merit < h[best].merit))
            best = i;
        found = true;
    }
    return best;
}

/// Why a stage ended.
enum class StageEnd { Budget, Converged, Cancelled };

/// A callback's failure, carried across NLopt (which must not see C++ exceptions).
struct Carry {
    Evaluator* ev = nullptr;
    nlopt::opt* opt = nullptr;
    const Problem* pb = nullptr;
    int stage = 0;
    std::vector<double> beta;
    double scale = 1;           ///< merit scale: 1 / |merit at the stage's start|
    std::vector<double> cscale; ///< per constraint: 1 / |limit| (1 for a zero limit)
    bool length = false;        ///< the length-scale constraints apply in this stage
    std::exception_ptr error;
    bool cancelled = false;
    bool budget = false;
};

/// The evaluation at x, or null (after asking NLopt to stop) when cancelled, out of budget or failed.
const Evaluation* evalFor(Carry& c, const double* x) {
    if (c.error || c.cancelled || c.budget)
        return nullptr;
    try {
        const bool cached = c.ev->current(x, c.beta);
        if (!cached) {
            if (c.ev->exhausted()) {
                c.budget = true;
                c.opt->force_stop();
                return nullptr;
            }
            if (c.ev->cancelRequested() && c.ev->count() >= c.ev->replayed()) {
                c.cancelled = true;
                c.opt->force_stop();
                return nullptr;
            }
        }
        return &c.ev->at(x, c.stage, c.beta);
    } catch (...) {
        c.error = std::current_exception();
        c.opt->force_stop();
        return nullptr;
    }
}

/// NLopt objective for the sum form: the (scaled) merit.
double sumObjective(unsigned n, const double* x, double* grad, void* data) {
    Carry& c = *static_cast<Carry*>(data);
    const Evaluation* e = evalFor(c, x);
    if (!e)
        return 0;
    if (grad)
        for (unsigned j = 0; j < n; ++j)
            grad[j] = c.scale * e->gradients[0][j];
    return c.scale * e->values[0];
}

/// NLopt objective for the epigraph form: the extra variable t (the last one).
double epigraphObjective(unsigned n, const double* x, double* grad, void*) {
    if (grad) {
        std::fill(grad, grad + n, 0.0);
        grad[n - 1] = 1;
    }
    return x[n - 1];
}

/// NLopt inequality constraints (<= 0): for "worst", t against every term; then the constraints.
void constraints(unsigned m, double* result, unsigned n, const double* x, double* grad, void* data) {
    Carry& c = *static_cast<Carry*>(data);
    const Problem& pb = *c.pb;
    const Evaluation* e = evalFor(c, x);
    if (!e) {
        std::fill(result, result + m, 0.0);
        if (grad)
            std::fill(grad, grad + std::size_t(m) * n, 0.0);
        return;
    }
    const bool worst = pb.form == ObjectiveForm::Worst;
    const std::size_t nx = pb.n;
    unsigned row = 0;
    if (worst) {
        const double t = x[n - 1];
        for (std::size_t i = 0; i < pb.T; ++i, ++row) {
            // maximize: t - s f_i <= 0; minimize: s f_i - t <= 0.
            const double sign = pb.maximize ? -1.0 : 1.0;
            result[row] = sign * c.scale * e->values[i] - sign * t;
            if (grad) {
                for (std::size_t j = 0; j < nx; ++j)
                    grad[row * n + j] = sign * c.scale * e->gradients[i][j];
                grad[row * n + n - 1] = -sign;
            }
        }
    }
    const std::size_t first = worst ? pb.T : 1;
    for (std::size_t k = 0; k < pb.C; ++k, ++row) {
        const scene::OptConstraint& oc = pb.scene.optimization.constraints[k];
        const double sign = oc.upper ? 1.0 : -1.0; // upper: v - limit <= 0; lower: limit - v <= 0
        result[row] = sign * c.cscale[k] * (e->values[first + k] - oc.bound);
        if (grad) {
            for (std::size_t j = 0; j < nx; ++j)
                grad[row * n + j] = sign * c.cscale[k] * e->gradients[first + k][j];
            if (worst)
                grad[row * n + n - 1] = 0;
        }
    }
    for (std::size_t k = 0; c.length && k < pb.L; ++k, ++row) {
        const std::size_t f = pb.firstLength() + k;
        result[row] = e->values[f] - pb.lengthTol;
        if (grad) {
            for (std::size_t j = 0; j < nx; ++j)
                grad[row * n + j] = e->gradients[f][j];
            if (worst)
                grad[row * n + n - 1] = 0;
        }
    }
}

} // namespace

void checkOptimization(const scene::Scene& s) {
    if (!s.objective.defined())
        throw InputError("objective.terms: an optimisation needs an objective");
    if (s.designs.empty())
        throw InputError("designs: an optimisation needs at least one design region");
    const auto& o = s.optimization;
    if (o.optimizer == OptimizerKind::Adam) {
        if (o.form != ObjectiveForm::Sum)
            throw InputError(
                "optimization.form: \"worst\" needs optimizer mma or ccsa (Adam has no constraints)");
        if (!o.constraints.empty())
            throw InputError("optimization.constraints: constraints need optimizer mma or ccsa");
    }
}

OptResult optimize(const scene::Scene& s, run::RunOptions o, const OptOptions& oo) {
    scene::validateScene(s);
    checkOptimization(s);
    const Problem pbInit = makeProblem(s);
    o.gradient = true;
    run::Session ses(pbInit.scene, o);
    OptResult res;
    if (o.communicator && o.communicator->rank() != 0) {
        ses.serve();
        res.completed = true;
        return res;
    }
    Problem pb = pbInit;
    pb.sizes = ses.designSizes();
    for (std::size_t v : pb.sizes)
        pb.n += v;
    const auto& cfg = s.optimization;

    HistoryHeader header;
    {
        // The budget is not part of the problem: a history resumes with more (or fewer) iterations.
        scene::Scene h = s;
        h.optimization.iterations = scene::OptimizationConfig{}.iterations;
        header.sceneHash = scene::sceneHash(h);
    }
    header.sceneJson = scene::sceneToJson(s, true);
    header.optimizer = scene::optimizers().nameOf(int(cfg.optimizer));
    header.form = scene::objectiveForms().nameOf(int(cfg.form));
    for (std::size_t d = 0; d < s.designs.size(); ++d) {
        header.designNames.push_back(s.designs[d].name);
        const auto v = s.designVoxels(d);
        header.designShapes.push_back({v[2], v[1], v[0]});
    }
    std::vector<Evaluation> replay;
    if (!oo.resumePath.empty()) {
        HistoryHeader old;
        replay = readHistory(oo.resumePath, &old);
        if (old.sceneHash != header.sceneHash)
            throw InputError("--resume: " + oo.resumePath + " belongs to another scene (hash " +
                             old.sceneHash + ", this scene " + header.sceneHash + ")");
        if (old.optimizer != header.optimizer || old.form != header.form)
            throw InputError("--resume: " + oo.resumePath + " was made with optimizer " + old.optimizer +
                             " (" + old.form + "), the scene asks for " + header.optimizer + " (" +
                             header.form + ")");
    }
    const int budget = oo.maxEvaluations >= 0 ? std::min(oo.maxEvaluations, cfg.iterations) : cfg.iterations;
    Evaluator ev(ses, pb, oo, header, replay, budget);

    std::vector<double> x = flatten(ses.latent());
    const bool continuation = cfg.betaFactor > 1;
    const int perStage = continuation ? cfg.betaEvery : budget;
    std::string status = "iterations done";
    bool cancelled = false;
    std::size_t stageStart = 0;
    for (int stage = 0; !ev.exhausted(); ++stage) {
        const std::vector<double> beta = betaAt(s, stage);
        stageStart = std::size_t(ev.count());
        const int stageBudget = std::min(ev.count() + perStage, budget);
        StageEnd end = StageEnd::Budget;
        if (cfg.optimizer == OptimizerKind::Adam) {
            // Projected Adam ascent (descent for minimize) on the merit; moments restart each stage.
            std::vector<double> m(pb.n, 0.0), v(pb.n, 0.0);
            const double sign = pb.maximize ? 1.0 : -1.0;
            double prev = std::numeric_limits<double>::quiet_NaN();
            for (int k = 1; ev.count() < stageBudget; ++k) {
                if (ev.cancelRequested() && ev.count() >= ev.replayed()) {
                    end = StageEnd::Cancelled;
                    break;
                }
                const Evaluation& e = ev.at(x.data(), stage, beta);
                if (cfg.ftolRel > 0 && std::isfinite(prev) &&
                    std::fabs(e.merit - prev) <= cfg.ftolRel * std::fabs(e.merit)) {
                    end = StageEnd::Converged;
                    break;
                }
                prev = e.merit;
                const std::vector<double>& g = e.gradients[0];
                const double c1 = 1 - std::pow(cfg.beta1, k), c2 = 1 - std::pow(cfg.beta2, k);
                for (std::size_t j = 0; j < pb.n; ++j) {
                    m[j] = cfg.beta1 * m[j] + (1 - cfg.beta1) * g[j];
                    v[j] = cfg.beta2 * v[j] + (1 - cfg.beta2) * g[j] * g[j];
                    const double step = cfg.step * (m[j] / c1) / (std::sqrt(v[j] / c2) + 1e-12);
                    x[j] = std::clamp(x[j] + sign * step, 0.0, 1.0);
                }
            }
        } else {
            const bool worst = pb.form == ObjectiveForm::Worst;
            const unsigned n = unsigned(pb.n + (worst ? 1 : 0));
            nlopt::opt opt(cfg.optimizer == OptimizerKind::Mma ? nlopt::LD_MMA : nlopt::LD_CCSAQ, n);
            Carry c;
            c.ev = &ev;
            c.opt = &opt;
            c.pb = &pb;
            c.stage = stage;
            c.beta = beta;
            c.length = pb.L > 0 && stage >= pb.lengthFrom;
            // Scale the merit to O(1) by its value at the stage's starting point (deterministic: the same
            // point is evaluated, or replayed, whatever happens later).
            const Evaluation* e0 = evalFor(c, x.data());
            if (!e0) {
                if (c.error)
                    std::rethrow_exception(c.error);
                end = c.cancelled ? StageEnd::Cancelled : StageEnd::Budget;
            } else {
                double worstF = e0->values[0];
                for (std::size_t t = 0; worst && t < pb.T; ++t)
                    worstF = pb.maximize ? std::min(worstF, e0->values[t]) : std::max(worstF, e0->values[t]);
                c.scale = 1.0 / std::max(std::fabs(worst ? worstF : e0->values[0]), 1e-300);
                for (const auto& oc : pb.scene.optimization.constraints)
                    c.cscale.push_back(oc.bound != 0 ? 1.0 / std::fabs(oc.bound) : 1.0);
                std::vector<double> lb(n, 0.0), ub(n, 1.0), xn(x);
                if (worst) {
                    double big = 0;
                    for (std::size_t t = 0; t < pb.T; ++t)
                        big = std::max(big, std::fabs(c.scale * e0->values[t]));
                    lb[n - 1] = -100 * (big + 1);
                    ub[n - 1] = 100 * (big + 1);
                    xn.push_back(c.scale * worstF);
                }
                opt.set_lower_bounds(lb);
                opt.set_upper_bounds(ub);
                if (worst && pb.maximize)
                    opt.set_max_objective(epigraphObjective, nullptr);
                else if (worst)
                    opt.set_min_objective(epigraphObjective, nullptr);
                else if (pb.maximize)
                    opt.set_max_objective(sumObjective, &c);
                else
                    opt.set_min_objective(sumObjective, &c);
                const unsigned m = unsigned((worst ? pb.T : 0) + pb.C + (c.length ? pb.L : 0));
                if (m > 0)
                    opt.add_inequality_mconstraint(constraints, &c, std::vector<double>(m, 1e-8));
                // The stage's first point is already evaluated: NLopt's first call hits the cache.
                opt.set_maxeval(std::max(1, stageBudget - ev.count() + 1));
                if (cfg.ftolRel > 0)
                    opt.set_ftol_rel(cfg.ftolRel);
                if (cfg.xtolRel > 0)
                    opt.set_xtol_rel(cfg.xtolRel);
                double fopt = 0;
                nlopt::result r = nlopt::FAILURE;
                try {
                    r = opt.optimize(xn, fopt);
                } catch (const nlopt::forced_stop&) {
                    r = nlopt::FORCED_STOP;
                } catch (const nlopt::roundoff_limited&) {
                    r = nlopt::ROUNDOFF_LIMITED;
                } catch (const std::exception& ex) {
                    if (!c.error)
                        throw RunError(std::string("optimisation: NLopt: ") + ex.what());
                }
                if (c.error)
                    std::rethrow_exception(c.error);
                if (c.cancelled) {
                    end = StageEnd::Cancelled;
                } else if (r == nlopt::FTOL_REACHED || r == nlopt::XTOL_REACHED ||
                           r == nlopt::ROUNDOFF_LIMITED) {
                    end = StageEnd::Converged;
                    status = std::string("converged (") +
                             (r == nlopt::FTOL_REACHED   ? "ftol_rel"
                              : r == nlopt::XTOL_REACHED ? "xtol_rel"
                                                         : "round-off limited") +
                             ")";
                }
            }
        }
        // The next stage (and the result) starts from the stage's best point.
        if (std::size_t(ev.count()) > stageStart)
            x = flatten(ev.history()[bestOf(ev.history(), stageStart, pb)].latent);
        if (end == StageEnd::Cancelled) {
            cancelled = true;
            break;
        }
        if (end == StageEnd::Converged) {
            // Converged at the final beta: done. Else the next stage raises beta.
            const std::vector<double> next = betaAt(s, stage + 1);
            if (!continuation || next == beta)
                break;
            status = "iterations done";
        }
        if (!continuation && end == StageEnd::Budget)
            break;
    }
    if (cancelled)
        status = "cancelled after " + std::to_string(ev.count()) + " evaluations";
    res.completed = !cancelled;
    res.status = status;
    res.replayed = ev.replayed();
    res.history = ev.history();
    res.best = res.history.empty() ? -1 : int(bestOf(res.history, stageStart, pb));
    res.latent = res.history.empty() ? ses.latent() : res.history[std::size_t(res.best)].latent;
    ev.write(status, res.completed);
    ses.close();
    return res;
}

} // namespace yee::opt

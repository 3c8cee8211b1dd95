#pragma once
/// \file Flux.hpp
/// One flux plane on one tile, shared by the flux kind (one plane) and flux_box (six): the Poynting flux
/// S_a = sign (E_p Hbar_q - E_q Hbar_p) through the E plane i0 (Hbar averages H over the two half-cells
/// around the plane), its running DFT phasors, its assembly into power per wavelength, and the adjoint
/// sources of its time-domain and phasor-power objectives.
#include <complex>
#include <vector>

#include "yee/detectors/Detector.hpp"

namespace yee::detectors {

/// The plan of one flux plane from a scene detector (normal axis and sign from `d`): the common plan with
/// the box one E plane thick along the normal, i0 = round(center), kept off the domain faces.
DetectorPlan planFluxPlane(const scene::Detector& d, int index, const solver::Plan& p);

template <class T> class FluxPlane {
public:
    using Region = typename solver::Tile<T>::Region;
    /// The part of plane `face` (box, normal, sign) owned by `tile`, with `omegas` for its phasors.
    FluxPlane(const DetectorPlan& face, const std::vector<double>& omegas, solver::Tile<T>& tile);

    /// Global cells owned (empty when none).
    const Box& own() const { return own_; }
    /// Owned cell count.
    std::int64_t cells() const { return own_.empty() ? 0 : own_.cells(); }
    /// The running phasors: [cell][lambda][Ep, Eq, Hpbar, Hqbar][re, im].
    device::Buffer<double>& phasor() { return phasor_; }
    /// The phasors on the host, copied from the device once they are final (the first call after the
    /// forward run; the adjoint reads them during the reverse sweep).
    const double* hostPhasor() const;
    /// Field regions record() reads: E on the plane, H on it and one cell below.
    std::vector<Region> regions() const;
    /// After step n, on the tile's device (kernels::FluxPlaneStep): accumulate the phasors and, when `sum`
    /// is given (exact-sum digits in device memory, kSumWords of them), add every owned cell's S_a to it
    /// (the caller normalises the digits once every plane of the sample has added its cells).
    void record(int n, FieldAccess<T>& f, std::int64_t* sum);
    /// Own box and phasors, for gatherCells().
    void write(ByteWriter& w) const;
    /// Rank 0: power per wavelength, sign sum 0.5 Re(Ep conj(Hq) - Eq conj(Hp)), from every rank's part.
    static std::vector<double> power(const DetectorPlan& face, std::int64_t nl,
                                     std::vector<ByteReader*>& parts);

    // ---- adjoint ----
    /// Time-domain capture points, 6 a cell: E_p, E_q, H_p(below), H_p, H_q(below), H_q.
    void capture(std::vector<FieldPoint>& out) const;
    /// Adjoint of alpha * S summed over the plane (time-domain term at one sample): sources at the
    /// capture points, source numbers from `j0`, captured values from `after`.
    void addSeries(double alpha, const T* after, int j0, const AdjointSink<T>& sink) const;
    /// Phasor-power sources, 6 a cell: E_p, E_q, H_q(below), H_q, H_p(below), H_p.
    void phasorSources(std::vector<FieldPoint>& out) const;
    /// Adjoint of weight * P(lambda_wl) at reverse step n (sources numbered from `j0`).
    void addPhasor(int n, int wl, double weight, int j0, const AdjointSink<T>& sink) const;

private:
    std::int64_t offset(const Index3& g) const;
    /// Per owned cell the six field locations the plane reads: E_p(l), E_q(l), then the two H components
    /// at m (one cell upstream along the normal) and l, H_p before H_q (`hpFirst`) or after.
    void planePoints(bool hpFirst, std::vector<FieldPoint>& out) const;

    const DetectorPlan& face_;
    const std::vector<double>& omegas_;
    solver::Tile<T>& tile_;
    Box own_;
    device::Buffer<double> phasor_;
    StepWeights weights_;
    mutable std::vector<double> hostPhasor_; ///< hostPhasor()'s copy
    mutable bool hostPhasorValid_ = false;
};

/// After the planes of one sample added their cells to the exact sum `sum` (device memory): bring its
/// digits to ExactSum's canonical form on the device (kernels::NormalizeExact).
void normalizeSum(device::Device& dev, std::int64_t* sum);

/// The adjoint of a time-domain flux term (time_integral or final) over planes `planes`: on sampled
/// steps, alpha * S with alpha = weight (final, last sample only) or weight * dt * every.
template <class T> class FluxSeriesAdjoint : public TermAdjoint<T> {
public:
    FluxSeriesAdjoint(const DetectorPlan& dp, const scene::ObjectiveTerm& t,
                      std::vector<const FluxPlane<T>*> planes, double dt);
    std::vector<FieldPoint> capture() const override;
    std::vector<FieldPoint> sources() const override { return capture(); }
    void addSources(int n, const T* after, const T* before, const AdjointSink<T>& sink) const override;

private:
    const DetectorPlan& dp_;
    double weight_;
    bool final_;
    double dt_;
    std::vector<const FluxPlane<T>*> planes_;
};

/// The adjoint of a flux phasor-power term (at_wavelength) over planes `planes`.
template <class T> class FluxPhasorAdjoint : public TermAdjoint<T> {
public:
    FluxPhasorAdjoint(const scene::ObjectiveTerm& t, int wl, std::vector<const FluxPlane<T>*> planes);
    std::vector<FieldPoint> sources() const override;
    void addSources(int n, const T* after, const T* before, const AdjointSink<T>& sink) const override;

private:
    double weight_;
    int wl_;
    std::vector<const FluxPlane<T>*> planes_;
};

/// The value of an objective term read from a flux-like result (arrays "flux", "wavelengths_um",
/// "power"): the power at the listed wavelength nearest the term's for at_wavelength / phasor_power
/// terms, else the flux series reduced as the term says. Throws InputError when no wavelengths exist.
double fluxObjective(const DetectorPlan& dp, const scene::ObjectiveTerm& t, const solver::DetectorResult& res,
                     const solver::Plan& p);

/// Refuse a flux-plane objective the adjoint cannot handle: a tile cut on the plane along its normal
/// (the H average reaches one cell upstream, into another tile's halo) or, with `reversible`, a plane
/// (with that upstream cell) reaching into a PML.
void checkFluxPlaneGradient(const DetectorPlan& face, const std::string& owner, const solver::Plan& p,
                            bool reversible, const std::string& field);

extern template class FluxPlane<float>;
extern template class FluxPlane<double>;
extern template class FluxSeriesAdjoint<float>;
extern template class FluxSeriesAdjoint<double>;
extern template class FluxPhasorAdjoint<float>;
extern template class FluxPhasorAdjoint<double>;

} // namespace yee::detectors

#pragma once
/// \file DetectorKinds.hpp
/// The registration interface through which detector kinds describe themselves to the scene layer: a
/// kind's file key, label and help, the keys its detectors have (names, types, units, ranges, help,
/// defaults), what it offers an objective (quantities and their reductions) and its rules across keys.
/// The schema (Schema.hpp) builds the "detectors" section and the detector-type and quantity tables from
/// it, so the parser, the validator and the studio's property editor know a kind from its declaration.
///
/// The kinds of the scene format itself (snapshot, flux, energy, phasor, probe, flux_box) are declared
/// here, in DetectorKinds.cpp, so that the scene module reads every scene file on its own (fuzzer,
/// scene tools). A plug-in kind declares itself in its own file in backend/yee/detectors/ (the detectors
/// layer sits above this one): its detectors::Kind returns the declaration from declare(), and the
/// detector registry hands it to registerDetectorKind() before main() runs. Registration closes when the
/// schema is first used (the first scene read, written or validated).
#include <deque>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "yee/scene/Schema.hpp"

namespace yee::scene {

/// One quantity a detector kind offers an objective, with the reductions it supports there.
struct ObjectiveUse {
    std::string quantity;           ///< quantity file name ("flux", "phasor_power", or one the kind adds)
    std::vector<Reduce> reductions; ///< reductions allowed for it on this kind
};

/// A quantity a kind adds to the objective's "quantity" table.
struct QuantitySpec {
    std::string name;                            ///< file name ("mode_power")
    std::string label;                           ///< human label ("Mode power")
    std::string help;                            ///< one line
    Reduce defaultReduce = Reduce::AtWavelength; ///< the term's "reduce" when left out
};

/// The validator's view of one detector, for a kind's rules across keys (validateScene() implements
/// it). Every check throws InputError naming the field, as the validator does.
class DetectorCheck {
public:
    virtual ~DetectorCheck() = default;
    /// The scene being validated (its grid checked already).
    virtual const Scene& scene() const = 0;
    /// The detector.
    virtual const Detector& detector() const = 0;
    /// Its path ("detectors[3]").
    virtual const std::string& path() const = 0;
    /// Throws InputError "<path>.<key>: <message>".
    [[noreturn]] virtual void fail(const std::string& key, const std::string& message) const = 0;
    /// The detector is a plane: exactly one zero extent of size_um, along its direction's normal.
    virtual void plane(const char* what) const = 0;
    /// The plane lies in the domain and outside every PML.
    virtual void planeInInterior(const char* what) const = 0;
    /// First axis whose PML the detector's box reaches into, or -1.
    virtual int pmlAxis() const = 0;
    /// "the x PML (10 cells per side; the interior spans [a, b] um)".
    virtual std::string pmlText(int axis) const = 0;
};

/// The declaration of one detector kind.
struct DetectorKindSpec {
    std::string name;  ///< file name of the type ("flux_box"); unique
    std::string label; ///< human label ("Flux box")
    std::string help;  ///< one line ("net power leaving a closed box")
    /// Keys after name, type and center_um (which every kind has), in file order. Their variant mask is
    /// set at registration. Keys bound to fields of Detector use the builders below; a key of the kind's
    /// own is stored in Detector::params (detectorParamKey()).
    std::vector<KeySpec> keys;
    /// Validate center_um and size_um as a region inside the domain (false: check() does it).
    bool insideDomain = true;
    /// What the kind offers an objective.
    std::vector<ObjectiveUse> objective;
    /// Quantities the kind adds to the objective's table (registered with it).
    std::vector<QuantitySpec> quantities;
    /// Rules across keys, after the per-key ranges and before the generic region checks (may be empty).
    std::function<void(const DetectorCheck&)> check;
    /// Rules for an objective term on such a detector after the generic ones (quantity offered, reduce
    /// allowed, wavelength recorded); `termPath` is "objective.terms[i]". May be empty.
    std::function<void(const DetectorCheck&, const ObjectiveTerm&, const std::string& termPath)> checkTerm;

    /// The use of quantity `q`, or nullptr when the kind does not offer it.
    const ObjectiveUse* use(Quantity q) const;
};

/// Register a detector kind; returns its DetectorType id (the next free one). Throws std::logic_error when
/// the name is taken, when more than 32 kinds would exist, or when the schema is already in use.
DetectorType registerDetectorKind(DetectorKindSpec spec);
/// Every registered kind, by id (position = DetectorType value). Closes registration.
const std::deque<DetectorKindSpec>& detectorKinds();
/// The kind of id `t`, or nullptr.
const DetectorKindSpec* detectorKind(DetectorType t);
/// The id of the kind named `name`; throws std::logic_error when none is registered.
DetectorType detectorType(std::string_view name);
/// Every registered quantity, by id (the built-ins flux, phasor_power, energy first). Closes registration.
const std::deque<QuantitySpec>& quantitySpecs();
/// The id of quantity `name`; throws std::logic_error when none is registered.
Quantity quantity(std::string_view name);

// ---- key builders for kind declarations ----

/// The region key: size_um >= 0 (zero extents make planes, lines or points).
KeySpec detectorRegionKey();
/// size_um of a closed box: all three extents > 0.
KeySpec detectorBoxKey();
/// direction "+x".."-z": the plane normal and its positive sense (`help` for the tooltip).
KeySpec detectorDirectionKey(const char* help);
/// wavelengths_um, the DFT wavelengths; `required`: at least one must be listed.
KeySpec detectorWavelengthsKey(bool required);
/// components (Ex .. Hz), default Ex, Ey, Ez.
KeySpec detectorComponentsKey();
/// every: record every n-th step.
KeySpec detectorEveryKey();
/// downsample: keep every n-th cell.
KeySpec detectorDownsampleKey();
/// A key of the kind's own, stored in Detector::params under `name`. Set range, required and help text on
/// the result as needed; `def` is its default (also what detectorParam() returns when it is absent).
KeySpec detectorParamKey(const char* name, KeyType type, const char* label, const char* unit,
                         const char* help, SchemaValue def);
/// The value of parameter `name` of `d` (its declared default when the detector does not carry it).
/// Throws std::logic_error when `name` is no key of d's kind or holds another type.
template <class V> V detectorParam(const Detector& d, const std::string& name);
/// \cond
SchemaValue detectorParamValue(const Detector& d, const std::string& name);
template <class V> V detectorParam(const Detector& d, const std::string& name) {
    const SchemaValue v = detectorParamValue(d, name);
    if (const V* p = std::get_if<V>(&v))
        return *p;
    throw std::logic_error("detector parameter " + name + " has another type");
}
/// \endcond

} // namespace yee::scene

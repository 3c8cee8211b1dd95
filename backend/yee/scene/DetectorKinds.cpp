#include "yee/scene/DetectorKinds.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace yee::scene {

namespace {

Detector& detectorAt(Scene& s, int i) {
    return s.detectors[std::size_t(i)];
}
const Detector& detectorAt(const Scene& s, int i) {
    return s.detectors[std::size_t(i)];
}

KeySpec key(const char* name, KeyType type, const char* label, const char* unit, const char* help) {
    KeySpec k;
    k.name = name;
    k.type = type;
    k.label = label;
    k.unit = unit;
    k.help = help;
    return k;
}

/// Bind `k` to member `m` of Detector (stored as its canonical value type).
template <class M> KeySpec bound(KeySpec k, M Detector::*m) {
    k.get = [m](const Scene& s, int i) { return SchemaValue(detectorAt(s, i).*m); };
    k.set = [m](Scene& s, int i, const SchemaValue& v) { detectorAt(s, i).*m = std::get<M>(v); };
    return k;
}

DetectorKindSpec builtin(const char* name, const char* label, const char* help, std::vector<KeySpec> keys) {
    DetectorKindSpec k;
    k.name = name;
    k.label = label;
    k.help = help;
    k.keys = std::move(keys);
    return k;
}

/// The kinds of the scene format, with the ids of the DetectorType enumerators.
std::deque<DetectorKindSpec> builtinKinds() {
    using R = Reduce;
    std::deque<DetectorKindSpec> out;
    out.push_back(
        builtin("snapshot", "Snapshot", "fields on a region, every n steps",
                {detectorRegionKey(), detectorComponentsKey(), detectorEveryKey(), detectorDownsampleKey()}));

    DetectorKindSpec flux =
        builtin("flux", "Flux plane", "power through a plane",
                {detectorRegionKey(), detectorDirectionKey("Positive flux direction along the plane normal"),
                 detectorWavelengthsKey(false), detectorEveryKey()});
    flux.insideDomain = false; // a plane in the interior, checked below
    flux.objective = {{"flux", {R::TimeIntegral, R::AtWavelength}}};
    flux.check = [](const DetectorCheck& c) {
        const Detector& d = c.detector();
        if (d.normal < 0 || d.normal > 2)
            c.fail("direction", "has no normal axis");
        if (d.direction != 1 && d.direction != -1)
            c.fail("direction", "sign must be +1 or -1");
        c.plane("flux plane");
        c.planeInInterior("flux plane");
    };
    out.push_back(std::move(flux));

    DetectorKindSpec energy = builtin("energy", "Energy", "electromagnetic energy in a box",
                                      {detectorBoxKey(), detectorEveryKey()});
    energy.objective = {{"energy", {R::TimeIntegral, R::Final}}};
    out.push_back(std::move(energy));

    DetectorKindSpec phasor =
        builtin("phasor", "Phasor", "frequency-domain fields on a region",
                {detectorRegionKey(), detectorWavelengthsKey(true), detectorComponentsKey()});
    phasor.objective = {{"phasor_power", {R::AtWavelength}}};
    out.push_back(std::move(phasor));

    DetectorKindSpec probe = builtin("probe", "Probe", "field time series at a point",
                                     {detectorComponentsKey(), detectorEveryKey()});
    probe.check = [](const DetectorCheck& c) {
        if (c.detector().size != Vec3{0, 0, 0})
            c.fail("size_um", "a probe is a point (size must be zero)");
    };
    out.push_back(std::move(probe));

    DetectorKindSpec box = builtin("flux_box", "Flux box", "net power leaving a closed box",
                                   {detectorBoxKey(), detectorWavelengthsKey(false), detectorEveryKey()});
    box.objective = {{"flux", {R::TimeIntegral, R::AtWavelength, R::Final}},
                     {"phasor_power", {R::AtWavelength}}};
    box.check = [](const DetectorCheck& c) {
        const int a = c.pmlAxis();
        if (a >= 0)
            c.fail("size_um", "the flux box reaches into " + c.pmlText(a) + "; move it into the interior");
    };
    out.push_back(std::move(box));
    return out;
}

std::deque<QuantitySpec> builtinQuantities() {
    return {{"flux", "Flux", "power through the detector", Reduce::TimeIntegral},
            {"phasor_power", "Phasor power", "power of the frequency-domain fields", Reduce::AtWavelength},
            {"energy", "Energy", "electromagnetic energy", Reduce::Final}};
}

struct Registry {
    std::deque<DetectorKindSpec> kinds = builtinKinds();
    std::deque<QuantitySpec> quantities = builtinQuantities();
    bool closed = false;
};

Registry& registry() {
    static Registry r;
    return r;
}

} // namespace

const ObjectiveUse* DetectorKindSpec::use(Quantity q) const {
    const auto& qs = quantitySpecs();
    if (int(q) < 0 || std::size_t(q) >= qs.size())
        return nullptr;
    for (const auto& u : objective)
        if (u.quantity == qs[std::size_t(q)].name)
            return &u;
    return nullptr;
}

DetectorType registerDetectorKind(DetectorKindSpec spec) {
    Registry& r = registry();
    if (r.closed)
        throw std::logic_error("detector kind \"" + spec.name +
                               "\" registered after the scene schema was first used");
    for (const auto& k : r.kinds)
        if (k.name == spec.name)
            throw std::logic_error("detector kind \"" + spec.name + "\" is registered twice");
    if (r.kinds.size() >= 32)
        throw std::logic_error("more than 32 detector kinds (the schema's variant masks hold 32)");
    for (const QuantitySpec& q : spec.quantities) {
        const bool known = std::any_of(r.quantities.begin(), r.quantities.end(),
                                       [&](const QuantitySpec& e) { return e.name == q.name; });
        if (!known)
            r.quantities.push_back(q);
    }
    r.kinds.push_back(std::move(spec));
    return DetectorType(int(r.kinds.size()) - 1);
}

const std::deque<DetectorKindSpec>& detectorKinds() {
    Registry& r = registry();
    r.closed = true;
    return r.kinds;
}

const DetectorKindSpec* detectorKind(DetectorType t) {
    const auto& k = detectorKinds();
    return int(t) >= 0 && std::size_t(t) < k.size() ? &k[std::size_t(t)] : nullptr;
}

DetectorType detectorType(std::string_view name) {
    const auto& k = detectorKinds();
    for (std::size_t i = 0; i < k.size(); ++i)
        if (k[i].name == name)
            return DetectorType(int(i));
    throw std::logic_error("no detector kind \"" + std::string(name) + "\" is registered");
}

const std::deque<QuantitySpec>& quantitySpecs() {
    Registry& r = registry();
    r.closed = true;
    return r.quantities;
}

Quantity quantity(std::string_view name) {
    const auto& q = quantitySpecs();
    for (std::size_t i = 0; i < q.size(); ++i)
        if (q[i].name == name)
            return Quantity(int(i));
    throw std::logic_error("no objective quantity \"" + std::string(name) + "\" is registered");
}

// ---- key builders ----

KeySpec detectorRegionKey() {
    KeySpec k = bound(key("size_um", KeyType::Vec3, "Size", "um",
                          "Recorded region; zero extents make planes, lines or points"),
                      &Detector::size);
    k.required = true;
    k.range.lo = 0;
    return k;
}

KeySpec detectorBoxKey() {
    KeySpec k = bound(
        key("size_um", KeyType::Vec3, "Size", "um", "Box extents; all three must be > 0 (a closed box)"),
        &Detector::size);
    k.required = true;
    k.range.lo = 0;
    k.range.loOpen = true;
    return k;
}

KeySpec detectorDirectionKey(const char* help) {
    KeySpec k = key("direction", KeyType::Enum, "Direction", "", help);
    k.required = true;
    k.choices = &directions();
    k.get = [](const Scene& s, int i) {
        const Detector& d = detectorAt(s, i);
        return SchemaValue(std::string(directions().nameOf(2 * d.normal + (d.direction < 0 ? 1 : 0))));
    };
    k.set = [](Scene& s, int i, const SchemaValue& v) {
        if (const EnumEntry* e = directions().find(std::get<std::string>(v))) {
            detectorAt(s, i).normal = e->value / 2;
            detectorAt(s, i).direction = e->value % 2 ? -1 : +1;
        }
    };
    return k;
}

KeySpec detectorWavelengthsKey(bool required) {
    KeySpec k = bound(
        key("wavelengths_um", KeyType::NumberList, "Wavelengths", "um", "Wavelengths of the phasors (DFT)"),
        &Detector::wavelengths);
    k.range.lo = 0;
    k.range.loOpen = true;
    k.item = "wavelength";
    k.required = required;
    if (!required)
        k.defaultValue = std::vector<double>{};
    return k;
}

KeySpec detectorComponentsKey() {
    KeySpec k = bound(key("components", KeyType::EnumList, "Components", "", "Any of Ex Ey Ez Hx Hy Hz"),
                      &Detector::components);
    k.choices = &fieldComponents();
    k.defaultValue = std::vector<std::string>{"Ex", "Ey", "Ez"};
    return k;
}

KeySpec detectorEveryKey() {
    KeySpec k =
        bound(key("every", KeyType::Integer, "Every", "", "Record every n-th step"), &Detector::every);
    k.range.lo = 1;
    k.defaultValue = 1;
    return k;
}

KeySpec detectorDownsampleKey() {
    KeySpec k =
        bound(key("downsample", KeyType::Integer, "Downsample", "", "Keep every n-th cell of a snapshot"),
              &Detector::downsample);
    k.range.lo = 1;
    k.defaultValue = 1;
    return k;
}

KeySpec detectorParamKey(const char* name, KeyType type, const char* label, const char* unit,
                         const char* help, SchemaValue def) {
    KeySpec k = key(name, type, label, unit, help);
    k.defaultValue = def;
    const std::string n = name;
    k.get = [n, def](const Scene& s, int i) {
        const auto& p = detectorAt(s, i).params;
        const auto it = p.find(n);
        return it == p.end() ? def : it->second;
    };
    k.set = [n](Scene& s, int i, const SchemaValue& v) { detectorAt(s, i).params[n] = v; };
    return k;
}

SchemaValue detectorParamValue(const Detector& d, const std::string& name) {
    if (const auto it = d.params.find(name); it != d.params.end())
        return it->second;
    if (const DetectorKindSpec* k = detectorKind(d.type))
        for (const KeySpec& key : k->keys)
            if (name == key.name && key.defaultValue)
                return *key.defaultValue;
    throw std::logic_error("detector \"" + d.name + "\" has no parameter " + name);
}

} // namespace yee::scene

#pragma once
/// \file Schema.hpp
/// The scene schema, declared once: every section of a scene file, its variants (object shapes,
/// source, profile, detector and boundary types, ...), the keys that apply to each variant with their
/// type, unit, allowed range, default and help text, the enum name tables (enum value <-> file string
/// <-> human label) and how each key is read from and written to the Scene model.
///
/// Three consumers read it: the JSON parser and writer (SceneJson.cpp: allowed keys per variant,
/// types, enum strings, defaults, what is written), the validator (SceneJson.cpp: the per-key ranges;
/// rules that involve several keys stay code there) and the studio's property editor
/// (ui/SceneProperties.cpp: labels, units, tooltips, ranges, enum choices, which rows a variant has).
/// Adding a key to the format means one KeySpec below (plus the field in Scene.hpp). No Qt, no JSON.
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "yee/scene/Scene.hpp"

namespace yee::scene {

// SchemaValue (one value of a key in its canonical form) is declared in Scene.hpp.

/// How a key's value is written in a scene file.
enum class KeyType {
    Number,       ///< finite number
    Integer,      ///< whole number (int range)
    Boolean,      ///< true / false
    String,       ///< free text
    Enum,         ///< one name of KeySpec::choices
    EnumList,     ///< array of names of KeySpec::choices
    Vec3,         ///< [x, y, z] numbers
    IntVec3,      ///< [x, y, z] integers
    NumberList,   ///< array of numbers
    Points2,      ///< array of [u, v] number pairs
    Polarization, ///< "x" | "y" | "z" | [px, py, pz]
    MaterialRef,  ///< name of a scene material
    DetectorRef,  ///< name of a scene detector
    MaterialPair, ///< [name, name] of two scene materials
    Section,      ///< an object read by section KeySpec::sub
    SectionList,  ///< an array of objects, each read by section KeySpec::sub
    MapKey,       ///< not a key in the file: the element's name is its key in the enclosing object
    Custom,       ///< read and written by code in SceneJson.cpp (format, version, materials, params, latent)
};

/// How the studio's property editor shows a key.
enum class UiHint {
    Edit,     ///< an editable row
    ReadOnly, ///< a row shown but edited elsewhere (a panel)
    Hidden,   ///< no row (bulk data, e.g. latent arrays)
};

/// Allowed values of a number, or of every element of a vector or list. Empty = any finite value.
struct Range {
    double lo = -std::numeric_limits<double>::infinity(); ///< lower bound (-inf: none)
    double hi = std::numeric_limits<double>::infinity();  ///< upper bound (+inf: none)
    bool loOpen = false;                                  ///< lo itself excluded
    bool hiOpen = false;                                  ///< hi itself excluded
    bool split = false; ///< report the failing bound alone ("must be <= 10000") instead of the interval
    const char* note = nullptr; ///< appended to the message in the parentheses ("got -10; metals: ...")
    /// True when the range restricts anything.
    bool any() const {
        return lo > -std::numeric_limits<double>::infinity() || hi < std::numeric_limits<double>::infinity();
    }
    /// True when v lies in the range.
    bool contains(double v) const;
    /// The requirement as text: "must be > 0", "must be >= 1", "must be in [0, 1]", "must be in (0, 1]";
    /// with `failing`, a split range names only the bound that `failing` breaks.
    std::string text(std::optional<double> failing = std::nullopt, bool integer = false) const;
};

/// One entry of an enum name table.
struct EnumEntry {
    int value;         ///< the C++ enum value (static_cast<int>), or the position for string-backed enums
    const char* name;  ///< the file string ("gaussian_plane")
    const char* label; ///< human label ("Gaussian beam")
    const char* help;  ///< one-line help ("keep every step (small problems)")
};

/// An enum name table.
struct EnumSpec {
    const char* noun = "value";     ///< for messages: unknown <noun> "x" (expected ...)
    const char* expected = nullptr; ///< replaces the generated list of choices in messages
    std::vector<EnumEntry> entries; ///< in display order
    /// Entry with file string `name`, or nullptr.
    const EnumEntry* find(std::string_view name) const;
    /// Entry with value `value`, or nullptr.
    const EnumEntry* find(int value) const;
    /// File string of `value`, or "?".
    const char* nameOf(int value) const;
    /// The file strings, in order.
    std::vector<std::string> names() const;
    /// `"a", "b" or "c"` (or `expected` when set).
    std::string choicesText() const;
    /// `unknown <noun> "<given>" (expected <choices>)`.
    std::string unknownText(std::string_view given) const;
};

/// Boundary types: pml, periodic, pec.
const EnumSpec& boundaryTypes();
/// Object shapes: box, sphere, cylinder, polygon.
const EnumSpec& shapes();
/// Source types: point_dipole, gaussian_plane, uniform_plane.
const EnumSpec& sourceTypes();
/// Source profile types: gaussian_pulse, cw.
const EnumSpec& profileTypes();
/// Detector types: the registered detector kinds (DetectorKinds.hpp), built-ins first: snapshot, flux,
/// energy, phasor, probe, flux_box. Complete once the schema is first used.
const EnumSpec& detectorTypes();
/// Objective quantities: flux, phasor_power, energy, then those registered detector kinds add.
const EnumSpec& quantities();
/// Objective reductions: time_integral, at_wavelength, final.
const EnumSpec& reductions();
/// Gradient methods: full, checkpointed, reversible.
const EnumSpec& gradientMethods();
/// Objective goals: maximize (1), minimize (0).
const EnumSpec& goals();
/// Recorder modules (string-backed, RecorderModule::module): LinearReconstructEveryK, DtypeConversion.
const EnumSpec& recorderModules();
/// Recorder dtypes (string-backed, RecorderModule::dtype).
const EnumSpec& dtypes();
/// Storage tiers (string-backed, GradientConfig::tier): device, host, disk.
const EnumSpec& storageTiers();
/// Field precisions (string-backed, RunConfig::precision): float32, float64.
const EnumSpec& precisions();
/// Optimisers: mma, ccsa, adam.
const EnumSpec& optimizers();
/// Objective forms of an optimisation: sum, worst.
const EnumSpec& objectiveForms();
/// Constraint bounds: max (upper, 1), min (lower, 0).
const EnumSpec& bounds();
/// Axes "x" | "y" | "z" = 0, 1, 2.
const EnumSpec& axes();
/// Dispersive pole types: drude, lorentz, debye.
const EnumSpec& poleTypes();
/// Plane directions "+x", "-x", ... = 2 * axis + (sign < 0).
const EnumSpec& directions();
/// Field components "Ex" .. "Hz".
const EnumSpec& fieldComponents();

/// The table of an enum type of Scene.hpp.
template <class E> const EnumSpec& enumSpecOf();
/// \cond specialisations
template <> const EnumSpec& enumSpecOf<BoundaryType>();
template <> const EnumSpec& enumSpecOf<Shape>();
template <> const EnumSpec& enumSpecOf<SourceType>();
template <> const EnumSpec& enumSpecOf<ProfileType>();
template <> const EnumSpec& enumSpecOf<DetectorType>();
template <> const EnumSpec& enumSpecOf<Quantity>();
template <> const EnumSpec& enumSpecOf<Reduce>();
template <> const EnumSpec& enumSpecOf<GradientMethod>();
template <> const EnumSpec& enumSpecOf<PoleType>();
/// \endcond

/// File string of an enum value ("box"), "?" for a value outside the table.
template <class E> const char* enumName(E v) {
    return enumSpecOf<E>().nameOf(static_cast<int>(v));
}
/// Enum value of a file string, nullopt if the table has no such name.
template <class E> std::optional<E> enumValue(std::string_view name) {
    const EnumEntry* e = enumSpecOf<E>().find(name);
    return e ? std::optional<E>(static_cast<E>(e->value)) : std::nullopt;
}

/// The sections of a scene file.
enum class SectionId {
    Scene,        ///< the top level
    Grid,         ///< "grid"
    Domain,       ///< "domain"
    Time,         ///< "time"
    Boundaries,   ///< "boundaries" (x, y, z)
    Boundary,     ///< "boundaries.<axis>", index = axis
    Material,     ///< "materials.<name>", index = position in Scene::materials
    Object,       ///< "objects[i]"
    Source,       ///< "sources[i]"
    Profile,      ///< "sources[i].profile", index = source
    Detector,     ///< "detectors[i]"
    Design,       ///< "designs[i]"
    Projection,   ///< "designs[i].projection", index = design
    Objective,    ///< "objective"
    Term,         ///< "objective.terms[i]"
    Gradient,     ///< "gradient"
    Recorder,     ///< "gradient.recorder[i]"
    Storage,      ///< "gradient.storage"
    Run,          ///< "run"
    Optimization, ///< "optimization"
    Constraint,   ///< "optimization.constraints[i]"
    /// "materials.<name>.poles[j]": index = position among all poles of all materials, in material
    /// order (poleAt()). Read and written through the material's "poles" key, so it is not one of
    /// allSections().
    Pole,
};

/// The pole with flat index `index` (see SectionId::Pole); throws std::out_of_range past the end.
const Pole& poleAt(const Scene& s, int index);
/// Flat index of pole j of material m.
int poleIndex(const Scene& s, std::size_t m, std::size_t j);

/// Bit i set: the key applies to the variant with enum value i.
using VariantMask = std::uint32_t;
/// Applies to every variant (and to sections without variants).
inline constexpr VariantMask kAllVariants = ~VariantMask(0);

/// Reads a key's value from a scene; `index` selects the element of list sections (-1 otherwise).
using SchemaGetter = std::function<SchemaValue(const Scene&, int index)>;
/// Writes a canonical value (of the key's type) into a scene.
using SchemaSetter = std::function<void(Scene&, int index, const SchemaValue&)>;

/// One key of one section, for the variants in `variants`. A key may be declared more than once in a
/// section, for disjoint variant sets, when its requirement, range or default differs between them.
struct KeySpec {
    const char* name = "";               ///< the file key ("radius_um")
    KeyType type = KeyType::Number;      ///< value type
    const char* label = "";              ///< human label for the studio ("Radius")
    const char* unit = "";               ///< "um", "fs", "S/m" or ""
    const char* help = "";               ///< one-line help (tooltips, docs)
    VariantMask variants = kAllVariants; ///< where it applies
    bool required = false;               ///< must be given where it applies
    bool discriminator = false;          ///< selects the section's variant
    bool lenient = false;                ///< Enum: unknown names are refused by the validator, not the parser
    Range range;                         ///< hard limits (the validator refuses values outside)
    std::optional<Range> advised;        ///< the studio's stricter limits, when they differ
    std::optional<SchemaValue>
        defaultValue;                  ///< value when the key is left out (std::nullopt: see defaultText)
    const char* defaultText = nullptr; ///< describes a default that is not a plain value ("automatic")
    const EnumSpec* choices = nullptr; ///< Enum / EnumList names
    SectionId sub = SectionId::Scene;  ///< Section / SectionList: the section of the value
    int subIndex = -1;                 ///< Section: index passed to the sub-section (-1: this index)
    /// Section: a key of the sub-section found next to this key is reported as belonging in it.
    bool hintMisplaced = false;
    const char* item = nullptr;              ///< NumberList: noun of one element ("wavelength")
    std::array<const char*, 2> itemLabels{}; ///< MaterialPair: labels of the two elements
    UiHint ui = UiHint::Edit;                ///< how the studio shows it
    SchemaGetter get;                        ///< empty for Section / SectionList / Custom keys
    SchemaSetter set;                        ///< empty for Section / SectionList / Custom keys
    /// Written only when true (empty: always written where it applies).
    std::function<bool(const Scene&, int index)> present;

    /// True when the key applies to `variant` (-1: no known variant; only keys of every variant apply).
    bool appliesTo(int variant) const;
};

/// One section of the file format.
struct SectionSpec {
    SectionId id = SectionId::Scene;    ///< which
    const char* name = "";              ///< file name of the section ("profile", "objects")
    const char* label = "";             ///< human label ("Object")
    const EnumSpec* variants = nullptr; ///< variant table, when a discriminator key selects one
    std::vector<const char*> readFirst; ///< keys read before the discriminator (its default needs them)
    /// Variant used when the discriminator is left out and has no default value (after readFirst).
    std::function<int(const Scene&, int index)> defaultVariant;
    /// Per variant: appended to "not used by ..." for a key of another variant ("PML only").
    std::vector<std::pair<int, const char*>> notes;
    std::vector<KeySpec> keys; ///< in file (and writing) order
    /// List sections: number of elements in the scene.
    std::function<int(const Scene&)> count;
    /// List sections: append a default element, return its index.
    std::function<int(Scene&)> append;

    /// The discriminator key, or nullptr.
    const KeySpec* discriminator() const;
    /// The key named `name` that applies to `variant`, or nullptr.
    const KeySpec* find(std::string_view name, int variant) const;
    /// Any declaration of `name`, or nullptr.
    const KeySpec* findAny(std::string_view name) const;
    /// The keys that apply to `variant`, in order, one declaration per name.
    std::vector<const KeySpec*> keysFor(int variant) const;
    /// The variant of element `index` of `s` (-1 when the section has none or its value is unknown).
    int variantOf(const Scene& s, int index) const;
    /// The note of `variant` ("" if none).
    const char* noteOf(int variant) const;
};

/// The spec of a section.
const SectionSpec& section(SectionId id);
/// Every section, in file order.
const std::vector<SectionId>& allSections();

/// Per-key check of a number (finite, in range) as the validator reports it: an empty string, or
/// "must be a finite number" / "must be > 0 (got -1.55)" / "must be in [0, 20] (got 21; note)".
std::string checkNumber(const KeySpec& k, double v);
/// The value as short text (defaults in help texts): "0.99", "[1, 1, 1]", "\"device\"".
std::string schemaValueText(const SchemaValue& v);

} // namespace yee::scene

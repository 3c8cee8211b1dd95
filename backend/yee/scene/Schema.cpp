#include "yee/scene/Schema.hpp"

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <stdexcept>

#include "yee/scene/DetectorKinds.hpp"

namespace yee::scene {

namespace {

std::string num(double v) {
    char b[40];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
}

// ---- binding keys to the Scene model ----------------------------------------------------------

// Element accessors: the object a section's keys live in, for a scene and an element index.
const auto sceneOf = [](auto& s, int) -> auto& {
    return s;
};
const auto boundaryOf = [](auto& s, int i) -> auto& {
    return s.boundaries[std::size_t(i)];
};
const auto materialOf = [](auto& s, int i) -> auto& {
    return s.materials[std::size_t(i)];
};
const auto poleOf = [](auto& s, int i) -> auto& {
    for (auto& m : s.materials) {
        if (i < int(m.poles.size()))
            return m.poles[std::size_t(i)];
        i -= int(m.poles.size());
    }
    throw std::out_of_range("scene schema: no pole " + std::to_string(i));
};
const auto objectOf = [](auto& s, int i) -> auto& {
    return s.objects[std::size_t(i)];
};
const auto sourceOf = [](auto& s, int i) -> auto& {
    return s.sources[std::size_t(i)];
};
const auto profileOf = [](auto& s, int i) -> auto& {
    return s.sources[std::size_t(i)].profile;
};
const auto detectorOf = [](auto& s, int i) -> auto& {
    return s.detectors[std::size_t(i)];
};
const auto designOf = [](auto& s, int i) -> auto& {
    return s.designs[std::size_t(i)];
};
const auto objectiveOf = [](auto& s, int) -> auto& {
    return s.objective;
};
const auto termOf = [](auto& s, int i) -> auto& {
    return s.objective.terms[std::size_t(i)];
};
const auto gradientOf = [](auto& s, int) -> auto& {
    return s.gradient;
};
const auto recorderOf = [](auto& s, int i) -> auto& {
    return s.gradient.recorder[std::size_t(i)];
};
const auto runOf = [](auto& s, int) -> auto& {
    return s.run;
};
const auto optOf = [](auto& s, int) -> auto& {
    return s.optimization;
};
const auto constraintOf = [](auto& s, int i) -> auto& {
    return s.optimization.constraints[std::size_t(i)];
};
const auto constraintTermOf = [](auto& s, int i) -> auto& {
    return s.optimization.constraints[std::size_t(i)].term;
};

struct Binding {
    SchemaGetter get;
    SchemaSetter set;
};

/// A field stored as the canonical value type.
template <class Elem, class T, class M> Binding field(Elem elem, M T::*m) {
    return {[elem, m](const Scene& s, int i) { return SchemaValue(elem(s, i).*m); },
            [elem, m](Scene& s, int i, const SchemaValue& v) { elem(s, i).*m = std::get<M>(v); }};
}

/// An enum (or int / bool) field stored as its file string.
template <class Elem, class T, class M> Binding enumField(Elem elem, M T::*m, const EnumSpec& spec) {
    const EnumSpec* sp = &spec;
    return {[elem, m, sp](const Scene& s, int i) {
                return SchemaValue(std::string(sp->nameOf(static_cast<int>(elem(s, i).*m))));
            },
            [elem, m, sp](Scene& s, int i, const SchemaValue& v) {
                if (const EnumEntry* e = sp->find(std::get<std::string>(v)))
                    elem(s, i).*m = static_cast<M>(e->value);
            }};
}

/// The "+x".."-z" direction of a plane (normal axis and sign).
template <class Elem> Binding directionField(Elem elem) {
    return {[elem](const Scene& s, int i) {
                const auto& e = elem(s, i);
                return SchemaValue(
                    std::string(directions().nameOf(2 * e.normal + (e.direction < 0 ? 1 : 0))));
            },
            [elem](Scene& s, int i, const SchemaValue& v) {
                if (const EnumEntry* d = directions().find(std::get<std::string>(v))) {
                    elem(s, i).normal = d->value / 2;
                    elem(s, i).direction = d->value % 2 ? -1 : +1;
                }
            }};
}

// ---- a compact way to write KeySpecs ------------------------------------------------------------

VariantMask only(std::initializer_list<int> variants) {
    VariantMask m = 0;
    for (int v : variants)
        m |= VariantMask(1) << v;
    return m;
}
template <class E> VariantMask only(std::initializer_list<E> variants) {
    VariantMask m = 0;
    for (E v : variants)
        m |= VariantMask(1) << static_cast<int>(v);
    return m;
}

/// Builder of one KeySpec.
struct K {
    KeySpec k;
    K(const char* name, KeyType type, const char* label, const char* unit, const char* help) {
        k.name = name;
        k.type = type;
        k.label = label;
        k.unit = unit;
        k.help = help;
    }
    K& in(VariantMask m) {
        k.variants = m;
        return *this;
    }
    K& required() {
        k.required = true;
        return *this;
    }
    K& discriminator() {
        k.discriminator = true;
        return *this;
    }
    K& lenient() {
        k.lenient = true;
        return *this;
    }
    K& gt(double lo, const char* note = nullptr) {
        k.range.lo = lo;
        k.range.loOpen = true;
        k.range.note = note;
        return *this;
    }
    K& ge(double lo) {
        k.range.lo = lo;
        return *this;
    }
    K& between(double lo, double hi, bool loOpen = false) {
        k.range.lo = lo;
        k.range.hi = hi;
        k.range.loOpen = loOpen;
        return *this;
    }
    K& split() {
        k.range.split = true;
        return *this;
    }
    K& advise(double lo, const char* note) {
        Range r;
        r.lo = lo;
        r.note = note;
        k.advised = r;
        return *this;
    }
    K& def(SchemaValue v) {
        k.defaultValue = std::move(v);
        return *this;
    }
    K& defText(const char* t) {
        k.defaultText = t;
        return *this;
    }
    K& choices(const EnumSpec& e) {
        k.choices = &e;
        return *this;
    }
    K& sub(SectionId id, int index = -1) {
        k.sub = id;
        k.subIndex = index;
        return *this;
    }
    K& hintMisplaced() {
        k.hintMisplaced = true;
        return *this;
    }
    K& item(const char* noun) {
        k.item = noun;
        return *this;
    }
    K& itemLabels(const char* a, const char* b) {
        k.itemLabels = {a, b};
        return *this;
    }
    K& ui(UiHint h) {
        k.ui = h;
        return *this;
    }
    K& bind(Binding b) {
        k.get = std::move(b.get);
        k.set = std::move(b.set);
        return *this;
    }
    K& get(SchemaGetter g) {
        k.get = std::move(g);
        return *this;
    }
    K& present(std::function<bool(const Scene&, int)> p) {
        k.present = std::move(p);
        return *this;
    }
    operator KeySpec() const { return k; }
};

using KT = KeyType;

// ---- enum tables ------------------------------------------------------------------------------

template <class E> EnumEntry e(E v, const char* name, const char* label, const char* help = "") {
    return {static_cast<int>(v), name, label, help};
}

// ---- sections ---------------------------------------------------------------------------------

template <class List> std::function<int(const Scene&)> countOf(List Scene::*list) {
    return [list](const Scene& s) { return int((s.*list).size()); };
}
template <class List> std::function<int(Scene&)> appendTo(List Scene::*list) {
    return [list](Scene& s) {
        (s.*list).emplace_back();
        return int((s.*list).size()) - 1;
    };
}

SectionSpec newSection(SectionId id, const char* name, const char* label) {
    SectionSpec s;
    s.id = id;
    s.name = name;
    s.label = label;
    return s;
}

EnumSpec enumTable(std::vector<EnumEntry> entries, const char* noun = "value",
                   const char* expected = nullptr) {
    EnumSpec t;
    t.noun = noun;
    t.expected = expected;
    t.entries = std::move(entries);
    return t;
}

/// The default reduction of a term reading quantity `q` (the quantity's own, from the kind registry).
int defaultReduceOf(Quantity q) {
    const auto& qs = quantitySpecs();
    const std::size_t i = std::size_t(q);
    return int(i < qs.size() ? qs[i].defaultReduce : Reduce::AtWavelength);
}

/// Labels of a term's keys in one section.
struct TermLabels {
    const char *detector, *quantity, *reduce, *wavelength;
};

/// The keys of a term (detector, quantity, reduce, wavelength_um) for the section whose element i holds
/// its term at termAt(scene, i): objective terms and optimisation constraints share them.
template <class TermAt> std::vector<KeySpec> termKeys(TermAt termAt, const TermLabels& l) {
    return {
        K("detector", KT::DetectorRef, l.detector, "", "Detector the term reads")
            .required()
            .bind(field(termAt, &ObjectiveTerm::detector)),
        K("quantity", KT::Enum, l.quantity, "", "What is read from the detector")
            .required()
            .choices(quantities())
            .bind(enumField(termAt, &ObjectiveTerm::quantity, quantities())),
        K("reduce", KT::Enum, l.reduce, "",
          "How the record becomes a number (default: time_integral for flux, final for energy, "
          "at_wavelength for phasor_power)")
            .discriminator()
            .choices(reductions())
            .bind(enumField(termAt, &ObjectiveTerm::reduce, reductions())),
        K("wavelength_um", KT::Number, l.wavelength, "um", "One of the detector's wavelengths_um")
            .in(only({Reduce::AtWavelength}))
            .required()
            .gt(0)
            .bind(field(termAt, &ObjectiveTerm::wavelength)),
    };
}

std::vector<SectionSpec> buildSections() {
    std::vector<SectionSpec> out;
    const Vec3 zero{0, 0, 0};

    {
        SectionSpec sc = newSection(SectionId::Scene, "scene", "Scene");
        sc.keys = {
            K("format", KT::Custom, "Format", "", "always \"yee-scene\"").required(),
            K("version", KT::Custom, "Version", "", "file format version (1)").required(),
            K("name", KT::String, "Name", "", "free text")
                .def(std::string())
                .bind(field(sceneOf, &Scene::name)),
            K("grid", KT::Section, "Grid", "", "cell size and time step").required().sub(SectionId::Grid),
            K("domain", KT::Section, "Domain", "", "the simulated box").required().sub(SectionId::Domain),
            K("time", KT::Section, "Time", "", "simulated time").sub(SectionId::Time),
            K("boundaries", KT::Section, "Boundaries", "", "boundary condition per axis")
                .sub(SectionId::Boundaries),
            K("materials", KT::Custom, "Materials", "", "{name: {eps, mu, sigma_S_per_m}}"),
            K("background", KT::MaterialRef, "Background", "", "Material filling space outside every object")
                .def(std::string())
                .bind(field(sceneOf, &Scene::background)),
            K("objects", KT::SectionList, "Objects", "", "painted in order (later ones on top)")
                .sub(SectionId::Object),
            K("sources", KT::SectionList, "Sources", "", "current sources").sub(SectionId::Source),
            K("detectors", KT::SectionList, "Detectors", "", "what is recorded").sub(SectionId::Detector),
            K("designs", KT::SectionList, "Designs", "", "design regions").sub(SectionId::Design),
            K("objective", KT::Section, "Objective", "",
              "figure of merit (leave out for a forward-only scene)")
                .sub(SectionId::Objective)
                .present([](const Scene& s, int) { return s.objective.defined(); }),
            K("gradient", KT::Section, "Gradient", "", "how gradients are computed").sub(SectionId::Gradient),
            K("run", KT::Section, "Run", "", "tiles and devices").sub(SectionId::Run),
            K("optimization", KT::Section, "Optimization", "", "how yee-opt improves the designs")
                .sub(SectionId::Optimization)
                .present([](const Scene& s, int) { return !isDefault(s.optimization); }),
        };
        out.push_back(std::move(sc));
    }
    {
        SectionSpec g = newSection(SectionId::Grid, "grid", "Grid");
        g.keys = {
            K("cell_um", KT::Number, "Cell size", "um", "Edge of one cubic Yee cell")
                .required()
                .gt(0)
                .bind(field(sceneOf, &Scene::cellUm)),
            K("courant", KT::Number, "Courant number", "",
              "Fraction of the 3-D Courant limit; stable in (0, 1]")
                .between(0, 1, true)
                .def(0.99)
                .bind(field(sceneOf, &Scene::courant)),
        };
        out.push_back(std::move(g));
    }
    {
        SectionSpec d = newSection(SectionId::Domain, "domain", "Domain");
        d.keys = {
            K("center_um", KT::Vec3, "Centre", "um", "Centre of the simulated box")
                .def(zero)
                .bind(field(sceneOf, &Scene::domainCenter)),
            K("size_um", KT::Vec3, "Size", "um", "Extent of the simulated box, PML included")
                .required()
                .gt(0)
                .bind(field(sceneOf, &Scene::domainSize)),
        };
        out.push_back(std::move(d));
    }
    {
        SectionSpec t = newSection(SectionId::Time, "time", "Time");
        t.keys = {
            K("duration_fs", KT::Number, "Duration", "fs",
              "Simulated time (100 fs without a \"time\" section)")
                .required()
                .gt(0)
                .bind(field(sceneOf, &Scene::durationFs)),
        };
        out.push_back(std::move(t));
    }
    {
        SectionSpec b = newSection(SectionId::Boundaries, "boundaries", "Boundaries");
        b.keys = {
            K("x", KT::Section, "x", "", "both x faces").sub(SectionId::Boundary, 0),
            K("y", KT::Section, "y", "", "both y faces").sub(SectionId::Boundary, 1),
            K("z", KT::Section, "z", "", "both z faces").sub(SectionId::Boundary, 2),
        };
        out.push_back(std::move(b));
    }
    {
        const VariantMask pml = only({BoundaryType::Pml});
        SectionSpec b = newSection(SectionId::Boundary, "boundary", "Boundary");
        b.variants = &boundaryTypes();
        b.notes = {{int(BoundaryType::Periodic), "PML only"}, {int(BoundaryType::Pec), "PML only"}};
        b.keys = {
            K("type", KT::Enum, "Type", "", "CPML absorbs, periodic wraps, PEC reflects")
                .discriminator()
                .required()
                .choices(boundaryTypes())
                .bind(enumField(boundaryOf, &Boundary::type, boundaryTypes())),
            K("cells", KT::Integer, "PML cells", "", "CPML thickness, inside the domain")
                .in(pml)
                .ge(1)
                .def(10)
                .bind(field(boundaryOf, &Boundary::cells)),
            K("order", KT::Number, "Grading order", "", "Polynomial grading order m of sigma and kappa")
                .in(pml)
                .between(0, 20)
                .def(3.0)
                .bind(field(boundaryOf, &Boundary::order)),
            K("sigma_factor", KT::Number, "Sigma factor", "",
              "sigma_max relative to the optimal 0.8 (m+1) / (eta dx), eta of the background")
                .in(pml)
                .ge(0)
                .def(1.0)
                .bind(field(boundaryOf, &Boundary::sigmaFactor)),
            K("kappa_max", KT::Number, "Kappa max", "", "kappa graded from 1 to kappa_max")
                .in(pml)
                .ge(1)
                .def(1.0)
                .bind(field(boundaryOf, &Boundary::kappaMax)),
            K("alpha_max", KT::Number, "Alpha max", "1/um",
              "CFS alpha / (eps0 c) at the inner face, graded linearly to 0 outward: the CFS pole frequency "
              "is alpha_max * c")
                .in(pml)
                .ge(0)
                .def(1.0)
                .bind(field(boundaryOf, &Boundary::alphaMax)),
        };
        out.push_back(std::move(b));
    }
    {
        SectionSpec m = newSection(SectionId::Material, "materials", "Material");
        m.count = countOf(&Scene::materials);
        m.append = appendTo(&Scene::materials);
        m.keys = {
            K("name", KT::MapKey, "Name", "", "Renaming updates every object using the material")
                .bind(field(materialOf, &Material::name)),
            K("eps", KT::Number, "Permittivity", "",
              "Relative permittivity (>= 1 without dispersion); with poles the high-frequency eps_inf; not "
              "used with library or n")
                .gt(0, "metals: give poles, a library name or n and k")
                .advise(1, "non-dispersive materials are not faster than light")
                .def(1.0)
                .bind(field(materialOf, &Material::eps)),
            K("poles", KT::Custom, "Poles", "",
              "Dispersive poles [{type: drude | lorentz | debye, ...}], eV and fs (see the pole keys)"),
            K("library", KT::String, "Library", "",
              "Name of a built-in library material (Si, SiO2, Si3N4, Al2O3, ITO, Au, Ag, Al, Cu, Ti)")
                .def(std::string())
                .present([](const Scene& s, int i) { return !s.materials[std::size_t(i)].library.empty(); })
                .bind(field(materialOf, &Material::library)),
            K("n", KT::Number, "Refractive index", "",
              "Refractive index at wavelength_um (eps = n^2 - k^2, sigma = 4 pi n k / (eta0 lambda))")
                .ge(0)
                .def(0.0)
                .present([](const Scene& s, int i) { return s.materials[std::size_t(i)].n > 0; })
                .bind(field(materialOf, &Material::n)),
            K("k", KT::Number, "Extinction coefficient", "",
              "Extinction coefficient at wavelength_um (with n)")
                .ge(0)
                .def(0.0)
                .present([](const Scene& s, int i) { return s.materials[std::size_t(i)].n > 0; })
                .bind(field(materialOf, &Material::k)),
            K("wavelength_um", KT::Number, "n, k wavelength", "um", "Vacuum wavelength at which n and k hold")
                .ge(0)
                .def(0.0)
                .present([](const Scene& s, int i) { return s.materials[std::size_t(i)].n > 0; })
                .bind(field(materialOf, &Material::nkWavelengthUm)),
            K("mu", KT::Number, "Permeability", "", "Relative permeability")
                .gt(0)
                .advise(1, nullptr)
                .def(1.0)
                .bind(field(materialOf, &Material::mu)),
            K("sigma_S_per_m", KT::Number, "Conductivity", "S/m", "Electric conductivity")
                .ge(0)
                .def(0.0)
                .bind(field(materialOf, &Material::sigma)),
        };
        out.push_back(std::move(m));
    }
    {
        using PT = PoleType;
        SectionSpec p = newSection(SectionId::Pole, "poles", "Pole");
        p.variants = &poleTypes();
        p.count = [](const Scene& s) {
            int n = 0;
            for (const auto& m : s.materials)
                n += int(m.poles.size());
            return n;
        };
        p.keys = {
            K("type", KT::Enum, "Type", "", "drude | lorentz | debye")
                .discriminator()
                .required()
                .choices(poleTypes())
                .bind(enumField(poleOf, &Pole::type, poleTypes())),
            K("omega_p_eV", KT::Number, "Plasma energy", "eV",
              "hbar omega_p: eps += -omega_p^2 / (omega^2 + i gamma omega)")
                .in(only({PT::Drude}))
                .required()
                .gt(0)
                .bind(field(poleOf, &Pole::omegaEv)),
            K("delta_eps", KT::Number, "Strength", "",
              "delta_eps: lorentz eps += delta_eps omega_0^2 / (omega_0^2 - omega^2 - i gamma omega); "
              "debye eps += delta_eps / (1 - i omega tau)")
                .in(only({PT::Lorentz, PT::Debye}))
                .required()
                .ge(0)
                .bind(field(poleOf, &Pole::deltaEps)),
            K("omega_0_eV", KT::Number, "Resonance energy", "eV", "hbar omega_0 of a Lorentz pole")
                .in(only({PT::Lorentz}))
                .required()
                .gt(0)
                .bind(field(poleOf, &Pole::omegaEv)),
            K("gamma_eV", KT::Number, "Damping", "eV", "hbar gamma (0: lossless)")
                .in(only({PT::Drude, PT::Lorentz}))
                .ge(0)
                .def(0.0)
                .bind(field(poleOf, &Pole::gammaEv)),
            K("tau_fs", KT::Number, "Relaxation time", "fs", "tau of a Debye pole")
                .in(only({PT::Debye}))
                .required()
                .gt(0)
                .bind(field(poleOf, &Pole::tauFs)),
        };
        out.push_back(std::move(p));
    }
    {
        using S = Shape;
        SectionSpec o = newSection(SectionId::Object, "objects", "Object");
        o.variants = &shapes();
        o.count = countOf(&Scene::objects);
        o.append = appendTo(&Scene::objects);
        o.keys = {
            K("name", KT::String, "Name", "", "Optional label")
                .def(std::string())
                .bind(field(objectOf, &Object::name))
                .present([](const Scene& s, int i) { return !s.objects[std::size_t(i)].name.empty(); }),
            K("shape", KT::Enum, "Shape", "", "Geometric primitive")
                .discriminator()
                .required()
                .choices(shapes())
                .bind(enumField(objectOf, &Object::shape, shapes())),
            K("center_um", KT::Vec3, "Centre", "um", "Centre of the object")
                .in(only({S::Box, S::Sphere, S::Cylinder}))
                .required()
                .bind(field(objectOf, &Object::center)),
            K("center_um", KT::Vec3, "Centre", "um",
              "Centre; in-plane it must agree with the vertices' bounding box")
                .in(only({S::Polygon}))
                .bind(field(objectOf, &Object::center)),
            K("size_um", KT::Vec3, "Size", "um", "Box extents")
                .in(only({S::Box}))
                .required()
                .gt(0)
                .bind(field(objectOf, &Object::size)),
            K("radius_um", KT::Number, "Radius", "um", "Sphere or cylinder radius")
                .in(only({S::Sphere, S::Cylinder}))
                .required()
                .gt(0)
                .bind(field(objectOf, &Object::radius)),
            K("axis", KT::Enum, "Axis", "", "Cylinder axis / polygon extrusion axis")
                .in(only({S::Cylinder, S::Polygon}))
                .required()
                .choices(axes())
                .bind(enumField(objectOf, &Object::axis, axes())),
            K("height_um", KT::Number, "Height", "um", "Extent along the axis")
                .in(only({S::Cylinder, S::Polygon}))
                .required()
                .gt(0)
                .bind(field(objectOf, &Object::height)),
            K("vertices_um", KT::Points2, "Vertices", "um",
              "Polygon corners in the plane normal to the axis: \"u,v; u,v; ...\"")
                .in(only({S::Polygon}))
                .required()
                .bind(field(objectOf, &Object::vertices)),
            K("material", KT::MaterialRef, "Material", "", "Material filling the object")
                .required()
                .bind(field(objectOf, &Object::material)),
        };
        out.push_back(std::move(o));
    }
    {
        using T = SourceType;
        const VariantMask plane = only({T::GaussianPlane, T::UniformPlane, T::Mode});
        SectionSpec src = newSection(SectionId::Source, "sources", "Source");
        src.variants = &sourceTypes();
        src.count = countOf(&Scene::sources);
        src.append = appendTo(&Scene::sources);
        src.keys = {
            K("name", KT::String, "Name", "", "Optional label, unique when given")
                .def(std::string())
                .bind(field(sourceOf, &Source::name))
                .present([](const Scene& s, int i) { return !s.sources[std::size_t(i)].name.empty(); }),
            K("type", KT::Enum, "Type", "", "Kind of source")
                .discriminator()
                .required()
                .choices(sourceTypes())
                .bind(enumField(sourceOf, &Source::type, sourceTypes())),
            K("center_um", KT::Vec3, "Centre", "um", "Position of the dipole or centre of the plane")
                .required()
                .bind(field(sourceOf, &Source::center)),
            K("size_um", KT::Vec3, "Size", "um", "Plane extent; the zero extent is the plane normal")
                .in(plane)
                .required()
                .ge(0)
                .bind(field(sourceOf, &Source::size)),
            K("direction", KT::Enum, "Direction", "", "Propagation direction along the plane normal")
                .in(plane)
                .required()
                .choices(directions())
                .bind(directionField(sourceOf)),
            K("polarization", KT::Polarization, "Polarisation", "", "Direction of the driving current")
                .in(only({T::PointDipole, T::GaussianPlane, T::UniformPlane}))
                .required()
                .bind(field(sourceOf, &Source::polarization)),
            K("waist_um", KT::Number, "Waist", "um", "1/e field radius of the Gaussian beam")
                .in(only({T::GaussianPlane}))
                .required()
                .gt(0)
                .bind(field(sourceOf, &Source::waist)),
            K("mode_index", KT::Integer, "Mode", "", "Mode launched: 0 = largest n_eff (or nearest n_guess)")
                .in(only({T::Mode}))
                .between(0, 31)
                .def(0)
                .bind(field(sourceOf, &Source::mode)),
            K("n_guess", KT::Number, "n_eff guess", "",
              "0: modes by decreasing n_eff; > 0: modes nearest this")
                .in(only({T::Mode}))
                .ge(0)
                .def(0.0)
                .bind(field(sourceOf, &Source::nGuess)),
            K("port_pml_cells", KT::Integer, "Port PML", "cells",
              "0: the mode is solved between PEC walls at the plane's edges; > 0: with a PML this thick "
              "outside them (open guides, narrow ports)")
                .in(only({T::Mode}))
                .between(0, 64)
                .def(0)
                .bind(field(sourceOf, &Source::portPml)),
            K("profile", KT::Section, "Profile", "", "Time dependence")
                .required()
                .sub(SectionId::Profile)
                .hintMisplaced(),
        };
        out.push_back(std::move(src));
    }
    {
        using P = ProfileType;
        const VariantMask pulse = only({P::GaussianPulse}), cw = only({P::Cw});
        SectionSpec p = newSection(SectionId::Profile, "profile", "Profile");
        p.variants = &profileTypes();
        p.notes = {{int(P::GaussianPulse), "cw only"}, {int(P::Cw), "gaussian_pulse only"}};
        p.keys = {
            K("type", KT::Enum, "Time profile", "", "Gaussian pulse or ramped continuous wave")
                .discriminator()
                .choices(profileTypes())
                .def(std::string("gaussian_pulse"))
                .bind(enumField(profileOf, &Profile::type, profileTypes())),
            K("wavelength_um", KT::Number, "Wavelength", "um", "Centre wavelength")
                .required()
                .gt(0)
                .bind(field(profileOf, &Profile::wavelength)),
            K("bandwidth_um", KT::Number, "Bandwidth", "um", "FWHM bandwidth in wavelength")
                .in(pulse)
                .gt(0)
                .def(0.3)
                .bind(field(profileOf, &Profile::bandwidth)),
            K("delay_fs", KT::Number, "Delay", "fs", "Pulse centre time; negative = automatic")
                .in(pulse)
                .defText("automatic")
                .bind(field(profileOf, &Profile::delay))
                .present([](const Scene& s, int i) { return s.sources[std::size_t(i)].profile.delay >= 0; }),
            K("ramp_fs", KT::Number, "Ramp", "fs", "Raised-cosine ramp time of the CW source")
                .in(cw)
                .ge(0)
                .def(20.0)
                .bind(field(profileOf, &Profile::ramp)),
            K("amplitude", KT::Number, "Amplitude", "", "Peak current amplitude (normalised units)")
                .def(1.0)
                .bind(field(profileOf, &Profile::amplitude)),
            K("phase", KT::Number, "Phase", "rad", "Carrier phase")
                .def(0.0)
                .bind(field(profileOf, &Profile::phase)),
        };
        out.push_back(std::move(p));
    }
    {
        SectionSpec d = newSection(SectionId::Detector, "detectors", "Detector");
        d.variants = &detectorTypes();
        d.count = countOf(&Scene::detectors);
        d.append = appendTo(&Scene::detectors);
        d.keys = {
            K("name", KT::String, "Name", "", "Renaming updates the objective terms using it")
                .required()
                .bind(field(detectorOf, &Detector::name)),
            K("type", KT::Enum, "Type", "", "Kind of detector")
                .discriminator()
                .required()
                .choices(detectorTypes())
                .bind(enumField(detectorOf, &Detector::type, detectorTypes())),
            K("center_um", KT::Vec3, "Centre", "um", "Centre of the recorded region")
                .required()
                .bind(field(detectorOf, &Detector::center)),
        };
        // Each registered kind's own keys (DetectorKinds.hpp), for that kind alone.
        const auto& kinds = detectorKinds();
        for (std::size_t v = 0; v < kinds.size(); ++v)
            for (KeySpec k : kinds[v].keys) {
                k.variants = VariantMask(1) << v;
                d.keys.push_back(std::move(k));
            }
        out.push_back(std::move(d));
    }
    {
        SectionSpec g = newSection(SectionId::Design, "designs", "Design");
        g.count = countOf(&Scene::designs);
        g.append = appendTo(&Scene::designs);
        g.keys = {
            K("name", KT::String, "Name", "", "Unique name of the design region")
                .required()
                .bind(field(designOf, &Design::name)),
            K("center_um", KT::Vec3, "Centre", "um", "Centre of the design box")
                .required()
                .bind(field(designOf, &Design::center)),
            K("size_um", KT::Vec3, "Size", "um", "Extent of the design box (snapped to cell faces)")
                .required()
                .gt(0)
                .bind(field(designOf, &Design::size)),
            K("voxel_cells", KT::IntVec3, "Voxel cells", "", "Grid cells per latent voxel along x, y, z")
                .ge(1)
                .def(std::array<int, 3>{1, 1, 1})
                .bind(field(designOf, &Design::voxelCells)),
            K("materials", KT::MaterialPair, "Materials", "",
              "Materials at density 0 and 1 [rho = 0, rho = 1]")
                .required()
                .itemLabels("Material at rho = 0", "Material at rho = 1")
                .bind({[](const Scene& s, int i) {
                           const auto& m = s.designs[std::size_t(i)].materials;
                           return SchemaValue(std::vector<std::string>{m[0], m[1]});
                       },
                       [](Scene& s, int i, const SchemaValue& v) {
                           const auto& l = std::get<std::vector<std::string>>(v);
                           auto& m = s.designs[std::size_t(i)].materials;
                           m = {l.size() > 0 ? l[0] : std::string(), l.size() > 1 ? l[1] : std::string()};
                       }}),
            K("filter_radius_um", KT::Number, "Filter radius", "um", "Density filter radius; 0 = no filter")
                .ge(0)
                .def(0.0)
                .bind(field(designOf, &Design::filterRadius)),
            K("projection", KT::Section, "Projection", "", "tanh projection of the filtered density")
                .sub(SectionId::Projection),
            K("params", KT::Custom, "Parameters", "", "Sidecar HDF5 dataset of the latent parameters")
                .ui(UiHint::ReadOnly)
                .get([](const Scene& s, int i) {
                    const std::string& p = s.designs[std::size_t(i)].params;
                    return SchemaValue(p.empty() ? std::string("(0.5 everywhere)") : p);
                }),
            K("latent", KT::Custom, "Latent values", "", "Inline latent values in [0, 1], x fastest")
                .ui(UiHint::Hidden),
        };
        out.push_back(std::move(g));
    }
    {
        SectionSpec p = newSection(SectionId::Projection, "projection", "Projection");
        p.keys = {
            K("beta", KT::Number, "Projection beta", "", "tanh projection steepness; 0 = none")
                .between(0, 1e4)
                .split()
                .def(0.0)
                .bind(field(designOf, &Design::beta)),
            K("eta", KT::Number, "Projection eta", "", "tanh projection threshold")
                .between(0, 1)
                .def(0.5)
                .bind(field(designOf, &Design::eta)),
        };
        out.push_back(std::move(p));
    }
    {
        SectionSpec o = newSection(SectionId::Objective, "objective", "Objective");
        o.keys = {
            K("goal", KT::Enum, "Goal", "", "Maximize or minimize the sum of the terms")
                .choices(goals())
                .def(std::string("maximize"))
                .bind(enumField(objectiveOf, &Objective::maximize, goals())),
            K("terms", KT::SectionList, "Terms", "", "Weighted terms, summed")
                .required()
                .sub(SectionId::Term),
        };
        out.push_back(std::move(o));
    }
    {
        SectionSpec t = newSection(SectionId::Term, "terms", "Term");
        t.variants = &reductions();
        t.readFirst = {"detector", "quantity"};
        t.defaultVariant = [](const Scene& s, int i) {
            return defaultReduceOf(s.objective.terms[std::size_t(i)].quantity);
        };
        t.notes = {{int(Reduce::TimeIntegral), "at_wavelength only"},
                   {int(Reduce::Final), "at_wavelength only"}};
        t.count = [](const Scene& s) { return int(s.objective.terms.size()); };
        t.append = [](Scene& s) {
            s.objective.terms.emplace_back();
            return int(s.objective.terms.size()) - 1;
        };
        t.keys = termKeys(termOf, {"Term detector", "Term quantity", "Term reduction", "Term wavelength"});
        t.keys.push_back(K("weight", KT::Number, "Term weight", "", "Factor of this term")
                             .def(1.0)
                             .bind(field(termOf, &ObjectiveTerm::weight)));
        out.push_back(std::move(t));
    }
    {
        using M = GradientMethod;
        SectionSpec g = newSection(SectionId::Gradient, "gradient", "Gradient");
        g.variants = &gradientMethods();
        g.notes = {{int(M::Reversible), "see num_checkpoints_reversible"}};
        g.keys = {
            K("method", KT::Enum, "Method", "", "How the forward state is recovered in the reverse sweep")
                .discriminator()
                .choices(gradientMethods())
                .def(std::string("checkpointed"))
                .bind(enumField(gradientOf, &GradientConfig::method, gradientMethods())),
            K("num_checkpoints", KT::Integer, "Checkpoints", "",
              "Full-state checkpoints of the binomial schedule")
                .in(only({M::Checkpointed}))
                .ge(1)
                .def(8)
                .bind(field(gradientOf, &GradientConfig::numCheckpoints)),
            K("num_checkpoints_reversible", KT::Integer, "Drift checkpoints", "",
              "Full-state checkpoints bounding drift in lossy media")
                .in(only({M::Reversible}))
                .ge(0)
                .def(0)
                .bind(field(gradientOf, &GradientConfig::numCheckpointsReversible)),
            K("recorder", KT::SectionList, "Recorder", "", "Edited in the gradient panel")
                .in(only({M::Reversible}))
                .sub(SectionId::Recorder)
                .ui(UiHint::ReadOnly),
            K("storage", KT::Section, "Storage", "", "Where records and checkpoints live")
                .sub(SectionId::Storage),
        };
        out.push_back(std::move(g));
    }
    {
        const VariantMask lrk = only({0}), dtc = only({1});
        SectionSpec r = newSection(SectionId::Recorder, "recorder", "Recorder module");
        r.variants = &recorderModules();
        r.count = [](const Scene& s) { return int(s.gradient.recorder.size()); };
        r.append = [](Scene& s) {
            s.gradient.recorder.emplace_back();
            return int(s.gradient.recorder.size()) - 1;
        };
        r.keys = {
            K("module", KT::Enum, "Module", "", "Recorder module, applied in order on write")
                .discriminator()
                .required()
                .choices(recorderModules())
                .bind(field(recorderOf, &RecorderModule::module)),
            K("k", KT::Integer, "k", "", "Keep every k-th step (and the last); interpolate between")
                .in(lrk)
                .required()
                .ge(1)
                .bind(field(recorderOf, &RecorderModule::k)),
            K("start_after", KT::Integer, "Start after", "", "Steps recorded exactly before thinning starts")
                .in(lrk)
                .ge(0)
                .def(0)
                .bind(field(recorderOf, &RecorderModule::startAfter)),
            K("dtype", KT::Enum, "Stored type", "", "Type the records are stored in")
                .in(dtc)
                .required()
                .lenient()
                .choices(dtypes())
                .bind(field(recorderOf, &RecorderModule::dtype)),
        };
        out.push_back(std::move(r));
    }
    {
        const VariantMask staged = only({1, 2}), disk = only({2});
        SectionSpec st = newSection(SectionId::Storage, "storage", "Storage");
        st.variants = &storageTiers();
        st.keys = {
            K("tier", KT::Enum, "Storage tier", "", "Where records and checkpoints live")
                .discriminator()
                .lenient()
                .choices(storageTiers())
                .def(std::string("device"))
                .bind(field(gradientOf, &GradientConfig::tier)),
            K("transfer_interval", KT::Integer, "Transfer interval", "steps",
              "Steps per asynchronous copy to the host ring")
                .in(staged)
                .ge(1)
                .def(1)
                .bind(field(gradientOf, &GradientConfig::transferInterval)),
            K("ring_buffers", KT::Integer, "Ring buffers", "", "Staging slots of the host ring")
                .in(staged)
                .ge(1)
                .advise(2, nullptr)
                .def(4)
                .bind(field(gradientOf, &GradientConfig::ringBuffers)),
            K("path", KT::String, "Disk path", "", "Directory for the disk tier; empty = temporary")
                .in(disk)
                .def(std::string())
                .bind(field(gradientOf, &GradientConfig::diskPath)),
        };
        out.push_back(std::move(st));
    }
    {
        SectionSpec r = newSection(SectionId::Run, "run", "Run");
        r.keys = {
            K("tiles", KT::IntVec3, "Tiles", "", "Tile grid px, py, pz; one device per tile")
                .ge(1)
                .def(std::array<int, 3>{1, 1, 1})
                .bind(field(runOf, &RunConfig::tiles)),
            K("devices", KT::String, "Devices", "",
              "\"cpu:N\" emulated devices, \"cuda:0,1\" or \"cuda:all\"")
                .def(std::string("cpu:1"))
                .bind(field(runOf, &RunConfig::devices)),
            K("precision", KT::Enum, "Precision", "", "Floating-point type of the fields")
                .lenient()
                .choices(precisions())
                .def(std::string("float32"))
                .bind(field(runOf, &RunConfig::precision)),
            K("overlap", KT::Boolean, "Overlap halos", "",
              "Overlap halo exchange with interior work (same bits either way)")
                .def(true)
                .bind(field(runOf, &RunConfig::overlap)),
        };
        out.push_back(std::move(r));
    }
    {
        using O = OptimizerKind;
        SectionSpec o = newSection(SectionId::Optimization, "optimization", "Optimization");
        o.variants = &optimizers();
        o.keys = {
            K("optimizer", KT::Enum, "Optimizer", "",
              "MMA, CCSA (NLopt; latent bounds as box constraints) or Adam")
                .discriminator()
                .choices(optimizers())
                .def(std::string("mma"))
                .bind(enumField(optOf, &OptimizationConfig::optimizer, optimizers())),
            K("iterations", KT::Integer, "Iterations", "", "Value-and-grad evaluations at most")
                .ge(1)
                .def(20)
                .bind(field(optOf, &OptimizationConfig::iterations)),
            K("step", KT::Number, "Learning rate", "",
              "Adam step in latent units (latent values lie in [0, 1])")
                .in(only({O::Adam}))
                .gt(0)
                .def(0.05)
                .bind(field(optOf, &OptimizationConfig::step)),
            K("beta1", KT::Number, "Adam beta1", "", "First-moment decay")
                .in(only({O::Adam}))
                .between(0, 1)
                .def(0.9)
                .bind(field(optOf, &OptimizationConfig::beta1)),
            K("beta2", KT::Number, "Adam beta2", "", "Second-moment decay")
                .in(only({O::Adam}))
                .between(0, 1)
                .def(0.999)
                .bind(field(optOf, &OptimizationConfig::beta2)),
            K("ftol_rel", KT::Number, "Objective tolerance", "",
              "Stop when the figure of merit changes by less than this, relatively; 0 = off")
                .ge(0)
                .def(0.0)
                .bind(field(optOf, &OptimizationConfig::ftolRel)),
            K("xtol_rel", KT::Number, "Design tolerance", "",
              "Stop when no latent value moves by more than this, relatively; 0 = off")
                .in(only({O::Mma, O::Ccsa}))
                .ge(0)
                .def(0.0)
                .bind(field(optOf, &OptimizationConfig::xtolRel)),
            K("form", KT::Enum, "Objective form", "",
              "sum: the weighted sum of the terms; worst: the worst weighted term (min-max, MMA/CCSA)")
                .in(only({O::Mma, O::Ccsa}))
                .choices(objectiveForms())
                .def(std::string("sum"))
                .bind(enumField(optOf, &OptimizationConfig::form, objectiveForms())),
            K("beta_factor", KT::Number, "Beta factor", "",
              "Continuation: every projected design's beta is multiplied by this each stage; 1 = off")
                .ge(1)
                .def(1.0)
                .bind(field(optOf, &OptimizationConfig::betaFactor)),
            K("beta_every", KT::Integer, "Beta stage", "", "Evaluations per continuation stage")
                .ge(1)
                .def(10)
                .bind(field(optOf, &OptimizationConfig::betaEvery)),
            K("beta_max", KT::Number, "Beta limit", "", "Continuation never raises beta above this")
                .gt(0)
                .def(64.0)
                .bind(field(optOf, &OptimizationConfig::betaMax)),
            K("min_length_um", KT::Number, "Minimum length", "um",
              "Smallest solid or void feature; sets the filter radius of designs without their own; 0 = off")
                .ge(0)
                .def(0.0)
                .bind(field(optOf, &OptimizationConfig::minLengthUm)),
            K("length_constraints", KT::Boolean, "Length-scale constraints", "",
              "Geometric constraints enforcing min_length_um in the final beta stage (MMA/CCSA)")
                .in(only({O::Mma, O::Ccsa}))
                .def(false)
                .bind(field(optOf, &OptimizationConfig::lengthConstraints)),
            K("length_tolerance", KT::Number, "Length-scale tolerance", "",
              "Bound of the length-scale constraints (mean squared violation per voxel)")
                .in(only({O::Mma, O::Ccsa}))
                .gt(0)
                .def(1e-6)
                .bind(field(optOf, &OptimizationConfig::lengthTolerance)),
            K("constraints", KT::SectionList, "Constraints", "", "Inequalities on other terms (MMA/CCSA)")
                .in(only({O::Mma, O::Ccsa}))
                .sub(SectionId::Constraint),
        };
        out.push_back(std::move(o));
    }
    {
        SectionSpec c = newSection(SectionId::Constraint, "constraints", "Constraint");
        c.variants = &reductions();
        c.readFirst = {"detector", "quantity"};
        c.defaultVariant = [](const Scene& s, int i) {
            return defaultReduceOf(s.optimization.constraints[std::size_t(i)].term.quantity);
        };
        c.count = [](const Scene& s) { return int(s.optimization.constraints.size()); };
        c.append = [](Scene& s) {
            s.optimization.constraints.emplace_back();
            return int(s.optimization.constraints.size()) - 1;
        };
        c.keys = termKeys(constraintTermOf, {"Constraint detector", "Constraint quantity",
                                             "Constraint reduction", "Constraint wavelength"});
        for (KeySpec& k : std::vector<KeySpec>{
                 K("bound", KT::Enum, "Bound", "", "max: value <= limit; min: value >= limit")
                     .required()
                     .choices(bounds())
                     .bind(enumField(constraintOf, &OptConstraint::upper, bounds())),
                 K("limit", KT::Number, "Limit", "", "The bound, in the term's units (e.g. a flux in W)")
                     .required()
                     .bind(field(constraintOf, &OptConstraint::bound)),
             })
            c.keys.push_back(std::move(k));
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace

// ---- Range ------------------------------------------------------------------------------------

bool Range::contains(double v) const {
    if (loOpen ? !(v > lo) : !(v >= lo))
        return false;
    if (hiOpen ? !(v < hi) : !(v <= hi))
        return false;
    return true;
}

std::string Range::text(std::optional<double> failing, bool integer) const {
    auto fmt = [integer](double v) { return integer ? std::to_string(static_cast<long long>(v)) : num(v); };
    const bool hasLo = lo > -std::numeric_limits<double>::infinity();
    const bool hasHi = hi < std::numeric_limits<double>::infinity();
    const bool loFails = failing && (loOpen ? !(*failing > lo) : !(*failing >= lo));
    if (hasLo && (!hasHi || (split && (!failing || loFails))))
        return std::string("must be ") + (loOpen ? "> " : ">= ") + fmt(lo);
    if (hasHi && (!hasLo || split))
        return std::string("must be ") + (hiOpen ? "< " : "<= ") + fmt(hi);
    if (!hasLo)
        return {};
    return std::string("must be in ") + (loOpen ? "(" : "[") + fmt(lo) + ", " + fmt(hi) +
           (hiOpen ? ")" : "]");
}

// ---- EnumSpec ---------------------------------------------------------------------------------

const EnumEntry* EnumSpec::find(std::string_view name) const {
    for (const auto& e : entries)
        if (name == e.name)
            return &e;
    return nullptr;
}
const EnumEntry* EnumSpec::find(int value) const {
    for (const auto& e : entries)
        if (e.value == value)
            return &e;
    return nullptr;
}
const char* EnumSpec::nameOf(int value) const {
    const EnumEntry* e = find(value);
    return e ? e->name : "?";
}
std::vector<std::string> EnumSpec::names() const {
    std::vector<std::string> r;
    for (const auto& e : entries)
        r.emplace_back(e.name);
    return r;
}
std::string EnumSpec::choicesText() const {
    if (expected)
        return expected;
    std::string out;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (i)
            out += i + 1 == entries.size() ? " or " : ", ";
        out += std::string("\"") + entries[i].name + "\"";
    }
    return out;
}

// ---- enum tables ------------------------------------------------------------------------------

const EnumSpec& boundaryTypes() {
    static const EnumSpec t =
        enumTable({e(BoundaryType::Pml, "pml", "PML", "convolutional PML, absorbs"),
                   e(BoundaryType::Periodic, "periodic", "Periodic", "wraps around"),
                   e(BoundaryType::Pec, "pec", "PEC", "perfect electric conductor, reflects")});
    return t;
}
const EnumSpec& shapes() {
    static const EnumSpec t = enumTable({e(Shape::Box, "box", "Box"), e(Shape::Sphere, "sphere", "Sphere"),
                                         e(Shape::Cylinder, "cylinder", "Cylinder"),
                                         e(Shape::Polygon, "polygon", "Polygon prism")});
    return t;
}
const EnumSpec& sourceTypes() {
    static const EnumSpec t = enumTable(
        {e(SourceType::PointDipole, "point_dipole", "Point dipole", "a point current"),
         e(SourceType::GaussianPlane, "gaussian_plane", "Gaussian beam",
           "a plane sheet with a Gaussian profile"),
         e(SourceType::UniformPlane, "uniform_plane", "Plane wave", "a uniform plane sheet"),
         e(SourceType::Mode, "mode", "Mode source", "a waveguide mode launched one way from a port plane")});
    return t;
}
const EnumSpec& profileTypes() {
    static const EnumSpec t =
        enumTable({e(ProfileType::GaussianPulse, "gaussian_pulse", "Gaussian pulse"),
                   e(ProfileType::Cw, "cw", "Continuous wave", "ramped up, then steady")});
    return t;
}
const EnumSpec& detectorTypes() {
    static const EnumSpec t = [] {
        std::vector<EnumEntry> entries;
        const auto& kinds = detectorKinds();
        for (std::size_t i = 0; i < kinds.size(); ++i)
            entries.push_back({int(i), kinds[i].name.c_str(), kinds[i].label.c_str(), kinds[i].help.c_str()});
        return enumTable(std::move(entries));
    }();
    return t;
}
const EnumSpec& quantities() {
    static const EnumSpec t = [] {
        std::vector<EnumEntry> entries;
        const auto& qs = quantitySpecs();
        for (std::size_t i = 0; i < qs.size(); ++i)
            entries.push_back({int(i), qs[i].name.c_str(), qs[i].label.c_str(), qs[i].help.c_str()});
        return enumTable(std::move(entries));
    }();
    return t;
}
const EnumSpec& reductions() {
    static const EnumSpec t = enumTable({e(Reduce::TimeIntegral, "time_integral", "Time integral"),
                                         e(Reduce::AtWavelength, "at_wavelength", "At a wavelength"),
                                         e(Reduce::Final, "final", "Final value")});
    return t;
}
const EnumSpec& gradientMethods() {
    static const EnumSpec t = enumTable(
        {e(GradientMethod::Full, "full", "Full", "keep every step (small problems)"),
         e(GradientMethod::Checkpointed, "checkpointed", "Checkpointed", "binomial checkpoints, exact"),
         e(GradientMethod::Reversible, "reversible", "Reversible",
           "run Maxwell backwards, record the PML interface")});
    return t;
}
const EnumSpec& optimizers() {
    static const EnumSpec t = enumTable(
        {e(OptimizerKind::Mma, "mma", "MMA", "method of moving asymptotes (NLopt)"),
         e(OptimizerKind::Ccsa, "ccsa", "CCSA", "conservative convex separable approximations (NLopt)"),
         e(OptimizerKind::Adam, "adam", "Adam", "adaptive moments, projected onto [0, 1]")},
        "optimizer");
    return t;
}
const EnumSpec& objectiveForms() {
    static const EnumSpec t =
        enumTable({e(ObjectiveForm::Sum, "sum", "Sum", "weighted sum of the terms"),
                   e(ObjectiveForm::Worst, "worst", "Worst term", "min-max by the epigraph form")},
                  "form");
    return t;
}
const EnumSpec& bounds() {
    static const EnumSpec t = enumTable({{1, "max", "At most", ""}, {0, "min", "At least", ""}}, "bound");
    return t;
}
const EnumSpec& poleTypes() {
    static const EnumSpec t = enumTable(
        {e(PoleType::Drude, "drude", "Drude", "free carriers: plasma energy and damping"),
         e(PoleType::Lorentz, "lorentz", "Lorentz", "bound oscillator: strength, resonance, damping"),
         e(PoleType::Debye, "debye", "Debye", "relaxation: strength and time")},
        "pole type");
    return t;
}
const EnumSpec& goals() {
    static const EnumSpec t = enumTable({{1, "maximize", "Maximize", ""}, {0, "minimize", "Minimize", ""}});
    return t;
}
const EnumSpec& recorderModules() {
    static const EnumSpec t = enumTable(
        {{0, "LinearReconstructEveryK", "Linear reconstruction", "keep every k-th step"},
         {1, "DtypeConversion", "Dtype conversion", "store in a smaller type with a per-record scale"}},
        "recorder module");
    return t;
}
const EnumSpec& dtypes() {
    static const EnumSpec t = enumTable({{0, "bfloat16", "bfloat16", ""},
                                         {1, "float16", "float16", ""},
                                         {2, "int8", "int8", ""},
                                         {3, "float32", "float32", ""},
                                         {4, "float64", "float64", ""}},
                                        "dtype");
    return t;
}
const EnumSpec& storageTiers() {
    static const EnumSpec t = enumTable({{0, "device", "Device", "on the tile's device"},
                                         {1, "host", "Host", "pinned ring, async copies"},
                                         {2, "disk", "Disk", "file-backed, read-ahead"}},
                                        "tier");
    return t;
}
const EnumSpec& precisions() {
    static const EnumSpec t = enumTable(
        {{0, "float32", "float32", "single precision"}, {1, "float64", "float64", "double precision"}},
        "precision");
    return t;
}
const EnumSpec& axes() {
    static const EnumSpec t = enumTable({{0, "x", "x", ""}, {1, "y", "y", ""}, {2, "z", "z", ""}}, "axis");
    return t;
}
const EnumSpec& directions() {
    static const EnumSpec t = enumTable({{0, "+x", "+x", ""},
                                         {1, "-x", "-x", ""},
                                         {2, "+y", "+y", ""},
                                         {3, "-y", "-y", ""},
                                         {4, "+z", "+z", ""},
                                         {5, "-z", "-z", ""}},
                                        "direction");
    return t;
}
const EnumSpec& fieldComponents() {
    static const EnumSpec t = enumTable({{0, "Ex", "Ex", ""},
                                         {1, "Ey", "Ey", ""},
                                         {2, "Ez", "Ez", ""},
                                         {3, "Hx", "Hx", ""},
                                         {4, "Hy", "Hy", ""},
                                         {5, "Hz", "Hz", ""}},
                                        "field component", "\"Ex\" .. \"Hz\"");
    return t;
}

template <> const EnumSpec& enumSpecOf<BoundaryType>() {
    return boundaryTypes();
}
template <> const EnumSpec& enumSpecOf<Shape>() {
    return shapes();
}
template <> const EnumSpec& enumSpecOf<SourceType>() {
    return sourceTypes();
}
template <> const EnumSpec& enumSpecOf<ProfileType>() {
    return profileTypes();
}
template <> const EnumSpec& enumSpecOf<DetectorType>() {
    return detectorTypes();
}
template <> const EnumSpec& enumSpecOf<Quantity>() {
    return quantities();
}
template <> const EnumSpec& enumSpecOf<Reduce>() {
    return reductions();
}
template <> const EnumSpec& enumSpecOf<GradientMethod>() {
    return gradientMethods();
}
template <> const EnumSpec& enumSpecOf<PoleType>() {
    return poleTypes();
}

std::string EnumSpec::unknownText(std::string_view given) const {
    std::string g;
    for (unsigned char c : given) {
        if (g.size() >= 60) {
            g += "...";
            break;
        }
        if (c < 0x20 || c == 0x7f) {
            char b[8];
            std::snprintf(b, sizeof b, "\\x%02x", unsigned(c));
            g += b;
        } else {
            if (c == '"' || c == '\\')
                g += '\\';
            g += char(c);
        }
    }
    return std::string("unknown ") + noun + " \"" + g + "\" (expected " + choicesText() + ")";
}

// ---- KeySpec / SectionSpec ----------------------------------------------------------------------

bool KeySpec::appliesTo(int variant) const {
    if (variants == kAllVariants)
        return true;
    return variant >= 0 && variant < 32 && (variants >> variant) & 1u;
}

const KeySpec* SectionSpec::discriminator() const {
    for (const auto& k : keys)
        if (k.discriminator)
            return &k;
    return nullptr;
}

const KeySpec* SectionSpec::find(std::string_view n, int variant) const {
    for (const auto& k : keys)
        if (n == k.name && k.appliesTo(variant))
            return &k;
    return nullptr;
}

const KeySpec* SectionSpec::findAny(std::string_view n) const {
    for (const auto& k : keys)
        if (n == k.name)
            return &k;
    return nullptr;
}

std::vector<const KeySpec*> SectionSpec::keysFor(int variant) const {
    std::vector<const KeySpec*> r;
    for (const auto& k : keys) {
        if (!k.appliesTo(variant))
            continue;
        bool dup = false;
        for (const KeySpec* p : r)
            dup = dup || std::string_view(p->name) == k.name;
        if (!dup)
            r.push_back(&k);
    }
    return r;
}

int SectionSpec::variantOf(const Scene& s, int index) const {
    const KeySpec* d = discriminator();
    if (!d || !variants || !d->get)
        return -1;
    const SchemaValue v = d->get(s, index);
    const auto* name = std::get_if<std::string>(&v);
    const EnumEntry* e = name ? variants->find(*name) : nullptr;
    return e ? e->value : -1;
}

const char* SectionSpec::noteOf(int variant) const {
    for (const auto& [v, n] : notes)
        if (v == variant)
            return n;
    return "";
}

const Pole& poleAt(const Scene& s, int index) {
    return poleOf(s, index);
}

int poleIndex(const Scene& s, std::size_t m, std::size_t j) {
    int n = 0;
    for (std::size_t q = 0; q < m; ++q)
        n += int(s.materials[q].poles.size());
    return n + int(j);
}

const SectionSpec& section(SectionId id) {
    static const std::vector<SectionSpec> all = buildSections();
    for (const auto& s : all)
        if (s.id == id)
            return s;
    throw std::logic_error("scene schema: no section " + std::to_string(int(id)));
}

const std::vector<SectionId>& allSections() {
    static const std::vector<SectionId> ids = [] {
        std::vector<SectionId> r;
        for (int i = 0; i <= int(SectionId::Constraint); ++i)
            r.push_back(SectionId(i));
        return r;
    }();
    return ids;
}

std::string checkNumber(const KeySpec& k, double v) {
    if (!std::isfinite(v))
        return "must be a finite number";
    if (!k.range.any() || k.range.contains(v))
        return {};
    const bool integer = k.type == KeyType::Integer || k.type == KeyType::IntVec3;
    std::string got = integer ? std::to_string(static_cast<long long>(v)) : num(v);
    if (k.range.note)
        got += std::string("; ") + k.range.note;
    return k.range.text(v, integer) + " (got " + got + ")";
}

std::string schemaValueText(const SchemaValue& v) {
    struct Visitor {
        std::string operator()(std::monostate) const { return {}; }
        std::string operator()(double d) const { return num(d); }
        std::string operator()(int i) const { return std::to_string(i); }
        std::string operator()(bool b) const { return b ? "true" : "false"; }
        std::string operator()(const std::string& s) const { return "\"" + s + "\""; }
        std::string operator()(const Vec3& a) const {
            std::string r = "[";
            r += num(a[0]) + ", " + num(a[1]) + ", " + num(a[2]);
            return r + "]";
        }
        std::string operator()(const std::array<int, 3>& a) const {
            std::string r = "[";
            r += std::to_string(a[0]) + ", " + std::to_string(a[1]) + ", " + std::to_string(a[2]);
            return r + "]";
        }
        std::string operator()(const std::vector<double>& l) const {
            std::string r = "[";
            for (std::size_t i = 0; i < l.size(); ++i)
                r += (i ? ", " : "") + num(l[i]);
            return r + "]";
        }
        std::string operator()(const std::vector<std::string>& l) const {
            std::string r = "[";
            for (std::size_t i = 0; i < l.size(); ++i)
                r += (i ? ", \"" : "\"") + l[i] + "\"";
            return r + "]";
        }
        std::string operator()(const std::vector<std::array<double, 2>>& l) const {
            std::string r = "[";
            for (std::size_t i = 0; i < l.size(); ++i)
                r += (i ? ", [" : "[") + num(l[i][0]) + ", " + num(l[i][1]) + "]";
            return r + "]";
        }
    };
    return std::visit(Visitor{}, v);
}

} // namespace yee::scene

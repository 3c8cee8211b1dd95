#pragma once
/// \file MaterialLibrary.hpp
/// The built-in library of photonic materials as pole fits (eps_inf plus Drude / Lorentz poles, units
/// of Scene.hpp's Pole), each with its valid wavelength range and the publication its numbers come
/// from. A scene names one with a material's "library" key.
#include <string>
#include <vector>

#include "yee/scene/Scene.hpp"

namespace yee::scene {

/// One library material.
struct LibraryMaterial {
    const char* name;        ///< the scene name ("Au")
    const char* description; ///< what it is
    const char* reference;   ///< the publication the fit parameters come from
    double epsInf;           ///< high-frequency permittivity
    std::vector<Pole> poles; ///< poles in eV / fs
    double validLoUm;        ///< valid vacuum wavelengths, um
    double validHiUm;
};

/// Every library material, in display order.
const std::vector<LibraryMaterial>& materialLibrary();
/// The library material called `name` (case-sensitive), or nullptr.
const LibraryMaterial* findLibraryMaterial(const std::string& name);

} // namespace yee::scene

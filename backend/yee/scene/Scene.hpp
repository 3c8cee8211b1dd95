#pragma once
/// \file Scene.hpp
/// The scene model: plain C++ data, no Qt. Units as in the file format: lengths and wavelengths in
/// micrometres (um), times in femtoseconds (fs), conductivity in S/m. See docs in README.md.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace yee::scene {

using Vec3 = std::array<double, 3>;

inline constexpr const char* kFormatName = "yee-scene";
inline constexpr int kFormatVersion = 1;

/// Speed of light in um/fs.
inline constexpr double kC_um_per_fs = 0.299792458;
/// Impedance of free space in ohms.
inline constexpr double kEta0 = 376.730313668;

enum class BoundaryType { Pml, Periodic, Pec };

/// Boundary of one axis (both faces). CPML parameters follow Roden & Gedney (2000).
struct Boundary {
    BoundaryType type = BoundaryType::Pml;
    int cells = 10;            ///< PML thickness in cells
    double order = 3.0;        ///< polynomial grading order m
    double sigmaFactor = 1.0;  ///< sigma_max = sigmaFactor * 0.8 (m+1) / (eta0 dx)
    double kappaMax = 1.0;     ///< kappa grading from 1 to kappaMax
    double alphaMax = 0.05;    ///< CFS alpha, normalised (alpha / (eps0 c / dx)); graded linearly to 0 inward
};

struct Material {
    std::string name;
    double eps = 1.0;   ///< relative permittivity
    double mu = 1.0;    ///< relative permeability
    double sigma = 0.0; ///< electric conductivity, S/m
};

enum class Shape { Box, Sphere, Cylinder, Polygon };

/// A geometric object filled with one material. Later objects override earlier ones.
struct Object {
    std::string name;
    Shape shape = Shape::Box;
    Vec3 center{0, 0, 0};
    Vec3 size{0, 0, 0};      ///< box extents (box); bounding extents otherwise
    double radius = 0;       ///< sphere, cylinder
    int axis = 2;            ///< cylinder / polygon extrusion axis (0=x,1=y,2=z)
    double height = 0;       ///< cylinder / polygon extent along axis
    std::vector<std::array<double, 2>> vertices; ///< polygon vertices (um, absolute, in the plane normal to axis)
    std::string material;
};

enum class ProfileType { GaussianPulse, Cw };

/// Temporal profile of a source.
struct Profile {
    ProfileType type = ProfileType::GaussianPulse;
    double wavelength = 1.55;  ///< centre wavelength, um
    double bandwidth = 0.3;    ///< Gaussian pulse: FWHM bandwidth in wavelength, um
    double delay = -1;         ///< pulse centre time, fs (<0: automatic, 4 sigma_t... after t=0)
    double ramp = 20;          ///< CW ramp time, fs (smooth raised-cosine ramp)
    double amplitude = 1.0;
    double phase = 0.0;        ///< radians
};

enum class SourceType { PointDipole, GaussianPlane, UniformPlane };

struct Source {
    std::string name;
    SourceType type = SourceType::PointDipole;
    Vec3 center{0, 0, 0};
    Vec3 size{0, 0, 0};          ///< plane sources: one zero extent = the plane normal
    Vec3 polarization{0, 0, 1};  ///< dipole: any direction; plane sources: a transverse axis
    int direction = +1;          ///< plane sources: +1 or -1 along the normal
    int normal = 0;              ///< plane sources: normal axis (derived from size / direction string)
    double waist = 1.0;          ///< Gaussian plane: 1/e field waist radius, um
    Profile profile;
};

enum class DetectorType { Snapshot, Flux, Energy, Phasor, Probe };

struct Detector {
    std::string name;
    DetectorType type = DetectorType::Probe;
    Vec3 center{0, 0, 0};
    Vec3 size{0, 0, 0};
    int normal = 0;                      ///< flux: plane normal axis
    int direction = +1;                  ///< flux: +1 / -1 sign of the normal
    std::vector<double> wavelengths;     ///< flux / phasor: um
    std::vector<std::string> components; ///< snapshot / phasor / probe: "Ex".."Hz"
    int every = 1;                       ///< snapshot / time series interval, steps
    int downsample = 1;                  ///< snapshot spatial downsampling
};

/// Design region: latent voxel grid -> filter -> projection -> density -> eps.
struct Design {
    std::string name;
    Vec3 center{0, 0, 0};
    Vec3 size{0, 0, 0};
    std::array<int, 3> voxelCells{1, 1, 1};
    std::array<std::string, 2> materials; ///< rho=0 material, rho=1 material
    double filterRadius = 0;              ///< um; 0 = no filter
    double beta = 0;                      ///< tanh projection steepness; 0 = no projection
    double eta = 0.5;
    std::string params;                   ///< "file.h5:/dataset" sidecar, or empty (= 0.5 everywhere)
    std::vector<double> latent;           ///< loaded latent values (x fastest), size = product of voxel counts
};

enum class Quantity { Flux, PhasorPower, Energy };
enum class Reduce { TimeIntegral, AtWavelength, Final };

struct ObjectiveTerm {
    std::string detector;
    Quantity quantity = Quantity::Flux;
    Reduce reduce = Reduce::TimeIntegral;
    double wavelength = 0; ///< for at_wavelength
    double weight = 1.0;
};

struct Objective {
    bool maximize = true;
    std::vector<ObjectiveTerm> terms;
    bool defined() const { return !terms.empty(); }
};

enum class GradientMethod { Full, Checkpointed, Reversible };

struct RecorderModule {
    std::string module;       ///< "LinearReconstructEveryK" | "DtypeConversion"
    int k = 1;
    int startAfter = 0;
    std::string dtype;        ///< bfloat16 | float16 | int8 | float32 | float64
};

struct GradientConfig {
    GradientMethod method = GradientMethod::Checkpointed;
    int numCheckpoints = 8;
    int numCheckpointsReversible = 0;
    std::vector<RecorderModule> recorder;
    std::string tier = "device";  ///< device | host | disk
    int transferInterval = 1;
    int ringBuffers = 4;
    std::string diskPath;         ///< disk tier directory (empty = temp)
};

struct RunConfig {
    std::array<int, 3> tiles{1, 1, 1};
    std::string devices = "cpu:1"; ///< "cpu:N" | "cuda:0,1" | "cuda:all"
    std::string precision = "float32"; ///< float32 | float64
    bool overlap = true;               ///< overlap halo exchange with interior work
};

struct Scene {
    std::string name;
    double cellUm = 0.025;
    double courant = 0.99;  ///< fraction of the 3-D Courant limit
    Vec3 domainCenter{0, 0, 0};
    Vec3 domainSize{1, 1, 1};
    double durationFs = 100;
    std::array<Boundary, 3> boundaries;
    std::vector<Material> materials;
    std::string background;
    std::vector<Object> objects;
    std::vector<Source> sources;
    std::vector<Detector> detectors;
    std::vector<Design> designs;
    Objective objective;
    GradientConfig gradient;
    RunConfig run;

    // ---- derived quantities (valid after validation) ----
    /// Grid cells along each axis (domain size / cell, rounded).
    std::array<int, 3> gridCells() const;
    /// Time step in fs.
    double dtFs() const;
    /// Time step in normalised units (dx = c = 1).
    double dt() const;
    /// Number of time steps.
    int steps() const;
    const Material* findMaterial(const std::string& name) const;
    int materialIndex(const std::string& name) const;
};

} // namespace yee::scene

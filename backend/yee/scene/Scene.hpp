#pragma once
/// \file Scene.hpp
/// The scene model: plain C++ data, no Qt. Units as in the file format: lengths and wavelengths in
/// micrometres (um), times in femtoseconds (fs), conductivity in S/m. The JSON form is read and
/// written by SceneJson.hpp; validateScene() there checks every rule mentioned below.
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "yee/core/Box.hpp"

namespace yee::scene {

/// A point or extent in um (x, y, z).
using Vec3 = std::array<double, 3>;

/// Value of the top-level "format" key of a scene file.
inline constexpr const char* kFormatName = "yee-scene";
/// Scene file format version written by this build (and the newest it reads).
inline constexpr int kFormatVersion = 1;

/// One value of a scene key in its canonical form: double (Number), int (Integer), bool (Boolean),
/// std::string (String, Enum file name, references), Vec3 (Vec3, Polarization), std::array<int, 3>
/// (IntVec3), std::vector<double> (NumberList), std::vector<std::string> (EnumList, MaterialPair),
/// std::vector<std::array<double, 2>> (Points2). std::monostate: no value. (Schema.hpp describes the keys.)
using SchemaValue =
    std::variant<std::monostate, double, int, bool, std::string, std::array<double, 3>, std::array<int, 3>,
                 std::vector<double>, std::vector<std::string>, std::vector<std::array<double, 2>>>;

/// Speed of light in um/fs.
inline constexpr double kC_um_per_fs = 0.299792458;
/// Impedance of free space in ohms.
inline constexpr double kEta0 = 376.730313668;

/// Boundary condition of one axis (applied to both faces).
enum class BoundaryType { Pml, Periodic, Pec };

/// Boundary of one axis (both faces). CPML parameters follow Roden & Gedney (2000).
struct Boundary {
    BoundaryType type = BoundaryType::Pml; ///< pml | periodic | pec
    int cells = 10;                        ///< PML thickness in cells
    double order = 3.0;                    ///< polynomial grading order m (dimensionless)
    double sigmaFactor = 1.0;              ///< sigma_max = sigmaFactor * 0.8 (m+1) / (eta dx) (dimensionless)
    double kappaMax = 1.0;                 ///< kappa grading from 1 to kappaMax (dimensionless)
    /// CFS alpha at the PML's inner face in physical units, 1/um: alpha / (eps0 c), i.e. the CFS pole
    /// frequency omega_a = alpha / eps0 = alphaMax * c (c in um/fs gives rad/fs). Graded linearly to 0
    /// at the outer face. Physical, so the pole stays below the light's frequencies at every cell size
    /// (a per-cell alpha grows as 1/dx and stops absorbing at nm cells). In the solver's normalised
    /// units (eps0 = c = dx = 1) alpha = alphaMax * cellUm: the default 1/um is 0.05 at 50 nm cells.
    double alphaMax = 1.0;
};

/// Kind of a dispersive pole (scene/MaterialModel.hpp gives each one's permittivity).
enum class PoleType { Drude, Lorentz, Debye };

/// One pole of a dispersive permittivity, time convention exp(-i omega t) (Im eps > 0 is loss).
/// Frequencies and dampings are photon energies hbar*omega in eV (omega [rad/fs] = E [eV] / hbar,
/// hbar = 0.6582119569 eV fs); relaxation times in fs.
///   drude:   - omega_p^2 / (omega^2 + i gamma omega)
///   lorentz: delta_eps omega_0^2 / (omega_0^2 - omega^2 - i gamma omega)
///   debye:   delta_eps / (1 - i omega tau)
struct Pole {
    PoleType type = PoleType::Lorentz; ///< drude | lorentz | debye
    double deltaEps = 0;               ///< lorentz, debye: strength (static minus high-frequency eps)
    double omegaEv = 0;                ///< drude: plasma energy hbar omega_p; lorentz: hbar omega_0, eV
    double gammaEv = 0;                ///< drude, lorentz: damping hbar gamma, eV (>= 0)
    double tauFs = 0;                  ///< debye: relaxation time, fs
};

/// An isotropic material: constant eps (the high-frequency eps_inf when it has poles), mu and sigma,
/// plus optional dispersive poles; or given by refractive index n + i k at one wavelength; or a name
/// of the built-in library (scene/MaterialLibrary.hpp). materialModel() (MaterialModel.hpp) resolves
/// the three forms into one model.
struct Material {
    std::string name;          ///< unique key in the scene's "materials" map
    double eps = 1.0;          ///< relative permittivity (eps_inf when poles are given)
    double mu = 1.0;           ///< relative permeability
    double sigma = 0.0;        ///< electric conductivity, S/m
    std::vector<Pole> poles{}; ///< dispersive poles (empty: non-dispersive)
    double n = 0;              ///< refractive index (0: not given; then eps, sigma are used)
    double k = 0;              ///< extinction coefficient (with n)
    double nkWavelengthUm = 0; ///< vacuum wavelength at which n, k hold, um
    std::string library{};     ///< name of a library material ("" = none)
};

/// Geometric primitive of an Object.
enum class Shape { Box, Sphere, Cylinder, Polygon };

/// A geometric object filled with one material. Later objects override earlier ones.
/// Polygon: the prism {(u, v) inside vertices, |w - center[axis]| <= height / 2}, where w is the
/// coordinate along `axis` and (u, v) are the two other coordinates in increasing axis order
/// (axis z: (x, y); axis y: (x, z); axis x: (y, z)). Its in-plane center/size components are the
/// vertices' bounding box (the parser derives them; objectBounds() recomputes them).
struct Object {
    std::string name;         ///< optional label
    Shape shape = Shape::Box; ///< primitive
    Vec3 center{0, 0, 0};     ///< um
    Vec3 size{0, 0, 0};       ///< box extents (box); bounding extents otherwise
    double radius = 0;        ///< sphere, cylinder, um
    int axis = 2;             ///< cylinder / polygon extrusion axis (0=x,1=y,2=z)
    double height = 0;        ///< cylinder / polygon extent along axis, um
    /// Polygon vertices (um, absolute, (u, v) order as above); either orientation, not self-intersecting.
    std::vector<std::array<double, 2>> vertices;
    std::string material; ///< name of a scene material
};

/// Axis-aligned bounding box of an object in um: lo = first, hi = second.
std::pair<Vec3, Vec3> objectBounds(const Object& o);

/// Temporal profile kind of a source.
enum class ProfileType { GaussianPulse, Cw };

/// Temporal profile of a source.
struct Profile {
    ProfileType type = ProfileType::GaussianPulse; ///< gaussian_pulse | cw
    double wavelength = 1.55;                      ///< centre wavelength, um
    double bandwidth = 0.3;                        ///< Gaussian pulse: FWHM bandwidth in wavelength, um
    double delay = -1;      ///< pulse centre time, fs (<0: automatic, chosen by the solver)
    double ramp = 20;       ///< CW ramp time, fs (smooth raised-cosine ramp)
    double amplitude = 1.0; ///< peak current amplitude (normalised units)
    double phase = 0.0;     ///< radians
};

/// Kind of source. Mode: waveguide mode `mode` of the port plane, launched one way (ModeSource.hpp).
enum class SourceType { PointDipole, GaussianPlane, UniformPlane, Mode };

/// An electric current source (a point or a plane sheet).
struct Source {
    std::string name;                          ///< optional label, unique when given
    SourceType type = SourceType::PointDipole; ///< kind
    Vec3 center{0, 0, 0};                      ///< um
    Vec3 size{0, 0, 0};                        ///< plane sources: one zero extent = the plane normal
    Vec3 polarization{0, 0, 1}; ///< dipole: any direction; plane sources: one transverse axis (+-)
    int direction = +1;         ///< plane sources: +1 or -1 along the normal
    int normal = 0;             ///< plane sources: normal axis (derived from size / direction string)
    double waist = 1.0;         ///< Gaussian plane: 1/e field waist radius, um
    int mode = 0;               ///< mode source: mode index, 0 = the largest n_eff (or nearest nGuess)
    double nGuess = 0;          ///< mode source: > 0 selects the modes nearest this n_eff
    int portPml = 0;            ///< mode source: 0 PEC port edges, > 0 PML cells outside them
    Profile profile;            ///< time dependence
};

/// Kind of detector: the id of a registered detector kind (DetectorKinds.hpp). The enumerators name the
/// kinds built into the scene format, in registration order; a kind registered by a plug-in gets the next
/// free id (scene::detectorType("name") finds it). FluxBox: the net power leaving a closed box.
enum class DetectorType : int { Snapshot, Flux, Energy, Phasor, Probe, FluxBox };

/// Something recorded during a run. Names are unique and used as HDF5 group names in results.
struct Detector {
    std::string name;                        ///< required, unique, no '/'
    DetectorType type = DetectorType::Probe; ///< kind
    Vec3 center{0, 0, 0};                    ///< um
    Vec3 size{0, 0, 0};                      ///< um; zero extents make planes, lines or points
    int normal = 0;                          ///< flux: plane normal axis
    int direction = +1;                      ///< flux: +1 / -1 sign of the normal
    std::vector<double> wavelengths;         ///< flux / flux_box / phasor: um
    std::vector<std::string> components;     ///< snapshot / phasor / probe: "Ex".."Hz"
    int every = 1;                           ///< snapshot / time series interval, steps
    int downsample = 1;                      ///< snapshot spatial downsampling
    /// Keys a registered kind declares beyond the fields above, by file key (DetectorKinds.hpp:
    /// detectorParam() reads one, falling back to the key's default).
    std::map<std::string, SchemaValue> params;
};

/// Design region: latent voxel grid -> filter -> projection -> density -> eps.
/// The region covers the whole grid cells Scene::designCells() (the box snapped to cell faces);
/// voxel (a, b, c) covers voxelCells cells per axis from the region's low corner, the last voxel
/// along an axis being truncated when the cell count is not a multiple of voxelCells.
struct Design {
    std::string name;                       ///< required, unique, no '/'
    Vec3 center{0, 0, 0};                   ///< um
    Vec3 size{0, 0, 0};                     ///< um
    std::array<int, 3> voxelCells{1, 1, 1}; ///< grid cells per voxel along x, y, z
    std::array<std::string, 2> materials;   ///< rho=0 material, rho=1 material
    double filterRadius = 0;                ///< um; 0 = no filter
    double beta = 0;                        ///< tanh projection steepness; 0 = no projection
    double eta = 0.5;                       ///< tanh projection threshold in [0, 1]
    std::string params;                     ///< "file.h5:/dataset" sidecar, or empty (= 0.5 everywhere)
    std::vector<double> latent; ///< loaded latent values (x fastest), size = product of voxel counts
};

/// What an objective term reads from its detector: the id of a registered quantity (DetectorKinds.hpp).
/// The enumerators name the built-in quantities; a detector kind may register more.
enum class Quantity : int { Flux, PhasorPower, Energy };
/// How an objective term reduces the detector's record to a number.
enum class Reduce { TimeIntegral, AtWavelength, Final };

/// One weighted term of the objective.
struct ObjectiveTerm {
    std::string detector;                 ///< detector name
    Quantity quantity = Quantity::Flux;   ///< what is read
    Reduce reduce = Reduce::TimeIntegral; ///< how it becomes a number
    double wavelength = 0;                ///< um, for at_wavelength (one of the detector's wavelengths)
    double weight = 1.0;                  ///< factor of this term
};

/// The figure of merit: sign * sum of weighted terms.
struct Objective {
    bool maximize = true;             ///< goal: maximize (true) or minimize
    std::vector<ObjectiveTerm> terms; ///< summed
    /// True when the scene has an objective (at least one term).
    bool defined() const { return !terms.empty(); }
};

/// How the forward state is brought back during the reverse sweep (see DESIGN.md).
enum class GradientMethod { Full, Checkpointed, Reversible };

/// One module of the reversible method's recorder chain, applied in order on write.
struct RecorderModule {
    std::string module; ///< "LinearReconstructEveryK" | "DtypeConversion"
    int k = 1;          ///< LinearReconstructEveryK: keep every k-th step
    int startAfter = 0; ///< LinearReconstructEveryK: steps recorded exactly before thinning starts
    std::string dtype;  ///< bfloat16 | float16 | int8 | float32 | float64
};

/// The "gradient" section.
struct GradientConfig {
    GradientMethod method = GradientMethod::Checkpointed; ///< full | checkpointed | reversible
    int numCheckpoints = 8;                               ///< checkpointed: full-state checkpoints
    int numCheckpointsReversible = 0;                     ///< reversible: drift-bounding checkpoints
    std::vector<RecorderModule> recorder;                 ///< reversible: recorder chain, in order
    std::string tier = "device";                          ///< device | host | disk
    int transferInterval = 1;                             ///< host / disk tier: steps per transfer
    int ringBuffers = 4;                                  ///< host / disk tier: staging slots
    std::string diskPath;                                 ///< disk tier directory (empty = temp)
};

/// The "run" section: how the scene is split and where it runs.
struct RunConfig {
    std::array<int, 3> tiles{1, 1, 1}; ///< tile grid px, py, pz (one device per tile)
    std::string devices = "cpu:1";     ///< "cpu:N" | "cuda:0,1" | "cuda:all"
    std::string precision = "float32"; ///< float32 | float64
    bool overlap = true;               ///< overlap halo exchange with interior work
};

/// Optimisers of the "optimization" section.
enum class OptimizerKind { Mma, Ccsa, Adam };
/// How the objective's terms make the figure of merit an optimiser improves.
enum class ObjectiveForm {
    Sum,  ///< the weighted sum of the terms (Objective)
    Worst ///< the worst weighted term (min for maximize, max for minimize), by the epigraph form
};

/// One inequality constraint of an optimisation: a term's (unweighted) value against a bound.
struct OptConstraint {
    ObjectiveTerm term; ///< detector, quantity, reduce, wavelength; the weight is not used
    bool upper = true;  ///< "max": value <= bound; "min": value >= bound
    double bound = 0;   ///< in the term's units
};

/// The "optimization" section: how yee-opt improves the designs (see README, "Inverse design").
struct OptimizationConfig {
    OptimizerKind optimizer = OptimizerKind::Mma;
    int iterations = 20;  ///< value-and-grad evaluations at most
    double step = 0.05;   ///< Adam: learning rate, in latent units (latent values lie in [0, 1])
    double beta1 = 0.9;   ///< Adam: first-moment decay
    double beta2 = 0.999; ///< Adam: second-moment decay
    double ftolRel = 0;   ///< stop when the figure of merit changes by less than this, relatively (0: off)
    double xtolRel = 0;   ///< MMA/CCSA: stop when no latent value moves by more than this, relatively
    ObjectiveForm form = ObjectiveForm::Sum;
    double betaFactor = 1; ///< continuation: projected designs' beta times this every betaEvery (1: off)
    int betaEvery = 10;    ///< evaluations per beta stage
    double betaMax = 64;   ///< beta is never raised above this
    /// Minimum length scale b, um (0: off). A design region without its own filter radius gets the
    /// conic filter radius R = b (Qian & Sigmund's relation for the thresholds 0.25 / 0.75 below).
    double minLengthUm = 0;
    /// MMA/CCSA: add Zhou et al.'s geometric length-scale constraints (solid and void, per region) in
    /// the final continuation stage, so the blueprint's features are at least minLengthUm wide.
    bool lengthConstraints = false;
    double lengthTolerance = 1e-6; ///< the constraints' bound epsilon (mean squared violation)
    std::vector<OptConstraint> constraints;
};

/// True when `o` holds only default values (the scene file then leaves the section out).
bool isDefault(const OptimizationConfig& o);

/// A whole scene. Build it with parseScene()/loadScene() or by hand, then validateScene().
struct Scene {
    std::string name;                   ///< free text
    double cellUm = 0.025;              ///< cubic cell edge, um
    double courant = 0.99;              ///< fraction of the 3-D Courant limit
    Vec3 domainCenter{0, 0, 0};         ///< um
    Vec3 domainSize{1, 1, 1};           ///< um, a whole number of cells per axis (PML included)
    double durationFs = 100;            ///< simulated time, fs
    std::array<Boundary, 3> boundaries; ///< per axis x, y, z
    std::vector<Material> materials;    ///< in file order
    std::string background;             ///< material filling space outside objects; empty = vacuum
    std::vector<Object> objects;        ///< painted in order (later ones on top)
    std::vector<Source> sources;        ///< all sources
    std::vector<Detector> detectors;    ///< all detectors
    std::vector<Design> designs;        ///< design regions (on top of all objects)
    Objective objective;                ///< optional figure of merit
    GradientConfig gradient;            ///< how gradients are computed
    RunConfig run;                      ///< tiles and devices
    OptimizationConfig optimization;    ///< how yee-opt optimises the designs (optional section)

    // ---- derived quantities (valid after validation) ----
    /// Grid cells along each axis (domain size / cell, rounded; 0 when the cell size is not > 0).
    std::array<int, 3> gridCells() const;
    /// Time step in fs: dt() * cellUm / c.
    double dtFs() const;
    /// Time step in normalised units (dx = c = 1): courant / sqrt(3).
    double dt() const;
    /// Number of time steps: ceil(durationFs / dtFs()), ignoring a relative excess below 1e-9.
    int steps() const;
    /// Material named `name`, or nullptr.
    const Material* findMaterial(const std::string& name) const;
    /// Index of material `name` in `materials`, or -1.
    int materialIndex(const std::string& name) const;
    /// Low corner of the domain, um.
    Vec3 domainLo() const;
    /// PML thickness in cells on each face of `axis` (0 unless the axis has a PML boundary).
    int pmlCells(int axis) const;
    /// Cells outside every PML (global cell indices, half-open).
    Box interiorCells() const;
    /// Cells of design `d` (global, half-open): each face of the design box is snapped to the nearest
    /// cell face (round((x - lo) / cell), halves rounded away from zero). Empty when the box is
    /// thinner than half a cell.
    Box designCells(std::size_t d) const;
    /// Filter radius of design `d`, um: its own filter_radius_um, else optimization.min_length_um.
    double designFilterRadius(std::size_t d) const;
    /// Voxel counts of design `d` per axis: ceil(cells / voxelCells).
    std::array<int, 3> designVoxels(std::size_t d) const;
    /// Number of latent parameters of design `d` (product of designVoxels()).
    std::size_t designLatentSize(std::size_t d) const;
};

} // namespace yee::scene

#pragma once
/// \file SceneJson.hpp
/// Reading, writing, validating and hashing scene files (`"format": "yee-scene", "version": 1`).
///
/// Errors: every problem with a scene is reported as a yee::InputError whose message is ONE line
/// that starts with the path of the offending field, e.g.
/// `sources[2].profile.wavelength_um: must be > 0` or `objects[0].material: unknown material "metl"`.
/// Malformed JSON is reported with its line and column.
///
/// Parsing is split in two stages. The parser refuses what cannot be represented as a Scene:
/// malformed JSON, duplicate or unknown keys, wrong types, unknown enum strings, missing required
/// keys, keys that do not apply (a `radius_um` on a box), wrong format/version, unreadable sidecar
/// arrays. validateScene() refuses what the solver cannot run: bad values, dangling references,
/// geometry outside the domain or inside a PML, unstable time step, unsupported combinations.
/// parseScene()/loadScene() run both unless asked not to (an editor can then open a scene that is
/// still being worked on, and save it again, without losing it).
///
/// Which keys a section and variant has, their types, enum strings, defaults and per-key ranges come
/// from the scene schema (Schema.hpp); rules that involve several keys are code in validateScene().
#include <cstdint>
#include <string>

#include "yee/scene/Scene.hpp"

namespace yee::scene {

/// Parse a scene from JSON text. Design parameter references (`"params": "file.h5:/dataset"`) are
/// resolved relative to `baseDir` and loaded into Design::latent; inline `"latent": [...]` arrays are
/// accepted too. Throws InputError (one line naming the field). With `validate`, also runs
/// validateScene().
Scene parseScene(const std::string& jsonText, const std::string& baseDir = ".", bool validate = true);

/// Largest scene file loadScene() reads: 8 MiB. A scene is a description (typically a few KiB);
/// bulky arrays (design latents) belong in the HDF5 sidecar (`"params": "file.h5:/dataset"`, which
/// saveScene() writes). The limit bounds parse time and memory (the JSON tree takes about ten
/// times the text), and a larger file is refused before it is read.
inline constexpr std::uintmax_t kMaxSceneFileBytes = std::uintmax_t(8) << 20;

/// Read and parse the scene file at `path` (sidecar arrays relative to the file's directory).
/// Throws InputError if the file cannot be read, is larger than kMaxSceneFileBytes, or the scene is
/// bad (see parseScene()).
Scene loadScene(const std::string& path, bool validate = true);

/// The scene as indented JSON text. Every field the format carries is written, so
/// `parseScene(sceneToJson(s))` gives back `s` exactly (doubles are written with round-trip
/// precision). A design with latent values but no `params` reference gets them inline as "latent";
/// with `inlineArrays`, every loaded latent array is written inline instead of its reference, which
/// makes the text self-contained (e.g. for a results file). Does not validate and does not throw for
/// scenes that validateScene() would refuse.
std::string sceneToJson(const Scene& s, bool inlineArrays = false);

/// Write the scene to `path` atomically (temporary file in the same directory, then rename).
/// Designs holding latent values are written to the sidecar HDF5 file `<stem>.h5` next to `path`
/// (dataset `/designs/<name>`, shape [nz, ny, nx], also written atomically) and referenced from the
/// JSON as `"params": "<stem>.h5:/designs/<name>"`. Does not validate, so an unfinished scene can be
/// saved. Throws RunError if a file cannot be written; nothing is left half-written.
void saveScene(const Scene& s, const std::string& path);

/// The sidecar HDF5 file saveScene() writes next to the scene file `path`: its extension replaced by
/// `.h5` (`.h5` appended when `path` already ends in `.h5`).
std::string sidecarPath(const std::string& path);

/// Check everything the solver needs of a scene, in file order, and throw InputError naming the
/// first offending field (`grid.courant: 1.2 is unstable (must be in (0, 1])`). Does not look at the
/// host (devices present, memory): that is run::validateOptions()'s job.
void validateScene(const Scene& s);

/// Stable content hash of the scene: FNV-1a 64 of its canonical compact JSON, as 16 lower-case hex
/// digits. Loaded design latent values are hashed inline in place of their `params` reference, so
/// the hash follows the content, not where it is stored. Equal scenes hash equal on every platform.
std::string sceneHash(const Scene& s);

} // namespace yee::scene

// libFuzzer target for the scene parser (built and run by scripts/fuzz-scene.sh).
// Properties checked on every input: parsing and validation either succeed or throw InputError
// (anything else escapes and is reported as a crash); a scene that validates survives a
// write/read round trip unchanged; small valid scenes rasterise without faults.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "yee/core/Error.hpp"
#include "yee/scene/Rasterizer.hpp"
#include "yee/scene/SceneJson.hpp"

namespace {

/// Sidecar references resolve here: a directory that does not exist, so fuzzing touches no files.
constexpr const char* kNoSuchDir = "/nonexistent/yee-fuzz";

void rasterise(const yee::scene::Scene& s) {
    const auto n = s.gridCells();
    if (std::int64_t(n[0]) * n[1] * n[2] > 24 * 24 * 24)
        return;
    const yee::scene::Rasterizer r(s);
    double sum = 0;
    for (int field = 0; field < 2; ++field)
        for (int c = 0; c < 3; ++c)
            r.forEach(
                field, c, yee::Box{{-1, -1, -1}, {n[0] + 1, n[1] + 1, n[2] + 1}},
                [&](int, int, int, const yee::scene::CellMaterial& m) { sum += m.eps + m.mu + m.sigma; });
    if (!(sum == sum))
        std::abort(); // NaN material
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        yee::scene::Scene s = yee::scene::parseScene(text, kNoSuchDir, false);
        yee::scene::validateScene(s);
        const std::string once = yee::scene::sceneToJson(s);
        const yee::scene::Scene back = yee::scene::parseScene(once, kNoSuchDir);
        if (yee::scene::sceneToJson(back) != once)
            std::abort();
        if (yee::scene::sceneHash(back) != yee::scene::sceneHash(s))
            std::abort();
        rasterise(s);
    } catch (const yee::InputError&) {
    }
    return 0;
}

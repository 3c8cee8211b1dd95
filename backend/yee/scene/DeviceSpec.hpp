#pragma once
/// \file DeviceSpec.hpp
/// The typed form of a device list ("run.devices" in a scene, `--devices` on the command line): parsed
/// once, where the text enters (scene validation, command line), and passed down as this value. What it
/// means on a given machine (are the GPUs there? is NCCL loadable?) is decided by the run layer
/// (run/Devices.hpp), never by re-parsing the text.
#include <string>
#include <vector>

namespace yee::scene {

/// A device list: N emulated CPU devices, all visible GPUs, or a list of GPU ids.
struct DeviceSpec {
    enum class Kind { Cpu, Cuda };
    Kind kind = Kind::Cpu;
    int cpuDevices = 1;    ///< Kind::Cpu: number of emulated devices, in [1, kMaxDevices]
    bool allGpus = false;  ///< Kind::Cuda: every visible GPU ("cuda", "cuda:all")
    std::vector<int> gpus; ///< Kind::Cuda without allGpus: distinct GPU ids, in the order given

    /// Largest device count a list may name.
    static constexpr int kMaxDevices = 4096;

    /// Parse "cpu", "cpu:N", "cuda", "cuda:all" or "cuda:ID[,ID...]". Throws yee::InputError naming
    /// `field` ("run.devices", "--devices"): `<field>: expected cpu:N, cuda:all or cuda:ID[,ID...], got
    /// '<text>'` (or `<field>: <syntaxMessage>` when one is given: scene files keep their own wording),
    /// `<field>: GPU 1 is listed twice`, `<field>: cpu device count must be in [1, 4096]`.
    static DeviceSpec parse(const std::string& text, const std::string& field,
                            const std::string& syntaxMessage = {});
    /// Number of devices named: cpuDevices, gpus.size(), or 0 for all GPUs (known only at run time).
    int count() const;
    /// The canonical text ("cpu:2", "cuda:all", "cuda:0,1"); parse(str()) == *this.
    std::string str() const;
    bool operator==(const DeviceSpec&) const = default;
};

} // namespace yee::scene

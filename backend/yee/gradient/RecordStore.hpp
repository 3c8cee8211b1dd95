#pragma once
/// \file RecordStore.hpp
/// Where the reversible recorder keeps its records: on the device, or staged through a ring of device
/// slots to host memory or to a file, with asynchronous copies and read-ahead. The staging machinery
/// (worker thread, ring slots, queue) lives for the whole run, so a prefetch issued now is still there
/// when the step that needs it comes.
///
/// A transfer that fails during the run (a full disk, a failing copy, an injected "recorder" failure,
/// files/FaultInjection.hpp) does not end the run: the store remembers the first failure (failure()),
/// ignores later writes and answers reads with zeros, so the forward run and its detectors finish and
/// every rank stays in step with its peers; the caller discards the gradient and names the failure.
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "yee/device/Device.hpp"

namespace yee::gradient {

class RecordStore {
public:
    /// `tier`: "device" keeps every record in device memory (category recorder); "host" and "disk" keep
    /// `ringBuffers` slots of `transferInterval` records on the device and move full slots to host memory
    /// or to a file under `diskDir` (empty: the system temp directory) on a worker thread.
    RecordStore(device::Device& dev, std::int64_t recordBytes, int records, const std::string& tier,
                int transferInterval, int ringBuffers, const std::string& diskDir);
    ~RecordStore();
    RecordStore(const RecordStore&) = delete;
    RecordStore& operator=(const RecordStore&) = delete;

    /// Write record r (records are written in increasing order). Does nothing once failure() is set.
    void put(int r, const unsigned char* data, double scale);
    /// Where to write record r's recordBytes bytes in the device's memory, for a record encoded on the
    /// device (kernels/RecordCodec.hpp) on the device's stream; its scale stays with the caller. The
    /// address is valid until the next put or get; nullptr once failure() is set. Same bookkeeping and order
    /// as put(): on the host and disk tiers a full slot goes out with one copy, after the device's work.
    unsigned char* writeAddress(int r);
    /// The device-memory address of record r's bytes, for decoding on the device (reads in the same order
    /// as get()); valid until the next put or get. nullptr once failure() is set.
    const unsigned char* readAddress(int r);
    /// After the last put: push the partially filled slot out.
    void finishWrites();
    /// Read record r (reads go in decreasing order, possibly re-reading r+1); the pointer stays valid until
    /// a read of a record in another group. Prefetches the group below. Zeros once failure() is set.
    const unsigned char* get(int r, double& scale);
    /// The first transfer failure, as one line naming the recorder and its tier ("gradient recorder (disk
    /// tier in /tmp): ..."); empty while every transfer succeeded. Never throws.
    std::string failure() const;
    /// Bytes held off the device (host memory or file).
    std::int64_t offDeviceBytes() const { return backingBytes_; }
    /// Something the run should tell its user, empty when nothing: set when page-locking the host tier
    /// failed and the worker copies through unpinned memory instead (slower, same results); also printed
    /// once per process on stderr ("yee: note: ...").
    const std::string& note() const { return note_; }

private:
    struct Slot {
        device::Buffer<unsigned char> data;
        int group = -1;    ///< group resident (or being filled / loaded)
        bool busy = false; ///< a transfer is in flight
    };
    int groupOf(int r) const { return r / interval_; }
    struct Job {
        Slot* slot;
        bool load;
        int group;
        void* after = nullptr; ///< CUDA: event marking the compute stream's work on the slot so far
    };
    int slotFor(int group, bool load);
    void startLoad(Slot& s, int group);
    void submit(const Job& job);
    /// put()'s bookkeeping: the address record r goes to (nullptr once failed).
    unsigned char* putAddress(int r);
    /// Wait until slot s has no transfer in flight; false when a transfer has failed (failure() set).
    bool waitIdle(Slot& s);
    /// Remember the first failure (`what`) and stop moving records.
    void fail(const std::string& what);
    /// Where the records go, for messages ("host memory", "disk tier in <dir>").
    std::string where_;
    bool failed_ = false;
    std::vector<unsigned char> zeros_; ///< what reads return after a failure
    void store(int group, const unsigned char* src);
    void load(int group, unsigned char* dst);

    std::int64_t recordBytes_;
    int records_;
    bool staged_ = false;
    bool disk_ = false;
    int interval_ = 1;
    device::Buffer<unsigned char> all_; ///< device tier
    std::vector<double> scales_;        ///< per record (host bookkeeping)
    std::vector<Slot> slots_;
    std::vector<unsigned char> host_; ///< host tier backing
    std::FILE* file_ = nullptr;       ///< disk tier backing (unlinked temp file)
    // GPUs: records really live in device memory, so puts and gets are copies; the host tier's backing
    // is page-locked and the worker moves slots on its own stream, overlapping the compute stream.
    device::Device* dev_ = nullptr;
    std::vector<unsigned char> readBuf_; ///< host copy of the record last returned by get()
    std::vector<unsigned char> bounce_; ///< GPU disk tier: host copy of a slot on its way to or from the file
    void* copyStream_ = nullptr;        ///< CUDA: the worker's stream
    bool pinned_ = false;
    std::string note_;
    void moveBytes(void* dst, const void* src, std::int64_t n);
    std::int64_t backingBytes_ = 0;
    int writing_ = -1; ///< slot being filled
    // worker
    std::mutex m_;
    std::condition_variable cv_;
    std::deque<Job> queue_;
    std::string error_; ///< first transfer failure, rethrown on the calling thread
    bool stop_ = false;
    std::thread worker_;
};

} // namespace yee::gradient

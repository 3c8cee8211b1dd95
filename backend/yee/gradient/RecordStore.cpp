#include "yee/gradient/RecordStore.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <unistd.h>

#include "yee/core/Error.hpp"
#include "yee/cuda/Runtime.hpp"
#include "yee/files/FaultInjection.hpp"

namespace yee::gradient {

RecordStore::RecordStore(device::Device& dev, std::int64_t recordBytes, int records, const std::string& tier,
                         int transferInterval, int ringBuffers, const std::string& diskDir)
    : recordBytes_(recordBytes), records_(records), scales_(std::size_t(std::max(records, 0)), 1.0),
      dev_(&dev) {
    if (dev.staged())
        readBuf_.resize(std::size_t(std::max<std::int64_t>(recordBytes, 0)));
    where_ =
        tier == "disk"
            ? "disk tier in " + (diskDir.empty() ? std::filesystem::temp_directory_path().string() : diskDir)
            : tier + " tier";
    if (tier == "device" || records == 0 || recordBytes == 0) {
        all_ = device::Buffer<unsigned char>(dev, recordBytes * records, device::Category::Recorder);
        return;
    }
    staged_ = true;
    disk_ = tier == "disk";
    interval_ = std::max(1, transferInterval);
    const int nslots = std::max(3, ringBuffers);
    slots_.resize(std::size_t(nslots));
    for (auto& s : slots_)
        s.data = device::Buffer<unsigned char>(dev, recordBytes * interval_, device::Category::Recorder);
    backingBytes_ = recordBytes * records;
    if (dev.dryRun())
        return;
    if (disk_) {
        const std::filesystem::path dir =
            diskDir.empty() ? std::filesystem::temp_directory_path() : std::filesystem::path(diskDir);
        std::string tmpl = (dir / "yee-recorder-XXXXXX").string();
        const int fd = mkstemp(tmpl.data());
        if (fd < 0)
            throw RunError("gradient.storage.path: cannot create a recorder file in " + dir.string());
        std::filesystem::remove(tmpl); // unlinked: the space goes away with the run, whatever happens
        file_ = fdopen(fd, "w+b");
        if (dev.isCuda()) // slots are device memory: the file is written and read through host memory
            bounce_.resize(std::size_t(recordBytes * interval_));
    } else {
        host_.resize(std::size_t(backingBytes_));
    }
    if (dev.isCuda()) {
        copyStream_ = cuda::createStream(dev.id());
        if (!disk_ && backingBytes_ > 0) {
            // Page-locking can fail (locked-memory limits, a large host tier): fall back to unpinned copies.
            try {
                cuda::pinHost(host_.data(), backingBytes_);
                pinned_ = true;
            } catch (const RunError& e) {
                note_ = "gradient.storage: page-locking the recorder's " + std::to_string(backingBytes_) +
                        "-byte host tier failed (" + e.what() +
                        "): copies go through unpinned memory (slower)";
                // The run has no channel for notes: say it once per process on stderr.
                static std::once_flag told;
                std::call_once(told, [&] { std::fprintf(stderr, "yee: note: %s\n", note_.c_str()); });
            }
        }
    }
    worker_ = std::thread([this] {
        // A worker that cannot select the GPU fails every job it is given: the error reaches the run
        // through waitIdle() (a RunError), instead of escaping the thread and terminating the process.
        std::string startError;
        if (copyStream_) {
            try {
                cuda::setDevice(dev_->id());
            } catch (const std::exception& e) {
                startError = std::string("recorder worker: ") + e.what();
            }
        }
        for (;;) {
            Job job{};
            {
                std::unique_lock<std::mutex> lk(m_);
                cv_.wait(lk, [this] { return stop_ || !queue_.empty(); });
                if (queue_.empty())
                    return;
                job = queue_.front();
                queue_.pop_front();
            }
            std::string err = startError; // the worker has no device: fail the job
            if (!err.empty() && job.after)
                cuda::eventRelease(job.after);
            if (err.empty()) {
                try {
                    if (job.after) // the compute stream's kernels that write (or still read) the slot first
                        cuda::streamWait(copyStream_, job.after);
                    if (job.load)
                        load(job.group, job.slot->data.data());
                    else
                        store(job.group, job.slot->data.data());
                } catch (const std::exception& e) {
                    err = e.what();
                }
            }
            {
                std::lock_guard<std::mutex> lk(m_);
                job.slot->busy = false;
                if (!err.empty() && error_.empty())
                    error_ = err;
            }
            cv_.notify_all();
        }
    });
}

RecordStore::~RecordStore() {
    if (worker_.joinable()) {
        {
            std::lock_guard<std::mutex> lk(m_);
            stop_ = true;
        }
        cv_.notify_all();
        worker_.join();
    }
    if (file_)
        std::fclose(file_);
    if (pinned_)
        cuda::unpinHost(host_.data());
    if (copyStream_)
        cuda::destroyStream(dev_->id(), copyStream_);
}

void RecordStore::moveBytes(void* dst, const void* src, std::int64_t n) {
    // Worker thread: on a GPU a DMA copy on the worker's own stream (the compute stream keeps running);
    // elsewhere a plain copy.
    if (copyStream_)
        cuda::copy(dst, src, n, copyStream_);
    else
        std::memcpy(dst, src, std::size_t(n));
}

void RecordStore::submit(const Job& job) {
    Job j = job;
    if (copyStream_ && dev_->stream())
        j.after =
            cuda::eventRecord(dev_->stream()); // the worker's copy waits for the device, the host does not
    {
        std::lock_guard<std::mutex> lk(m_);
        j.slot->busy = true;
        queue_.push_back(j);
    }
    cv_.notify_all();
}

bool RecordStore::waitIdle(Slot& s) {
    std::string err;
    {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk, [&] { return !s.busy; });
        err = error_;
    }
    if (!err.empty())
        fail(err);
    return !failed_;
}

void RecordStore::fail(const std::string& what) {
    if (failed_)
        return;
    failed_ = true;
    error_ = what;
    zeros_.assign(std::size_t(std::max<std::int64_t>(recordBytes_, 0)), 0);
}

std::string RecordStore::failure() const {
    if (!failed_)
        return {};
    return "gradient recorder (" + where_ + "): " + error_ + " (no gradient)";
}

void RecordStore::startLoad(Slot& s, int group) {
    if (!waitIdle(s))
        return;
    s.group = group;
    submit({&s, true, group});
}

void RecordStore::store(int group, const unsigned char* src) {
    const std::int64_t first = std::int64_t(group) * interval_;
    const std::int64_t n = std::min<std::int64_t>(interval_, records_ - first) * recordBytes_;
    files::failIfInjected("recorder", where_);
    if (disk_) {
        if (!bounce_.empty()) {
            moveBytes(bounce_.data(), src, n);
            src = bounce_.data();
        }
        if (std::fseek(file_, long(first * recordBytes_), SEEK_SET) != 0 ||
            std::fwrite(src, 1, std::size_t(n), file_) != std::size_t(n))
            throw RunError(std::string("writing the recorder file failed (") + std::strerror(errno) + ")");
    } else {
        moveBytes(host_.data() + first * recordBytes_, src, n);
    }
}

void RecordStore::load(int group, unsigned char* dst) {
    const std::int64_t first = std::int64_t(group) * interval_;
    const std::int64_t n = std::min<std::int64_t>(interval_, records_ - first) * recordBytes_;
    if (disk_) {
        unsigned char* to = bounce_.empty() ? dst : bounce_.data();
        if (std::fseek(file_, long(first * recordBytes_), SEEK_SET) != 0 ||
            std::fread(to, 1, std::size_t(n), file_) != std::size_t(n))
            throw RunError(std::string("reading the recorder file failed (") + std::strerror(errno) + ")");
        if (to != dst)
            moveBytes(dst, to, n);
    } else {
        moveBytes(dst, host_.data() + first * recordBytes_, n);
    }
}

int RecordStore::slotFor(int group, bool forLoad) {
    for (std::size_t q = 0; q < slots_.size(); ++q)
        if (slots_[q].group == group)
            return int(q);
    // Reuse the slot holding the group farthest from `group` (the reverse sweep moves downwards).
    int best = -1, bestDist = -1;
    for (std::size_t q = 0; q < slots_.size(); ++q) {
        if (int(q) == writing_)
            continue;
        const int d = slots_[q].group < 0 ? 1 << 30 : std::abs(slots_[q].group - group);
        if (d > bestDist) {
            bestDist = d;
            best = int(q);
        }
    }
    Slot& s = slots_[std::size_t(best)];
    if (forLoad) {
        startLoad(s, group);
    } else if (waitIdle(s)) {
        s.group = group;
    }
    return best;
}

void RecordStore::put(int r, const unsigned char* data, double scale) {
    unsigned char* dst = putAddress(r);
    if (!dst)
        return;
    scales_[std::size_t(r)] = scale;
    if (dev_->staged())
        dev_->copy(dst, data, recordBytes_);
    else
        std::memcpy(dst, data, std::size_t(recordBytes_));
}

unsigned char* RecordStore::writeAddress(int r) {
    return putAddress(r);
}

unsigned char* RecordStore::putAddress(int r) {
    if (failed_)
        return nullptr;
    if (!staged_)
        return all_.data() + std::int64_t(r) * recordBytes_;
    const int g = groupOf(r);
    if (writing_ < 0 || slots_[std::size_t(writing_)].group != g) {
        finishWrites();
        writing_ = -1;
        const int q = slotFor(g, false);
        if (failed_)
            return nullptr;
        writing_ = q;
    }
    Slot& s = slots_[std::size_t(writing_)];
    return s.data.data() + std::int64_t(r - g * interval_) * recordBytes_;
}

void RecordStore::finishWrites() {
    if (!staged_ || writing_ < 0 || failed_)
        return;
    Slot& s = slots_[std::size_t(writing_)];
    submit({&s, false, s.group});
    writing_ = -1;
}

const unsigned char* RecordStore::get(int r, double& scale) {
    scale = scales_[std::size_t(r)];
    const unsigned char* src = readAddress(r);
    if (!src)
        return zeros_.data();
    if (!dev_->staged())
        return src;
    dev_->copy(readBuf_.data(), src, recordBytes_);
    return readBuf_.data();
}

const unsigned char* RecordStore::readAddress(int r) {
    if (failed_)
        return nullptr;
    if (!staged_)
        return all_.data() + std::int64_t(r) * recordBytes_;
    finishWrites();
    const int g = groupOf(r);
    const int q = slotFor(g, true);
    // Read-ahead: the group below is needed next.
    if (g > 0) {
        bool have = false;
        for (auto& s : slots_)
            have = have || s.group == g - 1;
        if (!have) {
            // Only prefetch into a slot that is not the one we are about to read.
            const int keep = q;
            int best = -1, bestDist = -1;
            for (std::size_t k = 0; k < slots_.size(); ++k) {
                if (int(k) == keep || slots_[k].group == g + 1)
                    continue;
                const int d = slots_[k].group < 0 ? 1 << 30 : std::abs(slots_[k].group - g);
                if (d > bestDist) {
                    bestDist = d;
                    best = int(k);
                }
            }
            if (best >= 0)
                startLoad(slots_[std::size_t(best)], g - 1);
        }
    }
    Slot& s = slots_[std::size_t(q)];
    if (failed_ || !waitIdle(s) || s.group != g)
        return nullptr;
    return s.data.data() + std::int64_t(r - g * interval_) * recordBytes_;
}

} // namespace yee::gradient

#pragma once
/// \file Bytes.hpp
/// Minimal binary (de)serialisation of trivially copyable values for gathering results across ranks.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace yee {

class ByteWriter {
public:
    template <class T> void put(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        const char* p = reinterpret_cast<const char*>(&v);
        buf_.insert(buf_.end(), p, p + sizeof(T));
    }
    template <class T> void putArray(const T* data, std::int64_t n) {
        static_assert(std::is_trivially_copyable_v<T>);
        put(n);
        if (n <= 0)
            return;
        const char* p = reinterpret_cast<const char*>(data);
        buf_.insert(buf_.end(), p, p + n * std::int64_t(sizeof(T)));
    }
    void putString(const std::string& s) { putArray(s.data(), std::int64_t(s.size())); }
    std::vector<char>& buffer() { return buf_; }

private:
    std::vector<char> buf_;
};

class ByteReader {
public:
    explicit ByteReader(const std::vector<char>& b) : b_(b) {}
    template <class T> T get() {
        static_assert(std::is_trivially_copyable_v<T>);
        need(sizeof(T));
        T v;
        std::memcpy(&v, b_.data() + pos_, sizeof(T));
        pos_ += sizeof(T);
        return v;
    }
    template <class T> std::vector<T> getArray() {
        auto n = get<std::int64_t>();
        if (n < 0)
            throw std::runtime_error("corrupt result blob");
        std::vector<T> v(static_cast<std::size_t>(n));
        need(std::size_t(n) * sizeof(T));
        if (n > 0)
            std::memcpy(v.data(), b_.data() + pos_, std::size_t(n) * sizeof(T));
        pos_ += std::size_t(n) * sizeof(T);
        return v;
    }
    std::string getString() {
        auto v = getArray<char>();
        return std::string(v.begin(), v.end());
    }
    bool done() const { return pos_ == b_.size(); }

private:
    void need(std::size_t n) const {
        if (pos_ + n > b_.size())
            throw std::runtime_error("corrupt result blob");
    }
    const std::vector<char>& b_;
    std::size_t pos_ = 0;
};

} // namespace yee

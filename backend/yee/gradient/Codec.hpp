#pragma once
/// \file Codec.hpp
/// Lossy number formats for the reversible recorder, each with a per-record scale so that fields of any
/// magnitude (E ~ eta0 H in SI) never overflow: a record x is stored as q = x / s with s = max|x|.
#include <cstdint>
#include <string>
#include <vector>

#include "yee/kernels/RecordCodec.hpp"

namespace yee::gradient {

/// A recorded value's storage format (the element conversions are kernels/RecordCodec.hpp's, shared with
/// the device encoder).
using Dtype = kernels::RecordDtype;

/// Parse "float64" | "float32" | "bfloat16" | "float16" | "int8"; throws InputError naming `field`.
Dtype parseDtype(const std::string& s, const std::string& field);
const char* dtypeName(Dtype d);
/// Bytes per stored value.
int dtypeBytes(Dtype d);

/// Encode n doubles into `out` (dtypeBytes(d) * n bytes); returns the scale (1 for float64/float32).
double encode(const double* x, std::int64_t n, Dtype d, unsigned char* out);
/// Decode n values written by encode() with `scale`.
void decode(const unsigned char* in, std::int64_t n, Dtype d, double scale, double* x);

/// IEEE binary16 conversions (round to nearest even, subnormals kept).
using kernels::floatToHalf;
using kernels::halfToFloat;
/// bfloat16 conversions (round to nearest even).
using kernels::bf16ToFloat;
using kernels::floatToBf16;

} // namespace yee::gradient

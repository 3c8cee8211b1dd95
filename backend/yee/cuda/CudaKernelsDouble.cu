/// \file CudaKernelsDouble.cu
/// CUDA instantiations of every kernel libyee launches, in double (the list: CudaInstantiate.cuh).
#include "yee/cuda/CudaInstantiate.cuh"

namespace yee::cuda {

YEE_ALL_KERNELS(double)
YEE_INDEX(kernels::NormalizeExact) // not a template: instantiated once, here

} // namespace yee::cuda

/// \file CudaKernelsFloat.cu
/// CUDA instantiations of every kernel libyee launches, in float (the list: CudaInstantiate.cuh).
#include "yee/cuda/CudaInstantiate.cuh"

namespace yee::cuda {

YEE_ALL_KERNELS(float)

} // namespace yee::cuda

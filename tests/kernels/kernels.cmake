# Kernel-level tests: value tests and adjoint dot-product tests of backend/yee/kernels, on every device row
# (CPU always; CUDA rows skip, saying why, without a usable GPU). Compiled without contraction, like libyee,
# so the CPU rows round exactly as the library's kernels do.
yee_add_test(NAME kernels
             SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_kernels.cpp ${CMAKE_CURRENT_LIST_DIR}/KernelGrid.hpp
             LABELS kernels TIMEOUT 120)
target_compile_options(tst_kernels PRIVATE ${YEE_FP_FLAGS})
# The CPU block form of the forward pole update against the per-entry functors GPUs launch, bit for bit.
yee_add_test(NAME pole_blocks SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_pole_blocks.cpp LABELS "kernels;dispersion"
             TIMEOUT 120)
target_compile_options(tst_pole_blocks PRIVATE ${YEE_FP_FLAGS})
# The CPU worker pool: exactly-once ranges and shutdown of short-lived threads' pools.
yee_add_test(NAME worker_pool SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_worker_pool.cpp LABELS kernels TIMEOUT 120)
# The fused H-then-E pass' row driver: every row's dependencies hold at every call, on 1-3 threads.
yee_add_test(NAME wavefront_order SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_wavefront_order.cpp LABELS kernels
             TIMEOUT 120)
# Runtime SIMD: the cloned row loops (AVX-512 / AVX2 / SSE2, whichever this CPU has) against a scalar loop,
# bit for bit.
yee_add_test(NAME simd SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_simd.cpp LABELS kernels TIMEOUT 120)
target_compile_options(tst_simd PRIVATE ${YEE_FP_FLAGS})

# Kernel-level tests: value tests and adjoint dot-product tests of backend/yee/kernels, on every device row
# (CPU always; CUDA rows skip, saying why, without a usable GPU). Compiled without contraction, like libyee,
# so the CPU rows round exactly as the library's kernels do.
yee_add_test(NAME kernels
             SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_kernels.cpp ${CMAKE_CURRENT_LIST_DIR}/KernelGrid.hpp
             LABELS kernels TIMEOUT 120)
target_compile_options(tst_kernels PRIVATE ${YEE_FP_FLAGS})

# GPU tests (CUDA, NCCL). Each test below is registered on its own lines, guarded by what it needs; every
# test function skips at run time (QSKIP with the reason) when the machine has no GPU, or too few.

# ---- tst_nccl: NcclComm / NcclHub (one thread per visible GPU); needs a CUDA + NCCL build ----------------
if(YEE_HAVE_NCCL)
  yee_add_test(NAME nccl SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_nccl.cpp LABELS gpu comm TIMEOUT 300)
  set_target_properties(tst_nccl PROPERTIES AUTOMOC ON)
endif()

# ---- tst_gpu: the solver on CUDA GPUs; skips (saying why) without a GPU, its no-GPU test runs everywhere ----
yee_add_test(NAME gpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_gpu.cpp LABELS gpu TIMEOUT 300)
# The recorder codec check (gradient/RecordCodecCheck.hpp) computes its reference on the host as libyee does.
target_compile_options(tst_gpu PRIVATE ${YEE_FP_FLAGS})

# ---- gpu_bundle: the carried GPU bundle (scripts/gpu-bundle.sh) packed from this build, its size checked,
# its runner run here: "no GPU" with exit 0, and a loud failure when the GPU-required mode is forced ----
if(TARGET tst_gpu AND TARGET yee-bench AND TARGET yee-run)
  add_test(NAME gpu_bundle COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check-bundle.sh ${CMAKE_SOURCE_DIR}
                                   ${CMAKE_BINARY_DIR})
  set_tests_properties(gpu_bundle PROPERTIES LABELS "bundle" TIMEOUT 600 SKIP_RETURN_CODE 77)
endif()

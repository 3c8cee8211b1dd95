yee_add_test(NAME gradient SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_gradient.cpp LABELS gradient TIMEOUT 1200)
yee_add_test(NAME gpu_paths SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_gpu_paths.cpp LABELS "gradient;decomp" TIMEOUT 900)
yee_add_test(NAME state_snapshots SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_state_snapshots.cpp LABELS gradient TIMEOUT 120)
yee_add_test(NAME sweep_phases SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_sweep_phases.cpp LABELS gradient TIMEOUT 300)
# The recorder's device encoder/decoder (kernels/RecordCodec.hpp) against the host codec, bit for bit.
yee_add_test(NAME record_codec SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_record_codec.cpp
             ${CMAKE_CURRENT_LIST_DIR}/RecordCodecCheck.hpp LABELS "gradient;kernels" TIMEOUT 120)
target_compile_options(tst_record_codec PRIVATE ${YEE_FP_FLAGS})

yee_add_test(NAME decomposition SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_decomposition.cpp LABELS decomp TIMEOUT 900)
yee_add_test(NAME material_index SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_material_index.cpp LABELS decomp TIMEOUT 600)
# The fused H-then-E pass of CPU devices against the two-sweep step, bit for bit (issue 17).
yee_add_test(NAME wavefront SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_wavefront.cpp LABELS decomp TIMEOUT 900)

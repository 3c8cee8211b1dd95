yee_add_test(NAME decomposition SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_decomposition.cpp LABELS decomp TIMEOUT 900)
yee_add_test(NAME material_index SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_material_index.cpp LABELS decomp TIMEOUT 600)

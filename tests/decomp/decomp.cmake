yee_add_test(NAME decomposition SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_decomposition.cpp LABELS decomp TIMEOUT 900)

yee_add_test(NAME gradient SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_gradient.cpp LABELS gradient TIMEOUT 1200)

yee_add_test(NAME physics SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_physics.cpp LABELS physics TIMEOUT 900)

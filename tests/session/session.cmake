yee_add_test(NAME session SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_session.cpp LABELS "gradient;session" TIMEOUT 900)

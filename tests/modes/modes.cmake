yee_add_test(NAME modes_solver SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_mode_solver.cpp LABELS modes TIMEOUT 300)
yee_add_test(NAME modes_ports SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_mode_ports.cpp LABELS "modes;slow" TIMEOUT 900)
yee_add_test(NAME modes_gradient SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_mode_gradient.cpp LABELS "modes;gradient;slow"
             TIMEOUT 900)
yee_add_test(NAME modes_examples SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_mode_examples.cpp LABELS "modes;slow" TIMEOUT 900)

yee_add_test(NAME dispersion SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_dispersion.cpp LABELS "physics;dispersion"
             TIMEOUT 900)
yee_add_test(NAME dispersion_gradient SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_dispersion_gradient.cpp
             LABELS "gradient;dispersion" TIMEOUT 900)

yee_add_test(NAME physics SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_physics.cpp LABELS physics TIMEOUT 900)
# CPML reflection at 1-100 nm cells (prints the reflection per cell size).
yee_add_test(NAME physics_pml_reflection SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_pml_reflection.cpp
             LABELS physics slow TIMEOUT 900)

# The layers: every #include checked against backend/layers.cmake (tests/arch/check_layers.cmake), and
# a deliberate back-edge must make the check fail (so the check itself can fail).
add_test(NAME arch_layers COMMAND ${CMAKE_COMMAND} -DYEE_SOURCE_DIR=${CMAKE_SOURCE_DIR}
                                  -P ${CMAKE_CURRENT_LIST_DIR}/check_layers.cmake)
set_tests_properties(arch_layers PROPERTIES LABELS "arch" TIMEOUT 60)
add_test(NAME arch_layers_catch_back_edge
         COMMAND ${CMAKE_COMMAND} -DYEE_SOURCE_DIR=${CMAKE_SOURCE_DIR} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/arch-probe
                 -P ${CMAKE_CURRENT_LIST_DIR}/probe_back_edge.cmake)
set_tests_properties(arch_layers_catch_back_edge PROPERTIES LABELS "arch" TIMEOUT 60)

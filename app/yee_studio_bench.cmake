# yee-studio-bench: the studio's run overhead against yee-run's path on one scene (a benchmark; prints
# the ratio, asserts nothing). Built when the UI is.
if(NOT TARGET yee_ui OR NOT TARGET yee_io)
  return()
endif()
add_executable(yee-studio-bench ${CMAKE_CURRENT_LIST_DIR}/yee-studio-bench.cpp)
target_link_libraries(yee-studio-bench PRIVATE yee_ui yee_io)
target_compile_options(yee-studio-bench PRIVATE ${YEE_WARNINGS})
target_compile_definitions(yee-studio-bench PRIVATE YEE_EXAMPLES_DIR="${CMAKE_SOURCE_DIR}/resources/scenes")
vtk_module_autoinit(TARGETS yee-studio-bench MODULES ${VTK_LIBRARIES})

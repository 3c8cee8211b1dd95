# yee-studio: the Qt 6 + VTK desktop studio (thin main over yee_ui). Built when the UI is.
if(NOT TARGET yee_ui)
  return()
endif()
add_executable(yee-studio ${CMAKE_CURRENT_LIST_DIR}/yee-studio.cpp)
target_link_libraries(yee-studio PRIVATE yee_ui)
target_compile_options(yee-studio PRIVATE ${YEE_WARNINGS})
vtk_module_autoinit(TARGETS yee-studio MODULES ${VTK_LIBRARIES})
install(TARGETS yee-studio RUNTIME DESTINATION bin)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/resources/scenes/ DESTINATION share/yee-studio/scenes OPTIONAL)
# The Help menu's local documentation (README with the scene reference, engine notes, architecture).
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION share/doc/yee-studio)
install(FILES ${CMAKE_SOURCE_DIR}/docs/engine.md ${CMAKE_SOURCE_DIR}/docs/architecture.md
        DESTINATION share/doc/yee-studio/docs)

# yee-fit: fit dispersive poles to tabulated n, k data (CSV) and print a scene material.
add_executable(yee-fit ${CMAKE_CURRENT_LIST_DIR}/yee-fit.cpp)
target_link_libraries(yee-fit PRIVATE yee)
target_compile_options(yee-fit PRIVATE ${YEE_WARNINGS})
install(TARGETS yee-fit RUNTIME DESTINATION bin)

add_executable(yee-bench ${CMAKE_SOURCE_DIR}/bench/yee-bench.cpp)
target_link_libraries(yee-bench PRIVATE yee)
target_compile_options(yee-bench PRIVATE ${YEE_WARNINGS} ${YEE_FP_FLAGS})
install(TARGETS yee-bench RUNTIME DESTINATION bin)

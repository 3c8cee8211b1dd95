add_executable(yee-mode-bench ${CMAKE_SOURCE_DIR}/bench/yee-mode-bench.cpp)
target_link_libraries(yee-mode-bench PRIVATE yee)
target_compile_options(yee-mode-bench PRIVATE ${YEE_WARNINGS} ${YEE_FP_FLAGS})

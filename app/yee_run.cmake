# yee-run: the headless runner. Links only the backend (and yee_mpi when MPI is built).
# yee_runcli holds the testable parts (argument parsing, options, tables, progress bar).
add_library(yee_runcli STATIC ${CMAKE_CURRENT_LIST_DIR}/RunCli.cpp ${CMAKE_CURRENT_LIST_DIR}/RunReport.cpp)
target_include_directories(yee_runcli PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(yee_runcli PUBLIC yee)
target_compile_options(yee_runcli PRIVATE ${YEE_WARNINGS})

add_executable(yee-run ${CMAKE_CURRENT_LIST_DIR}/yee-run.cpp)
target_link_libraries(yee-run PRIVATE yee_runcli)
if(TARGET yee_mpicli)
  target_link_libraries(yee-run PRIVATE yee_mpicli)
endif()
target_compile_options(yee-run PRIVATE ${YEE_WARNINGS})
install(TARGETS yee-run RUNTIME DESTINATION bin)

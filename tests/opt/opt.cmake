if(TARGET yee_opt)
  yee_add_test(NAME opt SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_opt.cpp LABELS "opt;gradient" TIMEOUT 900)
endif()
if(TARGET yee-opt)
  yee_add_test(NAME yee_opt SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_YeeOpt.cpp LABELS "opt;cli" TIMEOUT 900)
  add_dependencies(tst_yee_opt yee-opt yee-run)
  target_compile_definitions(tst_yee_opt PRIVATE YEE_OPT_EXE="$<TARGET_FILE:yee-opt>"
                                                 YEE_RUN_EXE="$<TARGET_FILE:yee-run>")
endif()
if(TARGET yee_opt AND YEE_ENABLE_MPI AND TARGET yee_mpi)
  yee_add_test(NAME opt_mpi SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_opt_mpi.cpp LIBS yee_mpi MPI::MPI_CXX
               LABELS "opt;mpi" MPI_RANKS 2 TIMEOUT 600)
endif()
if(TARGET yee_opt)
  yee_add_test(NAME design_export SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_design_export.cpp LABELS "opt;io"
               TIMEOUT 600)
endif()
if(TARGET yee_opt)
  yee_add_test(NAME length_scale SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_length_scale.cpp LABELS "opt;gradient"
               TIMEOUT 600)
endif()

if(TARGET yee_opt)
  yee_add_test(NAME opt SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_opt.cpp LABELS "opt;gradient" TIMEOUT 900)
endif()
if(TARGET yee-opt)
  yee_add_test(NAME yee_opt SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_YeeOpt.cpp LABELS "opt;cli" TIMEOUT 900)
  add_dependencies(tst_yee_opt yee-opt yee-run)
  target_compile_definitions(tst_yee_opt PRIVATE YEE_OPT_EXE="$<TARGET_FILE:yee-opt>"
                                                 YEE_RUN_EXE="$<TARGET_FILE:yee-run>")
  # The MPI case of the same executable: yee-opt under mpirun, one tile per rank.
  if(TARGET yee_mpi AND MPIEXEC_EXECUTABLE)
    target_compile_definitions(tst_yee_opt PRIVATE YEE_MPIEXEC="${MPIEXEC_EXECUTABLE}")
    add_test(NAME yee_opt_mpi COMMAND tst_yee_opt mpiRanksMatchLocalRun)
    set_tests_properties(yee_opt_mpi PROPERTIES TIMEOUT 600 LABELS "opt;cli;mpi"
                         ENVIRONMENT "YEE_TEST_MPI=1;QT_QPA_PLATFORM=offscreen;OMPI_MCA_btl_vader_single_copy_mechanism=none;OMPI_MCA_rmaps_base_oversubscribe=1")
  endif()
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

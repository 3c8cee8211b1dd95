yee_add_test(NAME modes_solver SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_mode_solver.cpp LABELS modes TIMEOUT 300)
yee_add_test(NAME modes_ports SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_mode_ports.cpp LABELS "modes;slow" TIMEOUT 900)
yee_add_test(NAME modes_gradient SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_mode_gradient.cpp LABELS "modes;gradient;slow"
             TIMEOUT 900)
yee_add_test(NAME modes_examples SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_mode_examples.cpp LABELS "modes;slow" TIMEOUT 900)
# One mode solve per port per prepared scene: the owner rule, the broadcast bytes, emulated devices,
# estimate then run, sessions.
yee_add_test(NAME modes_share SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_mode_share.cpp LABELS modes TIMEOUT 300)
# The same under MPI: the port's owner solves and broadcasts; bit-identical to one process (2 and 3 ranks),
# and yee-run under mpirun (bad ports end every rank).
if(YEE_ENABLE_MPI AND TARGET yee_mpi)
  foreach(np 2 3)
    yee_add_test(NAME modes_mpi SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_mode_mpi.cpp LIBS yee_mpi MPI::MPI_CXX
                 LABELS "modes;mpi" MPI_RANKS ${np} TIMEOUT 600)
  endforeach()
  set_target_properties(tst_modes_mpi PROPERTIES AUTOMOC ON)
endif()
if(TARGET yee_mpi AND MPIEXEC_EXECUTABLE AND TARGET yee-run)
  yee_add_test(NAME modes_yee_run_mpi SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_mode_yee_run.cpp LABELS "modes;mpi;cli;slow"
               TIMEOUT 900 ENV QTEST_FUNCTION_TIMEOUT=800000)
  add_dependencies(tst_modes_yee_run_mpi yee-run)
  target_compile_definitions(tst_modes_yee_run_mpi PRIVATE YEE_RUN_EXE="$<TARGET_FILE:yee-run>"
                                                          YEE_MPIEXEC="${MPIEXEC_EXECUTABLE}")
endif()

# yee-run: argument parsing, report formatting, and the binary end to end.
set(_cli ${CMAKE_CURRENT_LIST_DIR})

yee_add_test(NAME cli_args SOURCES ${_cli}/tst_RunCli.cpp LIBS yee_runcli LABELS cli TIMEOUT 60)
yee_add_test(NAME cli_report SOURCES ${_cli}/tst_RunReport.cpp LIBS yee_runcli LABELS cli TIMEOUT 60)

yee_add_test(NAME cli_yee_run SOURCES ${_cli}/tst_YeeRun.cpp LABELS cli TIMEOUT 1200)
add_dependencies(tst_cli_yee_run yee-run)
target_compile_definitions(tst_cli_yee_run PRIVATE YEE_RUN_EXE="$<TARGET_FILE:yee-run>")

# The MPI cases of the same executable: yee-run under mpirun with one rank per tile.
if(TARGET yee_mpi AND MPIEXEC_EXECUTABLE)
  target_compile_definitions(tst_cli_yee_run PRIVATE YEE_MPIEXEC="${MPIEXEC_EXECUTABLE}")
  add_test(NAME cli_yee_run_mpi COMMAND tst_cli_yee_run mpiRanksMatchLocalRun mpiGpuRequestWithoutGpu
                                       mpiTileCountMustMatchRanks)
  set(_env "YEE_TEST_MPI=1;QT_QPA_PLATFORM=offscreen;OMPI_MCA_btl_vader_single_copy_mechanism=none;OMPI_MCA_rmaps_base_oversubscribe=1")
  if(YEE_SANITIZE)
    # OpenMPI keeps allocations past MPI_Finalize; see the suppression file.
    list(APPEND _env "ASAN_OPTIONS=fast_unwind_on_malloc=0" "LSAN_OPTIONS=suppressions=${_cli}/lsan-openmpi.supp")
  endif()
  set_tests_properties(cli_yee_run_mpi PROPERTIES TIMEOUT 600 LABELS "cli;mpi" ENVIRONMENT "${_env}")
endif()

# Failing outputs (injected, and a real file-size limit): the others survive, exit 3, no crash.
yee_add_test(NAME cli_output_faults SOURCES ${_cli}/tst_OutputFaults.cpp LABELS cli TIMEOUT 300)
add_dependencies(tst_cli_output_faults yee-run)
target_compile_definitions(tst_cli_output_faults PRIVATE YEE_RUN_EXE="$<TARGET_FILE:yee-run>")

# yee-run's and yee-opt's shared MPI launch (rank placement, NCCL or MPI halos), emulated GPU visibility.
if(TARGET yee_mpicli)
  foreach(np 2 4)
    yee_add_test(NAME cli_mpi_launch SOURCES ${_cli}/tst_MpiLaunch.cpp LIBS yee_mpicli MPI::MPI_CXX
                 LABELS "cli;mpi" MPI_RANKS ${np} TIMEOUT 120)
  endforeach()
  set_target_properties(tst_cli_mpi_launch PROPERTIES AUTOMOC ON)
endif()

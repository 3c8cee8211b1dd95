# Cluster export bundles (sbatch script, MPI run of a bundle) and restart files (backend/yee/bundle,
# backend/yee/run/Restart).
set(_bundle ${CMAKE_CURRENT_LIST_DIR})

yee_add_test(NAME restart SOURCES ${_bundle}/tst_restart.cpp LABELS bundle TIMEOUT 600)

# The bundle test runs yee-run (locally, and under mpirun through the bundle's own script).
yee_add_test(NAME bundle SOURCES ${_bundle}/tst_bundle.cpp LABELS "bundle;mpi" TIMEOUT 1200
             ENV QTEST_FUNCTION_TIMEOUT=1100000)
add_dependencies(tst_bundle yee-run)
target_compile_definitions(tst_bundle PRIVATE YEE_RUN_EXE="$<TARGET_FILE:yee-run>")
if(TARGET yee_mpi AND MPIEXEC_EXECUTABLE)
  target_compile_definitions(tst_bundle PRIVATE YEE_MPIEXEC="${MPIEXEC_EXECUTABLE}")
endif()

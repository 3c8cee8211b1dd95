# pytest suites of the Python module (python/), one ctest test per file, label "python". They import
# yee from the build tree (PYTHONPATH) and compare against yee-run (YEE_RUN).
if(NOT TARGET yee_python)
  return()
endif()
set(_py_env "PYTHONPATH=${CMAKE_BINARY_DIR}/python;YEE_SOURCE_DIR=${CMAKE_SOURCE_DIR}"
            "OMPI_MCA_btl_vader_single_copy_mechanism=none;OMPI_MCA_rmaps_base_oversubscribe=1" "OMP_WAIT_POLICY=passive")
if(TARGET yee-run)
  list(APPEND _py_env "YEE_RUN=$<TARGET_FILE:yee-run>")
endif()
foreach(_suite scene run opt gds)
  add_test(NAME python_${_suite}
           COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR}/test_${_suite}.py
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(python_${_suite} PROPERTIES LABELS "python" TIMEOUT 300 ENVIRONMENT "${_py_env}")
endforeach()
# The documented examples, run as printed.
add_test(NAME python_examples
         COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR}/test_examples.py
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(python_examples PROPERTIES LABELS "python;slow" TIMEOUT 900 ENVIRONMENT "${_py_env}")
# One rank per tile from Python: mpirun -np 2 python3 mpi_run.py equals the in-process run.
if(TARGET yee_mpi)
  add_test(NAME python_mpi
           COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR}/test_mpi.py
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(python_mpi PROPERTIES LABELS "python;mpi" TIMEOUT 300 ENVIRONMENT "${_py_env}")
endif()

# Communicator tests: LocalComm (threads in one process) and MpiComm (under mpirun with 2 and 4 ranks).
#
# YEE_COMM_TESTS_STANDALONE=ON builds these tests from the comm sources alone (local object libraries)
# instead of linking libyee / yee_mpi, so the communicators can be tested while other backend modules are
# still being written. The default links libyee and yee_mpi.
option(YEE_COMM_TESTS_STANDALONE "Build the comm tests from the comm sources only, without libyee" OFF)

set(_yee_comm_src ${CMAKE_SOURCE_DIR}/backend/yee/comm)

if(YEE_COMM_TESTS_STANDALONE)
  add_library(yee_comm_testobj OBJECT ${_yee_comm_src}/CommStats.cpp ${_yee_comm_src}/LocalComm.cpp)
  target_include_directories(yee_comm_testobj PUBLIC ${CMAKE_SOURCE_DIR}/backend)
  target_compile_options(yee_comm_testobj PRIVATE ${YEE_WARNINGS} ${YEE_FP_FLAGS})
  target_link_libraries(yee_comm_testobj PUBLIC Threads::Threads)

  # Pre-creating the executables makes yee_add_test only register them (it creates and links targets that
  # do not exist yet).
  function(_yee_comm_standalone_exe exe src)
    add_executable(${exe} ${src})
    target_link_libraries(${exe} PRIVATE ${ARGN} Qt6::Test)
    target_compile_options(${exe} PRIVATE ${YEE_WARNINGS})
    target_include_directories(${exe} PRIVATE ${CMAKE_SOURCE_DIR}/tests)
  endfunction()
  _yee_comm_standalone_exe(tst_localcomm ${CMAKE_CURRENT_LIST_DIR}/tst_LocalComm.cpp yee_comm_testobj)
  if(YEE_ENABLE_MPI)
    add_library(yee_mpi_testobj OBJECT ${_yee_comm_src}/MpiComm.cpp)
    target_compile_options(yee_mpi_testobj PRIVATE ${YEE_WARNINGS})
    target_link_libraries(yee_mpi_testobj PUBLIC yee_comm_testobj MPI::MPI_CXX)
    target_compile_definitions(yee_mpi_testobj PUBLIC YEE_HAVE_MPI=1)
    _yee_comm_standalone_exe(tst_mpicomm ${CMAKE_CURRENT_LIST_DIR}/tst_MpiComm.cpp yee_mpi_testobj
                             yee_comm_testobj MPI::MPI_CXX)
  endif()
endif()

yee_add_test(NAME localcomm SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_LocalComm.cpp LABELS comm TIMEOUT 300)
set_target_properties(tst_localcomm PROPERTIES AUTOMOC ON)

if(YEE_ENABLE_MPI AND (TARGET yee_mpi OR TARGET tst_mpicomm))
  foreach(np 2 4)
    yee_add_test(NAME mpicomm SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_MpiComm.cpp LIBS yee_mpi MPI::MPI_CXX
                 LABELS mpi comm MPI_RANKS ${np} TIMEOUT 300)
  endforeach()
  set_target_properties(tst_mpicomm PROPERTIES AUTOMOC ON)
endif()

# GPU placement under MPI from device identity, with emulated per-rank GPU visibility (no GPU needed).
if(YEE_ENABLE_MPI AND TARGET yee_mpi)
  foreach(np 2 4)
    yee_add_test(NAME gpuplacement SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_GpuPlacement.cpp LIBS yee_mpi
                 MPI::MPI_CXX LABELS mpi comm MPI_RANKS ${np} TIMEOUT 120)
  endforeach()
  set_target_properties(tst_gpuplacement PROPERTIES AUTOMOC ON)
endif()

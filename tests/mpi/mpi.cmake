# Decomposed forward and gradient runs over MpiComm (one rank per tile) against the single-domain run:
# tst_mpi_decomposition under mpirun with 2 and 4 ranks (the tile grids follow the rank count).
if(YEE_ENABLE_MPI AND TARGET yee_mpi)
  foreach(np 2 4)
    yee_add_test(NAME mpi_decomposition SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_mpi_decomposition.cpp
                 LIBS yee_mpi MPI::MPI_CXX LABELS mpi MPI_RANKS ${np} TIMEOUT 300)
  endforeach()
  set_target_properties(tst_mpi_decomposition PROPERTIES AUTOMOC ON)
endif()

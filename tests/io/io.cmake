# Results files and VTKHDF snapshots (backend/yee/io). Atomic writes: tests/files.
set(_io ${CMAKE_CURRENT_LIST_DIR})

yee_add_test(NAME io_results SOURCES ${_io}/tst_ResultsWriter.cpp LABELS io TIMEOUT 60)
# The VTKHDF test inspects raw attribute types with the HDF5 C API.
yee_add_test(NAME io_vtkhdf SOURCES ${_io}/tst_VtkHdf.cpp LIBS ${HDF5_C_LIBRARIES} LABELS io TIMEOUT 60)
target_include_directories(tst_io_vtkhdf PRIVATE ${HDF5_C_INCLUDE_DIRS})

# Interop: VTK's own vtkHDFReader (what ParaView uses) opens our files. A function keeps VTK's
# variables out of the scope the other test files share.
function(yee_io_vtk_reader_test)
  find_package(VTK 9.1 QUIET COMPONENTS IOHDF CommonCore CommonDataModel)
  if(NOT VTK_FOUND OR NOT TARGET VTK::IOHDF)
    message(STATUS "VTK IOHDF not found: io_vtkhdf_reader test skipped")
    return()
  endif()
  yee_add_test(NAME io_vtkhdf_reader SOURCES ${_io}/tst_VtkHdfReader.cpp
               LIBS VTK::IOHDF VTK::CommonDataModel VTK::CommonCore LABELS io TIMEOUT 60)
endfunction()
yee_io_vtk_reader_test()

# Staggered components: one correctly placed series per component, identical on every tile grid.
yee_add_test(NAME io_snapshot_grids SOURCES ${_io}/tst_SnapshotGrids.cpp LABELS io TIMEOUT 120)

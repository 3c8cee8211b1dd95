# Low-level files (backend/yee/files): atomic writes, the HDF5 handles and the library-wide HDF5 mutex.
set(_files ${CMAKE_CURRENT_LIST_DIR})
yee_add_test(NAME files_atomic SOURCES ${_files}/tst_AtomicFile.cpp LABELS files TIMEOUT 60)
# Scene sidecars and results files written from two threads; probes the HDF5 mutex, so it sees <hdf5.h>.
yee_add_test(NAME files_hdf5_threads SOURCES ${_files}/tst_Hdf5Threads.cpp LIBS ${HDF5_C_LIBRARIES}
             LABELS "files;scene;io" TIMEOUT 120)
target_include_directories(tst_files_hdf5_threads PRIVATE ${HDF5_C_INCLUDE_DIRS})
unset(_files)

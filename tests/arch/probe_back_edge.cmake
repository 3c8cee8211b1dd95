cmake_minimum_required(VERSION 3.25)
# Copies backend/layers.cmake and a few backend files into WORK, adds `#include "yee/run/Run.hpp"` to a
# solver file, and requires check_layers.cmake to refuse it, naming the file.
file(REMOVE_RECURSE ${WORK})
file(COPY ${YEE_SOURCE_DIR}/backend/layers.cmake DESTINATION ${WORK}/backend)
file(COPY ${YEE_SOURCE_DIR}/backend/yee DESTINATION ${WORK}/backend)
file(COPY ${YEE_SOURCE_DIR}/ui DESTINATION ${WORK})
file(APPEND ${WORK}/backend/yee/solver/Plan.cpp "\n#include \"yee/run/Run.hpp\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -DYEE_SOURCE_DIR=${WORK} -P ${CMAKE_CURRENT_LIST_DIR}/check_layers.cmake
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "the layer check accepted solver including run")
endif()
if(NOT err MATCHES "backend/yee/solver/Plan.cpp: solver must not include run")
  message(FATAL_ERROR "the layer check failed without naming the back-edge:\n${err}")
endif()
file(REMOVE_RECURSE ${WORK})
message(STATUS "a back-edge is refused: ${err}")

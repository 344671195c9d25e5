# Runs a command and checks both its exit code and its output (ctest's PASS_REGULAR_EXPRESSION
# alone ignores the exit code). Usage:
#   cmake -DEXPECT_CODE=2 -DEXPECT_REGEX=<regex> -P expect_exit.cmake -- <program> <args...>
# The regex is matched against stdout and stderr together.
include("${CMAKE_CURRENT_LIST_DIR}/command_after_separator.cmake")
if(NOT command)
  message(FATAL_ERROR "expect_exit.cmake: no command after --")
endif()
execute_process(COMMAND ${command} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(output "${out}${err}")
if(NOT "${code}" STREQUAL "${EXPECT_CODE}")
  message(FATAL_ERROR "expected exit code ${EXPECT_CODE}, got ${code}; output:\n${output}")
endif()
if(NOT output MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match '${EXPECT_REGEX}':\n${output}")
endif()
message(STATUS "exit code ${code} and output as expected")

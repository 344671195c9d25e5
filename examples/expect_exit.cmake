# Runs a command and checks both its exit code and its output (ctest's PASS_REGULAR_EXPRESSION
# alone ignores the exit code). Usage:
#   cmake -DEXPECT_CODE=2 -DEXPECT_REGEX=<regex> -P expect_exit.cmake -- <program> <args...>
# The regex is matched against stdout and stderr together. Optional:
#   -DSTDOUT_FILE=<file>  standard output goes to that file (e.g. /dev/full); only standard
#                         error is matched then
#   -DUNTOUCHED=<file>    written here with a known line before the command, which must leave
#                         it as it was (an output that must not be opened, truncated or written)
#   -DABSENT=<path>       removed here before the command, which must not create it
include("${CMAKE_CURRENT_LIST_DIR}/command_after_separator.cmake")
if(NOT command)
  message(FATAL_ERROR "expect_exit.cmake: no command after --")
endif()
set(sentinel "written by expect_exit.cmake before the command ran\n")
if(DEFINED UNTOUCHED)
  file(WRITE "${UNTOUCHED}" "${sentinel}")
endif()
if(DEFINED ABSENT)
  file(REMOVE_RECURSE "${ABSENT}")
endif()
if(DEFINED STDOUT_FILE)
  execute_process(COMMAND ${command} RESULT_VARIABLE code OUTPUT_FILE "${STDOUT_FILE}"
                  ERROR_VARIABLE err)
  set(output "${err}")
else()
  execute_process(COMMAND ${command} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(output "${out}${err}")
endif()
if(NOT "${code}" STREQUAL "${EXPECT_CODE}")
  message(FATAL_ERROR "expected exit code ${EXPECT_CODE}, got ${code}; output:\n${output}")
endif()
if(NOT output MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match '${EXPECT_REGEX}':\n${output}")
endif()
if(DEFINED UNTOUCHED)
  if(NOT EXISTS "${UNTOUCHED}")
    message(FATAL_ERROR "${UNTOUCHED} was removed")
  endif()
  file(READ "${UNTOUCHED}" after)
  if(NOT after STREQUAL sentinel)
    message(FATAL_ERROR "${UNTOUCHED} was changed (truncated or written):\n${after}")
  endif()
endif()
if(DEFINED ABSENT AND EXISTS "${ABSENT}")
  message(FATAL_ERROR "${ABSENT} was created")
endif()
message(STATUS "exit code ${code} and output as expected")

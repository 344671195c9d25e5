# Runs an example in a fresh directory and checks its results, not only its exit code: the
# regression tests that pin each reproduction's numbers at a reduced size. Usage:
#   cmake -DWORK=<dir> [-DSKIP_UNLESS=<path>] [-DCOMPARE=<produced>|<expected>,...]
#         [-DSTDOUT=<expected>] [-DFIRST_LINE=<produced>|<regex>] [-DEXPECT_REGEX=<regex>]
#         -P expect_files.cmake -- <program> <args...>
# - SKIP_UNLESS: when that input (a file of ../shared) is absent, print "skipped: ..." and
#   stop; the test's SKIP_REGULAR_EXPRESSION then reports it as skipped, not passed.
# - COMPARE: each produced file (relative to WORK) must equal the expected one byte for byte.
# - STDOUT: the program's standard output must equal that file.
# - FIRST_LINE: the produced file's first line must match the regex (a header).
# - EXPECT_REGEX: matched against stdout and stderr together.
# With the environment variable LEASEHOLD_UPDATE_EXPECTED=1, differing expected files are
# rewritten from the run instead (after a deliberate change of results; review the diff).
include("${CMAKE_CURRENT_LIST_DIR}/command_after_separator.cmake")
if(NOT command OR NOT DEFINED WORK)
  message(FATAL_ERROR "expect_files.cmake: -DWORK=... and a command after -- are required")
endif()
if(DEFINED SKIP_UNLESS AND NOT EXISTS "${SKIP_UNLESS}")
  message(STATUS "skipped: ${SKIP_UNLESS} is absent (the data of ../shared is not there)")
  return()
endif()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND ${command} WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE code
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "'${command}' exited with ${code}:\n${out}${err}")
endif()
file(WRITE "${WORK}/stdout.txt" "${out}")
if(DEFINED EXPECT_REGEX AND NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match '${EXPECT_REGEX}':\n${out}${err}")
endif()

string(REPLACE "," ";" pairs "${COMPARE}")
if(DEFINED STDOUT)
  list(APPEND pairs "stdout.txt|${STDOUT}")
endif()
set(failures "")
foreach(pair IN LISTS pairs)
  string(REPLACE "|" ";" parts "${pair}")
  list(GET parts 0 produced)
  list(GET parts 1 expected)
  if(NOT EXISTS "${WORK}/${produced}")
    message(FATAL_ERROR "the run did not write ${produced}")
  endif()
  file(READ "${WORK}/${produced}" got)
  set(want "")
  if(EXISTS "${expected}")
    file(READ "${expected}" want)
  endif()
  if(NOT got STREQUAL want)
    if("$ENV{LEASEHOLD_UPDATE_EXPECTED}" STREQUAL "1")
      file(WRITE "${expected}" "${got}")
      message(STATUS "updated ${expected}")
    else()
      string(APPEND failures "${WORK}/${produced} differs from ${expected}:\n--- got\n${got}"
             "--- expected\n${want}\n")
    endif()
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "${failures}(if the change of results is deliberate, rerun with "
                      "LEASEHOLD_UPDATE_EXPECTED=1 and review the diff of the expected files)")
endif()

if(DEFINED FIRST_LINE)
  string(REPLACE "|" ";" parts "${FIRST_LINE}")
  list(GET parts 0 produced)
  list(GET parts 1 regex)
  file(STRINGS "${WORK}/${produced}" lines LIMIT_COUNT 1)
  if(NOT lines MATCHES "${regex}")
    message(FATAL_ERROR "the first line of ${produced}, '${lines}', does not match '${regex}'")
  endif()
endif()
message(STATUS "results as expected")

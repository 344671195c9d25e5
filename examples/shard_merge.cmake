# Runs a sweep in SHARDS shards (one process after the other, as a job array would), merges
# them, and checks that the merged CSV and tables equal those of a single process byte for
# byte. Usage:
#   cmake -DPROGRAM=<exe> -DWORK=<dir> -DSHARDS=<N> -DREFERENCE=<dir> -DARGS=<a;b;...>
#         [-DCHECK_ERRORS=ON] -P shard_merge.cmake
# With SHARDS=0 it writes the single-process reference into REFERENCE instead. The CSV is
# named the same (sweep.csv) in both directories, since the tables' last line names it.
# CHECK_ERRORS also checks that a missing or a cut-short shard file is an error naming it.
foreach(var PROGRAM WORK SHARDS REFERENCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "shard_merge.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run_checked dir out)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${dir}" RESULT_VARIABLE code
                  OUTPUT_FILE "${out}" ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    file(READ "${out}" text)
    message(FATAL_ERROR "'${ARGN}' failed (${code}):\n${text}${err}")
  endif()
endfunction()

function(expect_failure code regex)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE got OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT "${got}" STREQUAL "${code}" OR NOT "${out}${err}" MATCHES "${regex}")
    message(FATAL_ERROR "'${ARGN}': expected exit ${code} and '${regex}', got ${got}:\n${out}${err}")
  endif()
endfunction()

if(SHARDS EQUAL 0)
  file(REMOVE_RECURSE "${REFERENCE}")
  file(MAKE_DIRECTORY "${REFERENCE}")
  run_checked("${REFERENCE}" "${REFERENCE}/tables.txt" "${PROGRAM}" ${ARGS} --no-timing --csv
              sweep.csv)
  return()
endif()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/merged")
math(EXPR last "${SHARDS} - 1")
foreach(i RANGE ${last})
  # A thread count that differs per shard: the runs a shard owns must not depend on it.
  math(EXPR threads "${i} % 2 + 1")
  run_checked("${WORK}" "${WORK}/shard-${i}.log" "${PROGRAM}" ${ARGS} --jobs ${threads} --shard
              ${i}/${SHARDS} --shard-dir "${WORK}/shards")
endforeach()
run_checked("${WORK}/merged" "${WORK}/merged/tables.txt" "${PROGRAM}" --merge "${WORK}/shards"
            --no-timing --csv sweep.csv)
foreach(file sweep.csv tables.txt)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${REFERENCE}/${file}"
                          "${WORK}/merged/${file}" RESULT_VARIABLE differ)
  if(differ)
    message(FATAL_ERROR "${WORK}/merged/${file} differs from the single process's "
                        "${REFERENCE}/${file}")
  endif()
endforeach()

if(CHECK_ERRORS)
  # A shard file missing: exit 1, naming the path.
  file(COPY "${WORK}/shards/" DESTINATION "${WORK}/missing")
  file(REMOVE "${WORK}/missing/shard-1-of-${SHARDS}.txt")
  expect_failure(1 "missing shard file [^\n]*missing/shard-1-of-${SHARDS}.txt" "${PROGRAM}"
                 --merge "${WORK}/missing" --csv "${WORK}/missing.csv")
  # A shard file cut short (a job killed while writing): exit 1, naming the path and line.
  file(COPY "${WORK}/shards/" DESTINATION "${WORK}/cut")
  file(STRINGS "${WORK}/cut/shard-0-of-${SHARDS}.txt" lines)
  list(REMOVE_AT lines -1)
  list(JOIN lines "\n" text)
  file(WRITE "${WORK}/cut/shard-0-of-${SHARDS}.txt" "${text}\n")
  expect_failure(1 "cut/shard-0-of-${SHARDS}.txt: line [0-9]+: cut short" "${PROGRAM}" --merge
                 "${WORK}/cut" --csv "${WORK}/cut.csv")
  # A corrupt number: exit 1, naming the path and the line.
  file(COPY "${WORK}/shards/" DESTINATION "${WORK}/corrupt")
  file(READ "${WORK}/corrupt/shard-2-of-${SHARDS}.txt" text)
  string(REGEX REPLACE "\nrun ([0-9]+) [0-9]+" "\nrun \\1 12x" text "${text}")
  file(WRITE "${WORK}/corrupt/shard-2-of-${SHARDS}.txt" "${text}")
  expect_failure(1 "corrupt/shard-2-of-${SHARDS}.txt: line 5: malformed run line" "${PROGRAM}"
                 --merge "${WORK}/corrupt" --csv "${WORK}/corrupt.csv")
  # An unknown cancelled-job policy in the sweep line: exit 1, naming the path and the line.
  file(COPY "${WORK}/shards/" DESTINATION "${WORK}/policy")
  file(READ "${WORK}/policy/shard-0-of-${SHARDS}.txt" text)
  string(REPLACE " queue_until_wait " " nosuch " text "${text}")
  file(WRITE "${WORK}/policy/shard-0-of-${SHARDS}.txt" "${text}")
  expect_failure(1 "policy/shard-0-of-${SHARDS}.txt: line 3: unknown cancelled-job policy 'nosuch'"
                 "${PROGRAM}" --merge "${WORK}/policy" --csv "${WORK}/policy.csv")
  # No shard file at all.
  file(MAKE_DIRECTORY "${WORK}/empty")
  expect_failure(1 "no shard files .shard-I-of-N.txt. in [^\n]*empty" "${PROGRAM}" --merge
                 "${WORK}/empty" --csv "${WORK}/empty.csv")
endif()
message(STATUS "${SHARDS} shards merged: byte-identical to the single process")

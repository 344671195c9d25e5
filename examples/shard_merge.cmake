# Runs a sweep in SHARDS shards (one process after the other, as a job array would), merges
# them, and checks that the merged outputs (files and standard output) equal those of a single
# process byte for byte. Usage:
#   cmake -DPROGRAM=<exe> -DWORK=<dir> -DSHARDS=<N> -DREFERENCE=<dir> -DARGS=<a;b;...>
#         [-DOUTPUT_ARGS=<a;b;...>] [-DOUTPUTS=<f;g;...>] [-DTHREADS_OPTION=<--opt|NONE>]
#         [-DCHECK_ERRORS=ON] [-DSWEEP_EDIT=<old|new|regex>] -P shard_merge.cmake
# Options given empty take their defaults. With SHARDS=0 it writes the single-process
# reference into REFERENCE instead. OUTPUT_ARGS (default --no-timing --csv sweep.csv) are given to the single process and to the merge, each
# run in its own directory, so that the files are named the same in both (the standard output
# names them); OUTPUTS (default sweep.csv) are the files compared, with tables.txt, the standard
# output. THREADS_OPTION (default --jobs) gives the shards different thread counts; NONE for
# a program without threads. CHECK_ERRORS also checks that a missing, cut-short or corrupt
# shard file is an error naming it; SWEEP_EDIT replaces `old` by `new` in shard 0 and expects
# the merge to fail matching `regex` (a sweep line the program must refuse).
foreach(var PROGRAM WORK SHARDS REFERENCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "shard_merge.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT OUTPUT_ARGS)
  set(OUTPUT_ARGS --no-timing --csv sweep.csv)
endif()
if(NOT OUTPUTS)
  set(OUTPUTS sweep.csv)
endif()
if(NOT THREADS_OPTION)
  set(THREADS_OPTION --jobs)
endif()

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
  run_checked("${REFERENCE}" "${REFERENCE}/tables.txt" "${PROGRAM}" ${ARGS} ${OUTPUT_ARGS})
  return()
endif()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/merged")
math(EXPR last "${SHARDS} - 1")
foreach(i RANGE ${last})
  # A thread count that differs per shard: the runs a shard owns must not depend on it.
  math(EXPR threads "${i} % 2 + 1")
  set(thread_args "")
  if(NOT THREADS_OPTION STREQUAL "NONE")
    set(thread_args ${THREADS_OPTION} ${threads})
  endif()
  run_checked("${WORK}" "${WORK}/shard-${i}.log" "${PROGRAM}" ${ARGS} ${thread_args} --shard
              ${i}/${SHARDS} --shard-dir "${WORK}/shards")
endforeach()
run_checked("${WORK}/merged" "${WORK}/merged/tables.txt" "${PROGRAM}" --merge "${WORK}/shards"
            ${OUTPUT_ARGS})
foreach(file ${OUTPUTS} tables.txt)
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
                 --merge "${WORK}/missing")
  # A shard file cut short (a job killed while writing): exit 1, naming the path and line.
  file(COPY "${WORK}/shards/" DESTINATION "${WORK}/cut")
  file(READ "${WORK}/cut/shard-0-of-${SHARDS}.txt" text)
  string(FIND "${text}" "\nend\n" at REVERSE)
  math(EXPR at "${at} + 1")
  string(SUBSTRING "${text}" 0 ${at} text)
  file(WRITE "${WORK}/cut/shard-0-of-${SHARDS}.txt" "${text}")
  expect_failure(1 "cut/shard-0-of-${SHARDS}.txt: line [0-9]+: cut short" "${PROGRAM}" --merge
                 "${WORK}/cut")
  # A corrupt number (the first run line's index made "12x<index>"): exit 1, naming the path
  # and the line.
  file(COPY "${WORK}/shards/" DESTINATION "${WORK}/corrupt")
  file(READ "${WORK}/corrupt/shard-2-of-${SHARDS}.txt" text)
  string(FIND "${text}" "\nrun " at)
  math(EXPR cut "${at} + 5")
  string(SUBSTRING "${text}" 0 ${cut} head)
  string(SUBSTRING "${text}" ${cut} -1 rest)
  file(WRITE "${WORK}/corrupt/shard-2-of-${SHARDS}.txt" "${head}12x${rest}")
  string(REGEX MATCHALL "\n" newlines "${head}")
  list(LENGTH newlines line)
  math(EXPR line "${line} + 1")
  expect_failure(1 "corrupt/shard-2-of-${SHARDS}.txt: line ${line}: malformed run line"
                 "${PROGRAM}" --merge "${WORK}/corrupt")
  # A sweep line the program must refuse: exit 1, naming the path and the line.
  if(SWEEP_EDIT)
    string(REPLACE "|" ";" edit "${SWEEP_EDIT}")
    list(GET edit 0 old)
    list(GET edit 1 new)
    list(GET edit 2 regex)
    file(COPY "${WORK}/shards/" DESTINATION "${WORK}/sweep")
    file(READ "${WORK}/sweep/shard-0-of-${SHARDS}.txt" text)
    string(REPLACE "${old}" "${new}" text "${text}")
    file(WRITE "${WORK}/sweep/shard-0-of-${SHARDS}.txt" "${text}")
    expect_failure(1 "sweep/shard-0-of-${SHARDS}.txt: ${regex}" "${PROGRAM}" --merge
                   "${WORK}/sweep")
  endif()
  # No shard file at all.
  file(MAKE_DIRECTORY "${WORK}/empty")
  expect_failure(1 "no shard files .shard-I-of-N.txt. in [^\n]*empty" "${PROGRAM}" --merge
                 "${WORK}/empty")
endif()
message(STATUS "${SHARDS} shards merged: byte-identical to the single process")

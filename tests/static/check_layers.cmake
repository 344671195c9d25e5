# Run by ctest (static.layers_include_only_lower_layers): every header under include/leasehold/
# may include only its own layer and the layers below it (docs/architecture.md), and another
# folder's private detail/ headers only if that folder is its own (or an enclosing one) or
# core/, whose detail/ holds the helpers every layer shares. Fails naming each header and
# include that reaches up or into someone else's privates.
#   cmake -DINCLUDE_DIR=<repo>/include -P check_layers.cmake
set(rank_core 0)
set(rank_availability 1)
set(rank_cluster 2)
set(rank_policy 3)
set(rank_sim 4)
set(rank_io 5)

file(GLOB_RECURSE headers RELATIVE "${INCLUDE_DIR}" "${INCLUDE_DIR}/leasehold/*/*.hpp")
set(violations "")
foreach(header IN LISTS headers)
  string(REGEX MATCH "^leasehold/([a-z_]+)/" _ "${header}")
  set(layer "${CMAKE_MATCH_1}")
  if(NOT DEFINED rank_${layer})
    continue()  # leasehold/c/ (the C header) and anything outside the layers
  endif()
  file(STRINGS "${INCLUDE_DIR}/${header}" includes REGEX "^#include \"leasehold/")
  foreach(line IN LISTS includes)
    string(REGEX MATCH "\"leasehold/([a-z_]+)[/.]" _ "${line}")
    set(target "${CMAKE_MATCH_1}")
    if(DEFINED rank_${target} AND rank_${target} GREATER rank_${layer})
      string(APPEND violations "\n  ${header}: ${line} (${layer} may not include ${target})")
    endif()
    # The workload readers and generators produce lease terms, core's vocabulary; they must
    # not depend on the policy that schedules them (docs/architecture.md).
    if(header MATCHES "^leasehold/sim/workload/" AND line MATCHES "\"leasehold/policy/lease/")
      string(APPEND violations "\n  ${header}: ${line} (sim/workload uses core/lease_terms.hpp)")
    endif()
    if(line MATCHES "\"(leasehold/.*)/detail/")
      set(owner "${CMAKE_MATCH_1}")
      get_filename_component(header_dir "${header}" DIRECTORY)
      string(FIND "${header_dir}/" "${owner}/" at)
      if(NOT owner STREQUAL "leasehold/core" AND NOT at EQUAL 0)
        string(APPEND violations "\n  ${header}: ${line} (private to ${owner}/)")
      endif()
    endif()
  endforeach()
endforeach()
list(LENGTH headers count)
if(violations)
  message(FATAL_ERROR "headers that include a higher layer or another folder's detail/:${violations}")
endif()
message(STATUS "${count} headers include only their own layer, the layers below it, and their own or core's detail/")

# SPDX-License-Identifier: MIT
# check_layers.cmake - run by the unit.layers test (see CMakeLists.txt).
# Compiles one probe per (layer, header) pair and fails on every pair
# whose outcome differs from what the arrows allow; also refuses quoted
# includes with a path in libfmt/src, which would step around the
# include path.
include(${CONFIG})
file(MAKE_DIRECTORY ${WORK})
set(failures 0)

# Which layer a header belongs to, and how a file includes it.
set(headers)
foreach(layer IN LISTS LAYERS)
  string(REPLACE "_" "/" dir ${layer})
  file(GLOB private RELATIVE ${SRC}/${dir} ${SRC}/${dir}/*.h)
  foreach(h IN LISTS private)
    list(APPEND headers "${layer}|\"${h}\"")
  endforeach()
  foreach(h IN LISTS OWN_${layer})
    list(APPEND headers "${layer}|<tachyon/${h}>")
  endforeach()
endforeach()

foreach(layer IN LISTS LAYERS)
  set(flags -std=c11 -fsyntax-only)
  foreach(i IN LISTS INC_${layer})
    list(APPEND flags -I${i})
  endforeach()
  foreach(d IN LISTS DEF_${layer})
    list(APPEND flags -D${d})
  endforeach()
  foreach(entry IN LISTS headers)
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 owner)
    list(GET parts 1 inc)
    list(FIND ALLOWED_${layer} ${owner} idx)
    set(probe ${WORK}/${layer}.c)
    file(WRITE ${probe} "#include ${inc}\n")
    execute_process(COMMAND ${CC} ${flags} ${probe}
      RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE out)
    if(idx GREATER -1 AND NOT rc EQUAL 0)
      message("layer ${layer} cannot include ${inc} of layer ${owner}, "
        "which it may use:\n${out}")
      math(EXPR failures "${failures} + 1")
    elseif(idx EQUAL -1 AND rc EQUAL 0)
      message("layer ${layer} can include ${inc} of layer ${owner}, "
        "which is above it or beside it")
      math(EXPR failures "${failures} + 1")
    endif()
  endforeach()
endforeach()

file(GLOB_RECURSE sources ${SRC}/*.c ${SRC}/*.h)
foreach(f IN LISTS sources)
  file(STRINGS ${f} lines REGEX "^#[ \t]*include[ \t]*\"[^\"]*/")
  foreach(l IN LISTS lines)
    message("${f}: an include with a path steps around the layers: ${l}")
    math(EXPR failures "${failures} + 1")
  endforeach()
endforeach()

list(LENGTH headers nh)
list(LENGTH LAYERS nl)
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} layer violations")
endif()
message("${nl} layers x ${nh} headers: every include follows the arrows")

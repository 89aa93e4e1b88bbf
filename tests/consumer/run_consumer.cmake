# SPDX-License-Identifier: MIT
# run_consumer.cmake - the unit.consumer test: install this build into a
# scratch prefix (its tachyon-conv runs from there), then configure, build
# and run the consumer project against it. Variables: BUILD (this build
# tree), WORK (scratch folder), SRC (tests/consumer), CC, SANITIZE (the
# build's sanitizers, if any), INPUT (a log to read), WANT (the version
# find_package asks for), PREFIX (optional: an existing install to use
# instead, e.g. the Debian packages unpacked; nothing is installed then).
file(REMOVE_RECURSE ${WORK})
set(prefix ${WORK}/prefix)
if(PREFIX)
  set(prefix ${PREFIX})
endif()

function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
    ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
endfunction()

if(NOT PREFIX)
  step(${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
  # The installed tools find their library in the prefix by themselves.
  step(${prefix}/bin/tachyon-conv --version)
endif()
set(flags "")
if(SANITIZE)
  # An instrumented library needs an instrumented program.
  set(flags "-fsanitize=${SANITIZE}")
endif()
step(${CMAKE_COMMAND} -S ${SRC} -B ${WORK}/build
  -DCMAKE_C_COMPILER=${CC} -DCMAKE_PREFIX_PATH=${prefix}
  -DTACHYON_WANT=${WANT}
  "-DCMAKE_C_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
step(${CMAKE_COMMAND} --build ${WORK}/build)
execute_process(COMMAND ${WORK}/build/consumer ${INPUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the consumer failed (${rc})")
endif()

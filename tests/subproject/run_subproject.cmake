# SPDX-License-Identifier: MIT
# run_subproject.cmake - the package.subproject test: configure the parent
# project of tests/subproject twice, without CTest and with it
# (BUILD_TESTING ON). Its CMakeLists.txt checks the targets; here, that
# tachyon left the parent's packaging (CPack) alone. Variables: SRC (the
# tachyon source), WORK (a scratch folder).
file(REMOVE_RECURSE ${WORK})
foreach(testing OFF ON)
  set(build ${WORK}/testing-${testing})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC}/tests/subproject
    -B ${build} -DTACHYON_SOURCE=${SRC} -DPARENT_TESTING=${testing}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configuring with PARENT_TESTING=${testing} "
      "failed (${rc}):\n${out}")
  endif()
  if(EXISTS ${build}/CPackConfig.cmake)
    message(FATAL_ERROR "tachyon set up CPack for its parent project")
  endif()
  string(REGEX MATCH "tachyon as a subproject[^\n]*" line "${out}")
  message(STATUS "${line}")
endforeach()

# SPDX-License-Identifier: MIT
# completions.cmake - write one tool's shell completions (run by the build,
# tools/CMakeLists.txt): TOOL --print-completion SHELL for bash, zsh and
# fish into DIR/bash/NAME, DIR/zsh/_NAME and DIR/fish/NAME.fish.
foreach(shell bash zsh fish)
  if(shell STREQUAL "bash")
    set(out ${DIR}/bash/${NAME})
  elseif(shell STREQUAL "zsh")
    set(out ${DIR}/zsh/_${NAME})
  else()
    set(out ${DIR}/fish/${NAME}.fish)
  endif()
  get_filename_component(parent ${out} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  execute_process(COMMAND ${TOOL} --print-completion ${shell}
    OUTPUT_FILE ${out}.tmp RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    file(REMOVE ${out}.tmp)
    message(FATAL_ERROR "${NAME} --print-completion ${shell} failed (${rc}): ${err}")
  endif()
  file(RENAME ${out}.tmp ${out})
endforeach()

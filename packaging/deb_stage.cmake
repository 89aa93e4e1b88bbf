# SPDX-License-Identifier: MIT
# deb_stage.cmake - run by cpack (CPACK_PRE_BUILD_SCRIPTS) on the staged
# files of the packages, one folder per component, before they are built:
# man pages and changelogs are gzipped (-9n: no name or time inside, the
# same bytes every build), as Debian policy asks.
if(NOT CPACK_PACKAGING_INSTALL_PREFIX STREQUAL "/usr")
  message(FATAL_ERROR "Debian packages install to /usr: configure the "
    "build with -DCMAKE_INSTALL_PREFIX=/usr (this one installs to "
    "${CPACK_PACKAGING_INSTALL_PREFIX})")
endif()

function(gzip_in_place file)
  execute_process(COMMAND gzip -9nf ${file} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip -9nf ${file} failed (${rc})")
  endif()
endfunction()

file(GLOB components LIST_DIRECTORIES true ${CPACK_TEMPORARY_DIRECTORY}/*)
foreach(root IN LISTS components)
  file(GLOB_RECURSE pages ${root}/usr/share/man/*)
  file(GLOB changelogs ${root}/usr/share/doc/*/changelog)
  foreach(file IN LISTS pages changelogs)
    if(NOT file MATCHES "\\.gz$" AND NOT IS_SYMLINK ${file})
      gzip_in_place(${file})
    endif()
  endforeach()
endforeach()

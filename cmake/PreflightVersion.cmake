# The git revision goes into every result file; a tarball build says "unknown".
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR} OUTPUT_VARIABLE PREFLIGHT_GIT_REVISION
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _git_rc)
if(NOT _git_rc EQUAL 0 OR PREFLIGHT_GIT_REVISION STREQUAL "")
  set(PREFLIGHT_GIT_REVISION unknown)
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR} OUTPUT_VARIABLE _git_dirty ERROR_QUIET)
  if(NOT _git_dirty STREQUAL "")
    string(APPEND PREFLIGHT_GIT_REVISION "-dirty")
  endif()
endif()

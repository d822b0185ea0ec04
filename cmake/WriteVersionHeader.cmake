# Script mode: writes OUTPUT with VERSION and the git hash of SOURCE_DIR, only if changed.
execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse --short=12 HEAD
                OUTPUT_VARIABLE _hash OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0 OR _hash STREQUAL "")
  set(_hash "unknown")
else()
  execute_process(COMMAND git -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                  OUTPUT_VARIABLE _dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT _dirty STREQUAL "")
    set(_hash "${_hash}-dirty")
  endif()
endif()
set(_text "#pragma once\n#define MINIGPU_VERSION \"${VERSION}\"\n#define MINIGPU_GIT_HASH \"${_hash}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} _old)
endif()
if(NOT "${_old}" STREQUAL "${_text}")
  file(WRITE ${OUTPUT} "${_text}")
endif()

# Records the git commit of the source tree for `minigpu --version` and run records.
# Re-run at every build (not only at configure) so the hash never goes stale.
set(MINIGPU_VERSION_HEADER ${CMAKE_BINARY_DIR}/generated/minigpu_version.hpp)
add_custom_target(minigpu_version_header
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUTPUT=${MINIGPU_VERSION_HEADER}
          -DVERSION=${PROJECT_VERSION} -P ${CMAKE_CURRENT_LIST_DIR}/WriteVersionHeader.cmake
  BYPRODUCTS ${MINIGPU_VERSION_HEADER}
  COMMENT "Recording git revision")

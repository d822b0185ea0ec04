# Included from tests/CMakeLists.txt (paths are relative to tests/): the tests that keep README,
# docs/ and inputs/README.md true to the code, each with a self-test that shows it can fail.

# inputs/README.md's key tables say what the config layer enforces (minigpu list --keys); the
# self-test shows that a removed section or row fails it and that --write writes them back.
add_test(NAME input_docs_match_code
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/check_input_docs.py $<TARGET_FILE:minigpu>
                 ${PROJECT_SOURCE_DIR}/inputs/README.md)
add_test(NAME input_docs_self_test
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/check_input_docs.py $<TARGET_FILE:minigpu>
                 ${PROJECT_SOURCE_DIR}/inputs/README.md --self-test)

# Every registered experiment has its source, input and table rows (generated from its
# registration), an optional drawer, test or quickstart entry is whole, and every file in
# src/experiments/ is registered; the self-test shows on a copied tree that each is caught.
add_test(NAME registry_coverage
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/check_registry_coverage.py $<TARGET_FILE:minigpu>
                 ${PROJECT_SOURCE_DIR})
add_test(NAME registry_coverage_self_test
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/check_registry_coverage.py $<TARGET_FILE:minigpu>
                 ${PROJECT_SOURCE_DIR} --self-test)

# README.md, docs/ and the inputs' READMEs link only to files and headings that exist; the
# self-test shows on a made-up tree that a broken file, image or anchor link is caught.
add_test(NAME doc_links
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/check_doc_links.py ${PROJECT_SOURCE_DIR})
add_test(NAME doc_links_self_test
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/check_doc_links.py --self-test)
# The same pages' ```bash commands still work: the repository paths they name exist, and each
# minigpu command's subcommand and options are the CLI's (`run` is dry-run as written); the
# self-test shows a missing script, a renamed option and an unknown subcommand are caught.
add_test(NAME doc_commands
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/check_doc_commands.py
                 $<TARGET_FILE:minigpu> ${PROJECT_SOURCE_DIR})
add_test(NAME doc_commands_self_test
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/check_doc_commands.py
                 $<TARGET_FILE:minigpu> --self-test)
set_tests_properties(doc_commands doc_commands_self_test PROPERTIES TIMEOUT 300)
# ... and every one of those commands runs as written, in page order, from a copy of the
# repository whose results/ holds a day's runs (two quickstarts, one interrupted, one
# matmul_scaling); those that need a GPU, a cluster, the network or /opt are listed with why.
add_test(NAME doc_commands_run
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/run_doc_commands.py
                 ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(doc_commands_run PROPERTIES TIMEOUT 1500 PROCESSORS 2 LABELS script
                     ENVIRONMENT "${MINIGPU_MPI_ENV}")

# docs/architecture.md draws and tables every layer of src/CMakeLists.txt with exactly the layers
# it links; the self-test shows a layer added to CMake alone, a missing dependency and a row for
# no layer are caught. Scripts only: the sanitizer pass leaves them out.
add_test(NAME architecture_doc
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/check_architecture_doc.py ${PROJECT_SOURCE_DIR})
add_test(NAME architecture_doc_self_test
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/check_architecture_doc.py ${PROJECT_SOURCE_DIR}
                 --self-test)
set_property(TEST architecture_doc architecture_doc_self_test APPEND PROPERTY LABELS script)

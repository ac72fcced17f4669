# Tests of the report (included from tests/CMakeLists.txt): the browser test renders the
# report of a short simulated PTS and of every kind of profile in headless Chromium (Debian's
# chromium package, installed by scripts/deps.sh) and saves a screenshot to the build's
# test-output directory.
ssdlab_test(e2e_report_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/e2e_report_test.cc LIBS e2e_util)
target_compile_definitions(e2e_report_test PRIVATE SSDLAB_TEST_OUTPUT="${CMAKE_BINARY_DIR}/test-output"
                                                   SSDLAB_SPECS_DIR="${CMAKE_CURRENT_LIST_DIR}/../specs"
                                                   SSDLAB_PROFILES_DIR="${CMAKE_CURRENT_LIST_DIR}/../profiles")

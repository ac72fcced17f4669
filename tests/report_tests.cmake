# Tests of the report (included from tests/CMakeLists.txt): the browser test renders the
# report of a short simulated PTS and of every kind of profile in headless Chromium (Debian's
# chromium package, installed by scripts/deps.sh) and saves a screenshot to the build's
# test-output directory.
ssdlab_test(e2e_report_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/e2e_report_test.cc LIBS e2e_util ssdlab_results)
target_compile_definitions(e2e_report_test PRIVATE SSDLAB_TEST_OUTPUT="${CMAKE_BINARY_DIR}/test-output"
                                                   SSDLAB_SPECS_DIR="${CMAKE_CURRENT_LIST_DIR}/../specs"
                                                   SSDLAB_PROFILES_DIR="${CMAKE_CURRENT_LIST_DIR}/../profiles")
# How the report reads in a browser: the main job's report and a two-drive comparison at 1,000 and
# 1,400 px (no sideways scroll, no overlapping labels, no console messages, every chart drawn).
ssdlab_test(report_view_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/report_view_test.cc LIBS e2e_util)
target_compile_definitions(report_view_test PRIVATE SSDLAB_TEST_OUTPUT="${CMAKE_BINARY_DIR}/test-output"
                                                    SSDLAB_SPECS_DIR="${CMAKE_CURRENT_LIST_DIR}/../specs"
                                                    SSDLAB_GOLDEN_DIR="${CMAKE_CURRENT_LIST_DIR}/golden")
# What the report gives beyond one drive (tests/report_out_test.cc): the comparison's table of
# differences with the noise and its bars, the replay section's charts, report --pdf.
ssdlab_test(report_out_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/report_out_test.cc LIBS e2e_util)
# Issue 47's terminal and scripting cases (tests/report_cli_test.cc): headline figures in `show`,
# --progress json as JSON lines only.
ssdlab_test(report_cli_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/report_cli_test.cc LIBS e2e_util)

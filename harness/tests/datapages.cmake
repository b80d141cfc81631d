# harness/tests/datapages.cmake - `drabench run --data-pages` (harness/tests/datapages.sh): the
# large anonymous data on 2 MiB pages when the build has it and the host has transparent huge
# pages (skipped with a message when /sys says never), 4K with --data-pages 4k or in a build
# without it, the same decisions either way.
add_test(NAME harness.data_pages COMMAND sh harness/tests/datapages.sh ${DRA_DATA_HUGE}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.data_pages PROPERTIES LABELS "unit;harness" TIMEOUT 120
                     SKIP_RETURN_CODE 77 ENVIRONMENT "${DRA_TEST_ENV}")

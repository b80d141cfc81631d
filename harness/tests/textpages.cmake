# harness/tests/textpages.cmake - `drabench run --text-pages` (harness/tests/textpages.sh): the code
# on 2 MiB pages when the build links for it and the host has transparent huge pages (skipped with
# a message when /sys says never), 4K with --text-pages 4k or in a build without it, the same
# decisions either way.
add_test(NAME harness.text_pages COMMAND sh harness/tests/textpages.sh ${DRA_TEXT_HUGE}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.text_pages PROPERTIES LABELS "unit;harness" TIMEOUT 120
                     SKIP_RETURN_CODE 77 ENVIRONMENT "${DRA_TEST_ENV}")

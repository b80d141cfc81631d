# core/alloc/tests/fast.cmake - the fast allocator against the reference allocator.
# Differential conformance: every case through the reference allocator with all its checks, and
# the fast allocator without pruning (same decisions, same allocateOne count) and with pruning
# (same decisions) on the same inputs, and the placement engine on the case's node.
add_test(NAME alloc.fast.differential
         COMMAND $<TARGET_FILE:drabench> alloc --test --allocator both corpora/conformance
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(alloc.fast.differential PROPERTIES LABELS "conformance" TIMEOUT 900
                     ENVIRONMENT "${DRA_TEST_ENV}")
# The same run also asks the placement engine on every case's node (its direct answers where it
# has them, core/engine/direct.c and direct_multi.c) and compares with the reference: at least
# 135 cases (consumable-capacity cases answered with shares, and direct_multi.c's: allocationMode
# All, several claims, shares over two requests; 32 more than before it) must have been answered
# from the engine's columns, none may fail (the count guards against the direct answers silently
# switching off).
add_test(NAME engine.direct.conformance
         COMMAND $<TARGET_FILE:drabench> alloc --test --allocator both corpora/conformance
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(engine.direct.conformance PROPERTIES LABELS "conformance" TIMEOUT 900
                     PASS_REGULAR_EXPRESSION "(13[5-9]|1[4-9][0-9]|[2-9][0-9][0-9]|[1-9][0-9][0-9][0-9]+) answered from the engine's columns \\(direct answers\\)\n[0-9]+ passed, 0 failed, 0 invalid"
                     ENVIRONMENT "${DRA_TEST_ENV}")
# The conformance expectations hold for the fast allocator alone (allocateOne counts as upper
# bounds because of pruning).
add_test(NAME alloc.fast.conformance
         COMMAND $<TARGET_FILE:drabench> alloc --test --allocator fast corpora/conformance
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(alloc.fast.conformance PROPERTIES LABELS "conformance" TIMEOUT 600
                     ENVIRONMENT "${DRA_TEST_ENV}")
# The fast paths answer the upstream "6 of 5" case in one step where the reference takes 32
# (fewer eligible devices than requested), and "11 of 20 with matchAttribute over alternating
# numa" in one instead of 2,047 (no numa group has 11 eligible devices).
add_test(NAME alloc.fast.prunes_exponential
         COMMAND $<TARGET_FILE:drabench> alloc --test -v --allocator fast corpora/conformance/exponential
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(alloc.fast.prunes_exponential PROPERTIES LABELS "unit" TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "PASS six-of-five-1.36: Unsatisfiable \\(allocateOne 1,.*PASS match-11-of-20-alternating-numa-1.36: Unsatisfiable \\(allocateOne 1,"
                     ENVIRONMENT "${DRA_TEST_ENV}")
add_test(NAME alloc.fast.cli_bad_allocator
         COMMAND ${DRA_EXPECT_EXIT} 2 $<TARGET_FILE:drabench> alloc --allocator quick --test corpora/conformance/alloc-smoke
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(alloc.fast.cli_bad_allocator PROPERTIES LABELS "unit" TIMEOUT 60
                     ENVIRONMENT "${DRA_TEST_ENV}")

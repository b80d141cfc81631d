# Lowering bench-smoke: the target selector over 65,536 generated devices with every kernel the
# CPU has, every row checked against the evaluator (exit 1 on a mismatch). The full measurement
# is the same binary with a larger count: `core_cel_test_lower --bench 1000000 [kernel]`.
add_test(NAME core.cel.test_lower.bench_smoke COMMAND core_cel_test_lower --bench 65536
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(core.cel.test_lower.bench_smoke PROPERTIES LABELS "bench-smoke;core"
                     TIMEOUT 300 RUN_SERIAL TRUE ENVIRONMENT "${DRA_TEST_ENV}")

# harness/tests/alloc_both.cmake - `drabench alloc -f ... --allocator both` (the differential pair
# of harness/bench/conformance.h): the claims printed equal the reference allocator's alone (YAML
# and JSON), stderr carries the count of decisions compared and the speed ratio, exit 0. A forced
# difference (exit 3 naming the decision) is harness.test_both_differ.
set(_alloc_both_script [=[
m=corpora/samples/sample-cluster.yaml
"$0" alloc -f $m > "$1/alloc-ref.yaml" 2>/dev/null
"$0" alloc -f $m --allocator both > "$1/alloc-both.yaml" 2> "$1/alloc-both.err"
cmp "$1/alloc-ref.yaml" "$1/alloc-both.yaml"
grep -E "^both: 1 decisions compared with the fast allocator; allocate calls: reference [0-9.]+ ms, fast [0-9.]+ ms, ratio reference/fast [0-9.]+x$" "$1/alloc-both.err"
"$0" alloc -f $m -o json --allocator both --node node-b > "$1/alloc-both.json" 2> "$1/alloc-both.err"
grep -q "^both: 1 decisions compared" "$1/alloc-both.err"
"$0" alloc -f $m -o json --node node-b > "$1/alloc-ref.json" 2>/dev/null
cmp "$1/alloc-ref.json" "$1/alloc-both.json"
]=])
add_test(NAME harness.cli_alloc_both
         COMMAND sh -ec "${_alloc_both_script}" $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.cli_alloc_both PROPERTIES LABELS "harness;cli" TIMEOUT 300
                     ENVIRONMENT "${DRA_TEST_ENV}")

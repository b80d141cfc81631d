# harness/tests/conf_escape.cmake - `drabench alloc --test`: a case's name comes from the case
# file, so its PASS / FAIL line goes through the terminal layer (harness/io/escape.h): an escape
# sequence and a newline in metadata.name come out as \xNN, one case stays one line.
set(_conf_escape_script [=[
d="$1/conf-escape"
mkdir -p "$d"
sed -e 's/name: alloc-smoke-counters-rollback/name: "evil\\e[31m\\nname"/' \
    -e 's/device: device-b}/device: device-a}/' \
    corpora/conformance/alloc-smoke/counters-rollback.yaml > "$d/case.yaml"
rc=0
"$0" alloc --test "$d/case.yaml" > "$d/out.txt" 2> "$d/err.txt" || rc=$?
test "$rc" = 1
test "$(wc -l < "$d/out.txt")" = 1
grep -q '^FAIL evil\\x1b\[31m\\x0aname (' "$d/out.txt"
if LC_ALL=C grep -q "$(printf '\033')" "$d/out.txt"; then exit 1; fi
]=])
add_test(NAME harness.cli_conf_escape
         COMMAND sh -ec "${_conf_escape_script}" $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.cli_conf_escape PROPERTIES LABELS "harness;cli" TIMEOUT 120
                     ENVIRONMENT "${DRA_TEST_ENV}")

# harness/tests/harden.cmake - command-line tests of issue 13's output-side hardening, included
# by dra_add_unit_tests(harness ...): hostile result files (report, export), device nodes and
# FIFOs as outputs, stdout on /dev/full for every command, long messages, SIGTERM, missing
# inputs, the output pre-check of `run`, errors printed once and at their position.

set(_ht ${PROJECT_BINARY_DIR}/harden-tests)
file(MAKE_DIRECTORY ${_ht})
set(_hfix ${PROJECT_SOURCE_DIR}/corpora/golden/compare)

file(WRITE ${_ht}/small.yaml "apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: harden-small}
spec:
  seed: 7
  release: \"1.36\"
  cluster:
    nodes:
    - {profile: dgx-h100, count: 2, name: dgx}
  workload:
    mode: fill
    count: 20
    mix:
    - {shape: gpu-1, weight: 1}
  placement: first-fit
  run: {warmup: 0, repetitions: 1, invariants: all}
")
file(WRITE ${_ht}/claim.yaml "apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: gpu}
")

set(_h_env "${DRA_TEST_ENV};HT=${_ht};FIX=${_hfix}")

function(dra_harden_test name script)
  add_test(NAME harness.harden.${name} COMMAND sh -ec "${script}"
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.harden.${name} PROPERTIES LABELS "unit;harness" TIMEOUT 300
                       ENVIRONMENT "${_h_env}")
endfunction()

# 1. The issue's exploit: a gnuplot command in .tool.git must not run (rejected on load, exit 2);
#    <script> in a scenario name is escaped in the HTML and Markdown.
dra_harden_test(report_exploit [=[
d="$HT/exploit"; rm -rf "$d"; mkdir -p "$d"
jq '.tool.git = "x\nsystem(\"touch MARKER\")\nprint \"y"' "$FIX/base-default.json" > "$d/evil.json"
rc=0; (cd "$d" && "$DRABENCH" report -o rep evil.json 2> err.txt) || rc=$?
test "$rc" = 2
test ! -e "$d/MARKER" && test ! -e "$d/rep/MARKER"
grep -q 'evil.json:[0-9]*:[0-9]*: tool.git: control character U+000A' "$d/err.txt"
]=])
dra_harden_test(report_script_html [=[
d="$HT/script"; rm -rf "$d"; mkdir -p "$d"
jq '.run.scenario = "<script>alert(1)</script>"' "$FIX/base-default.json" > "$d/s.json"
"$DRABENCH" report --no-plots -o "$d/rep" "$d/s.json" > /dev/null 2>&1
! grep -q '<script>' "$d/rep/index.html"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$d/rep/index.html"
! grep -q '<script>' "$d/rep/report.md"
]=])
# Escape sequences from inputs (a JSON string, a file name) reach the terminal as visible text.
dra_harden_test(terminal_escapes [=[
d="$HT/term"; rm -rf "$d"; mkdir -p "$d"
printf '{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"},\n "spec": {"\\u001b]0;owned\\u0007\\u001b[2J": 1}}\n' > "$d/esc.json"
rc=0; "$DRABENCH" validate "$d/esc.json" 2> "$d/err.txt" || rc=$?
test "$rc" = 2
grep -q 'x1b\]0;owned\\x07\\x1b\[2J' "$d/err.txt"
! grep -q "$(printf '\033')" "$d/err.txt"
! grep -q "$(printf '\007')" "$d/err.txt"
printf 'kind: [\n' > "$d/$(printf 'bad\033[31m').yaml"
rc=0; "$DRABENCH" validate "$d" 2> "$d/err2.txt" || rc=$?
test "$rc" = 2
grep -q 'bad\\x1b\[31m.yaml' "$d/err2.txt"
! grep -q "$(printf '\033')" "$d/err2.txt"
printf '{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},\n "spec": {"driver": "d.example.com", "pool": {"name": "p\\u001b[2J", "generation": 1, "resourceSliceCount": 1},\n "nodeName": "n1", "devices": [{"name": "d0", "attributes": {"m": {"string": "A\\u001b[31m"}}}]}}\n' > "$d/slice.json"
"$DRABENCH" inspect "$d/slice.json" > "$d/inspect.txt" 2>&1 || true
grep -q 'A\\x1b\[31m' "$d/inspect.txt"
! grep -q "$(printf '\033')" "$d/inspect.txt"
"$DRABENCH" cel -f "$d/slice.json" true > "$d/cel.txt" 2>&1 || true
grep -q 'p\\x1b\[2J/d0: true' "$d/cel.txt"
! grep -q "$(printf '\033')" "$d/cel.txt"
printf '{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c\\u001b[2J"},\n "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "g"}}]}}}\n' > "$d/claim.json"
"$DRABENCH" alloc -f "$d/claim.json" > "$d/alloc.txt" 2>&1 || true
grep -q 'claim c\\x1b\[2J: not placed: no node to try' "$d/alloc.txt"
! grep -q "$(printf '\033')" "$d/alloc.txt"
]=])
# A YAML escape (\e) in a scenario name is refused at load: it would reach the terminal (run, gen)
# and make the run's own result file unreadable.
dra_harden_test(scenario_control_chars [=[
d="$HT/scn"; mkdir -p "$d"
sed 's/metadata: {name: harden-small}/metadata: {name: "s\\e[31mRED"}/' "$HT/small.yaml" > "$d/esc.yaml"
grep -q 'e\[31mRED' "$d/esc.yaml"
for cmd in "run $d/esc.yaml -q -o $d/out.json" "gen $d/esc.yaml --json"; do
  rc=0; "$DRABENCH" $cmd > "$d/out.txt" 2> "$d/err.txt" || rc=$?
  test "$rc" = 2 || { echo "$cmd: exit $rc"; exit 1; }
  grep -q 'metadata.name: control character U+001B' "$d/err.txt"
  ! grep -q "$(printf '\033')" "$d/out.txt" "$d/err.txt"
done
test ! -e "$d/out.json"
]=])
# A newline in a benchfmt metric name is rejected with the field path (it would split the line).
dra_harden_test(benchfmt_newline [=[
d="$HT/bench"; mkdir -p "$d"
jq '.repetitions[0].values["a\nBenchmarkFake 1 1 ns/op"] = 1' "$FIX/base-default.json" > "$d/nl.json"
rc=0; "$DRABENCH" export --format benchfmt "$d/nl.json" > "$d/out.txt" 2> "$d/err.txt" || rc=$?
test "$rc" = 2
grep -q 'nl.json:[0-9]*:[0-9]*: repetitions\[0\].values: control character U+000A' "$d/err.txt"
! grep -q '^BenchmarkFake' "$d/out.txt"
]=])

# 2. Device nodes and FIFOs are written in place; /dev/full gives exit 4 with the reason.
dra_harden_test(devnull_fifo [=[
d="$HT/dev"; rm -rf "$d"; mkdir -p "$d"
"$DRABENCH" export --format benchfmt -o /dev/null "$FIX/base-default.json"
"$DRABENCH" compare --format md -o /dev/null "$FIX/base-default.json" "$FIX/noise-default.json"
"$DRABENCH" run "$HT/small.yaml" -q -o /dev/null
test -c /dev/null
mkfifo "$d/fifo"
cat "$d/fifo" > "$d/from-fifo.txt" & reader=$!
"$DRABENCH" export --format benchfmt -o "$d/fifo" "$FIX/base-default.json"
wait $reader
test -p "$d/fifo"
grep -q '^BenchmarkDRAAlloc/' "$d/from-fifo.txt"
]=])
dra_harden_test(devfull_output [=[
d="$HT/full"; mkdir -p "$d"
for cmd in "export --format benchfmt -o /dev/full $FIX/base-default.json" \
           "compare -o /dev/full $FIX/base-default.json $FIX/noise-default.json" \
           "run $HT/small.yaml -q -o /dev/full"; do
  rc=0; "$DRABENCH" $cmd 2> "$d/err.txt" || rc=$?
  test "$rc" = 4 || { echo "$cmd: exit $rc"; exit 1; }
  grep -q 'No space left on device' "$d/err.txt" || { echo "$cmd:"; cat "$d/err.txt"; exit 1; }
  test -c /dev/full
done
]=])

# 4. Every command checks its writes to stdout (and the final flush): exit 4 with the reason.
set(_h_stdout_cmds
  "version::version"
  "version_json::version --json"
  "help::--help"
  "validate_json::validate -o json corpora/conformance/alloc-smoke/counters-rollback.yaml"
  "inspect::inspect corpora/conformance/alloc-smoke"
  "gen_json::gen default --json"
  "gen_list::gen --list"
  "cel::cel -f corpora/conformance/alloc-smoke true"
  "alloc::alloc -f ${_ht}/claim.yaml"
  "alloc_test::alloc --test corpora/conformance/alloc-smoke"
  "compare::compare ${_hfix}/base-default.json ${_hfix}/noise-default.json"
  "compare_regression::compare ${_hfix}/base-default.json ${_hfix}/regress-default.json"
  "export::export --format benchfmt ${_hfix}/base-default.json"
  "report::report --no-plots -o ${_ht}/rep-stdout ${_hfix}/base-default.json"
  "run::run ${_ht}/small.yaml -q -o -"
  "probe::probe --quick"
  "probe_json::probe --quick -o -"
  "baseline::baseline bless --dir ${_ht}/bl-stdout ${_hfix}/base-default.json")
foreach(entry IN LISTS _h_stdout_cmds)
  string(REPLACE "::" ";" parts "${entry}")
  list(GET parts 0 tname)
  list(GET parts 1 targs)
  dra_harden_test(stdout_full_${tname} "rc=0; \"$DRABENCH\" ${targs} > /dev/full 2> \"$HT/full-${tname}.txt\" || rc=$?
test \"$rc\" = 4 || { echo \"exit $rc\"; cat \"$HT/full-${tname}.txt\"; exit 1; }
grep -q 'No space left on device' \"$HT/full-${tname}.txt\"")
endforeach()

# 8. A long message keeps its reason and stays valid UTF-8; -o json lists what it counts.
dra_harden_test(long_message [=[
d="$HT/long"; mkdir -p "$d"
key=$(printf 'é%.0s' $(seq 1 500))
printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\nspec:\n  "%s": 1\n  devices: {requests: [{name: "%s", exactly: {deviceClassName: g}}]}\n' "$key" "$key" > "$d/long.yaml"
rc=0; "$DRABENCH" validate "$d/long.yaml" 2> "$d/err.txt" || rc=$?
test "$rc" = 2
grep -q 'unknown field' "$d/err.txt"
grep -q '" is not a DNS label' "$d/err.txt"
iconv -f UTF-8 -t UTF-8 "$d/err.txt" > /dev/null
rc=0; "$DRABENCH" validate -o json "$d/long.yaml" > "$d/out.json" 2>/dev/null || rc=$?
test "$rc" = 2
jq -e '.summary.errors > 0 and ([.files[].errors | length] | add) == .summary.errors' "$d/out.json" > /dev/null
jq -e '[.files[].errors[].message | select(test("unknown field"))] | length == 1' "$d/out.json" > /dev/null
]=])

# 10. SIGTERM stops the run like SIGINT: the result file is written, marked interrupted.
dra_harden_test(sigterm [=[
out="$HT/term.json"; rm -f "$out" "$HT/term.txt"
"$DRABENCH" run "$HT/small.yaml" --repeat 100000 --invariants off --progress always -o "$out" > "$HT/term.txt" 2>&1 &
pid=$!
i=0; while [ $i -lt 600 ] && ! grep -q 'rep 2/100000' "$HT/term.txt"; do sleep 0.1; i=$((i+1)); done
kill -TERM $pid
rc=0; wait $pid || rc=$?
test "$rc" = 143
jq -e '.status == "interrupted" and (.repetitions | length >= 1)' "$out" > /dev/null
]=])

# 11. A missing input file is exit 2 in every command.
dra_harden_test(missing_input [=[
m="$HT/no-such-file"
for cmd in "validate $m.yaml" "inspect $m.yaml" "alloc -f $m.yaml" "alloc --test $m.yaml" \
           "cel -f $m.yaml true" "gen $m.yaml --json" "run $m.yaml -q -o $HT/none.json" \
           "compare $m.json $m.json" "report -o $HT/none $m.json" \
           "export --format benchfmt $m.json" "baseline bless --dir $HT/none $m.json"; do
  rc=0; "$DRABENCH" $cmd > "$HT/missing.txt" 2>&1 || rc=$?
  test "$rc" = 2 || { echo "$cmd: exit $rc, want 2"; exit 1; }
  grep -q -e 'No such file or directory' -e 'cannot read' "$HT/missing.txt" || { echo "$cmd:"; cat "$HT/missing.txt"; exit 1; }
done
test ! -e "$HT/none.json"
]=])
# `run -o` into a missing directory fails before the run (100000 repetitions would time out).
dra_harden_test(run_output_precheck [=[
rc=0; timeout 120 "$DRABENCH" run "$HT/small.yaml" --repeat 100000 -q -o "$HT/missing-dir/x.json" 2> "$HT/pre.txt" || rc=$?
test "$rc" = 4
grep -q 'missing-dir' "$HT/pre.txt"
]=])
# alloc prints a YAML error once (two readers parse the same bytes), cel -f exits 2 on it, and
# errors in JSON manifests point at the field.
dra_harden_test(errors_once_and_positioned [=[
d="$HT/pos"; mkdir -p "$d"
printf 'apiVersion: v1\nkind: [\n' > "$d/syn.yaml"
rc=0; "$DRABENCH" alloc -f "$d/syn.yaml" 2> "$d/err.txt" || rc=$?
test "$rc" = 2
test "$(grep -c 'YAML syntax error' "$d/err.txt")" = 1
rc=0; "$DRABENCH" cel -f "$d/syn.yaml" true > /dev/null 2>&1 || rc=$?
test "$rc" = 2
printf '{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",\n "metadata": {"name": "c"},\n "spec": {"devices": {"requests": [\n   {"name": "r", "exactly": {"count": 2}}]}}}\n' > "$d/c.json"
rc=0; "$DRABENCH" validate "$d/c.json" 2> "$d/err.txt" || rc=$?
test "$rc" = 2
grep -q 'c.json:4:29: error: .*deviceClassName: required field missing' "$d/err.txt"
printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s1}\nspec:\n  driver: gpu.example.com\n  pool: {name: "p_x", generation: 1, resourceSliceCount: 1}\n  nodeName: n1\n' > "$d/pool.yaml"
rc=0; "$DRABENCH" validate "$d/pool.yaml" 2> "$d/err.txt" || rc=$?
test "$rc" = 2
grep -q 'pool.yaml:6:16: error: ResourceSlice/s1: spec.pool.name: "p_x"' "$d/err.txt"
]=])

# harness/tests/health.cmake - device health events (spec.workload.deviceTaints): a slice
# republished with a NoSchedule taint and again without, through the model, the device table and
# the placement engine incrementally (core/engine/update.c). Included by dra_add_unit_tests.
set(_ht ${PROJECT_BINARY_DIR}/health-tests)
file(MAKE_DIRECTORY ${_ht})
set(_hsc ${PROJECT_SOURCE_DIR}/harness/tests/data/health-small.yaml)
set(_henv "${DRA_TEST_ENV};HT=${_ht};HSC=${_hsc};RESULT_CHECK=$<TARGET_FILE:result_check>")

function(dra_health_test name script)
  add_test(NAME harness.health.${name} COMMAND sh -ec "${script}" WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.health.${name} PROPERTIES LABELS "unit;harness;bench-smoke" TIMEOUT 900
                       ENVIRONMENT "${_henv}")
endfunction()

# Same seed, same digest (two processes, two repetitions each); the update phase is recorded as
# slice-update/update/any and shown in the summary; the events change decisions (the same
# scenario without them has another digest); the file passes the strict schema check.
dra_health_test(determinism [=[
"$DRABENCH" run "$HSC" -o "$HT/a.json" > "$HT/a.txt"
"$DRABENCH" run "$HSC" -q -o "$HT/b.json"
da=$(jq -r .digest "$HT/a.json"); db=$(jq -r .digest "$HT/b.json")
test -n "$da" && test "$da" = "$db"
jq -e '.digests_equal and .invariants.violations == 0' "$HT/a.json" > /dev/null
jq -e '[.repetitions[] | .histograms[] | select(.name == "slice-update/update/any" and .phase == "update" and .count > 10)] | length == 2' "$HT/a.json" > /dev/null
jq -e '.cluster.engine_build_ns > 0' "$HT/a.json" > /dev/null
grep -q '^updates     [0-9][0-9]* slice republications (device health events): p50 ' "$HT/a.txt"
"$RESULT_CHECK" "$HT/a.json"
sed -e '/deviceTaints/d' "$HSC" > "$HT/none.yaml"
"$DRABENCH" run "$HT/none.yaml" -q -o "$HT/none.json"
dn=$(jq -r .digest "$HT/none.json")
test "$dn" != "$da"
! grep -q 'slice-update' "$HT/none.json"
]=])

# The engine path, the reference path and --allocator both (every decision compared with the
# brute-force reference placement; a difference is a violation, exit 3) agree on every decision.
dra_health_test(allocators_agree [=[
"$DRABENCH" run "$HSC" -q -o "$HT/fast.json"
"$DRABENCH" run "$HSC" -q --allocator reference -o "$HT/ref.json"
"$DRABENCH" run "$HSC" -q --allocator both -o "$HT/both.json"
df=$(jq -r .digest "$HT/fast.json"); dr=$(jq -r .digest "$HT/ref.json"); db=$(jq -r .digest "$HT/both.json")
test -n "$df" && test "$df" = "$dr" && test "$df" = "$db"
jq -e '.invariants.violations == 0' "$HT/both.json" > /dev/null
for p in best-fit spread random; do
  "$DRABENCH" run "$HSC" -q --policy $p --repeat 1 -o "$HT/f-$p.json"
  "$DRABENCH" run "$HSC" -q --policy $p --repeat 1 --allocator both -o "$HT/b-$p.json"
  test "$(jq -r .digest "$HT/f-$p.json")" = "$(jq -r .digest "$HT/b-$p.json")"
  jq -e '.invariants.violations == 0' "$HT/b-$p.json" > /dev/null
done
]=])

# Bad deviceTaints: exit 2 with file:line:col, the field and the reason.
dra_health_test(parse_errors [=[
bad() {
  sed -e "s|deviceTaints: .*|deviceTaints: $1|" "$HSC" > "$HT/bad.yaml"
  rc=0; "$DRABENCH" run "$HT/bad.yaml" -q -o "$HT/bad.json" 2> "$HT/bad.txt" || rc=$?
  test "$rc" = 2 || { echo "rc $rc for $1"; cat "$HT/bad.txt"; exit 1; }
  grep -q "$2" "$HT/bad.txt" || { echo "expected: $2"; cat "$HT/bad.txt"; exit 1; }
}
bad '{every: 0, hold: 5, key: k}' 'bad.yaml:25:[0-9]*: spec.workload.deviceTaints.every: must be at least 1'
bad '{every: 3, key: k}' 'bad.yaml:25:[0-9]*: spec.workload.deviceTaints: missing field "hold"'
bad '{every: 3, hold: 0, key: k}' 'spec.workload.deviceTaints.hold: must be at least 1'
bad '{every: 3, hold: 2}' 'spec.workload.deviceTaints: missing field "key"'
bad '{every: 3, hold: 2, key: ""}' 'spec.workload.deviceTaints.key: "" is not a label key'
bad '{every: 3, hold: 2, key: k, effect: Evict}' 'spec.workload.deviceTaints.effect: unknown value "Evict" (expected one of: NoSchedule, NoExecute, None)'
bad '{every: 3, hold: 2, key: k, often: 1}' 'spec.workload.deviceTaints: unknown field "often"'
bad '{every: x, hold: 2, key: k}' 'spec.workload.deviceTaints.every'
]=])

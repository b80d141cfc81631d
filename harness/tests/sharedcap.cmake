# sharedcap.cmake - DRASharedConsumableCapacity (KEP-5941) from the command line: its fields in
# JSON (harness/tests/data/releases/fields-1.38-pre.json: a counter's requestPolicy, valueFrom on
# two devices, consumedCounters on an allocated result) valid under 1.38-pre and an error at
# their line and column under 1.37; inspect shows them (table and JSON); the gate is accepted by
# `alloc --feature` under 1.38-pre and refused under 1.37; with it off the VFs are allocated
# (nothing charged), with it on each is charged the counter's requestPolicy default, so three do
# not fit and two do, their results writing consumedCounters.perAllocation; `explain` with the
# gate on (harness/tests/data/explain/sharedcap-1.38-pre.yaml) names a counter the live
# snapshots left too little of, with the amount asked, and an amount the counter's requestPolicy
# refuses; with the gate off the same claim lacks the capacity.
set(_scc_script [=[
set -e
B="$1"; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT; F=harness/tests/data/releases/fields-1.38-pre.json
"$B" validate --release 1.38-pre $F > "$d/v.txt" 2>&1
set +e; "$B" validate --release 1.37 $F > "$d/v.txt" 2>&1; rc=$?; set -e; test $rc = 2
grep -qF "fields-1.38-pre.json:9:4: error: ResourceSlice/vfs: spec.devices[0].consumesCounters[0].counters.bandwidth: valueFrom: not a field in Kubernetes 1.37 (new in 1.38-pre, feature gate DRASharedConsumableCapacity)" "$d/v.txt"
grep -qF "fields-1.38-pre.json:14:24: error: ResourceClaim/held: status.allocation.devices.results[0]: consumedCounters: not a field in Kubernetes 1.37" "$d/v.txt"
grep -qF "spec.sharedCounters[0].counters.bandwidth: requestPolicy: not a field in Kubernetes 1.37" "$d/v.txt"
"$B" inspect $F > "$d/i.txt"
grep -qE "^pf +pf-0 +bandwidth=100G\(requestPolicy\)$" "$d/i.txt"
grep -qE "pf-0 +consumes bandwidth<-net.example.com/bandwidth$" "$d/i.txt"
"$B" inspect -o json --devices $F > "$d/i.json"
jq -e '[.slices[] | select(.name == "vfs") | .device_list[].consumes_counters[0].value_from.bandwidth] == ["net.example.com/bandwidth", "bandwidth"]' "$d/i.json" > /dev/null
jq -e '[.slices[] | select(.name == "pf") | .counter_sets[0].request_policy_counters] == [["bandwidth"]]' "$d/i.json" > /dev/null
P=corpora/conformance/profiles/shared-consumable-capacity-value-from-1.38-pre.yaml
"$B" alloc -f $P --release 1.38-pre > "$d/a.txt" 2>&1
grep -qF "1 allocated, 0 unsatisfiable, 0 failed" "$d/a.txt"
"$B" alloc -f $P --release 1.38-pre --feature DRASharedConsumableCapacity=true > "$d/a.txt" 2>&1
grep -qF "0 allocated, 1 unsatisfiable, 0 failed" "$d/a.txt"
"$B" alloc -f corpora/conformance/profiles/shared-consumable-capacity-value-from-1.38-pre-gate-on-two.yaml --release 1.38-pre --feature DRASharedConsumableCapacity=true -o json > "$d/a.json"
jq -e '[.items[0].status.allocation.devices.results[].consumedCounters.perAllocation[0].counters.bandwidth] == ["4", "4"]' "$d/a.json" > /dev/null
set +e; "$B" alloc -f $P --release 1.37 --feature DRASharedConsumableCapacity=true > "$d/a.txt" 2>&1; rc=$?; set -e; test $rc = 2
grep -qF "feature gate DRASharedConsumableCapacity does not exist in release 1.37" "$d/a.txt"
E=harness/tests/data/explain/sharedcap-1.38-pre.yaml; ON="--release 1.38-pre --feature DRASharedConsumableCapacity=true"
set +e; "$B" explain -f $E $ON --claim bw-4 -o json > "$d/e.json"; rc=$?; set -e; test $rc = 1
jq -e '.groups[0].kind == "counters" and .groups[0].reason == "request r: 2 free matching devices, none fits the counters left (counter bandwidth of counter set pf-0, drawn per allocation from the request: 4 asked, 2 of 10 left after the live allocations), 1 needed"' "$d/e.json" > /dev/null
set +e; "$B" explain -f $E $ON --claim bw-12 > "$d/e.txt"; rc=$?; set -e; test $rc = 1
grep -qF "request r: 2 free matching devices, none can draw what the request asks of counter bandwidth of counter set pf-0 (valueFrom capacity bandwidth): its requestPolicy does not allow 12, 1 needed" "$d/e.txt"
"$B" explain -f $E $ON --claim bw-2 > "$d/e.txt"
grep -qF "fits on 1 node: node-1" "$d/e.txt"
set +e; "$B" explain -f $E --release 1.38-pre --claim bw-12 > "$d/e.txt"; rc=$?; set -e; test $rc = 1
grep -qF "none has the capacity asked for (net.example.com/bandwidth: 12)" "$d/e.txt"
]=])
add_test(NAME harness.fields_1_38_pre_sharedcap
         COMMAND sh -c "${_scc_script}" sh $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.fields_1_38_pre_sharedcap PROPERTIES LABELS "unit;harness;cli"
                     TIMEOUT 120 ENVIRONMENT "${DRA_TEST_ENV}")

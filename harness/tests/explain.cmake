# harness/tests/explain.cmake - `drabench explain` (core/alloc/explain.h): the reasons the issue's
# examples name, on harness/tests/data/explain/cluster.yaml (node-a: 8 GPUs, 5 in use; node-b:
# two cliques of 4 GPUs, one in use in each; node-c: MIG partitions whose counters are used up;
# node-d: 8 free GPUs) and on built-in scenarios: too few free devices, the largest matchAttribute
# group, a selector no device passes, exhausted counters, a constraint attribute no device has, a
# gate that is off in a release (DRAPartitionableDevices in 1.35, default scenario's MIG shape),
# a count larger than any node holds; grouping, --node, JSON, exit statuses, usage errors.
add_test(NAME harness.cli_explain.help COMMAND $<TARGET_FILE:drabench> explain --help)
set_tests_properties(harness.cli_explain.help PROPERTIES LABELS "unit;harness;cli" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "drabench explain - why a claim does not fit"
                     ENVIRONMENT "${DRA_TEST_ENV}")
set(_ex ${PROJECT_BINARY_DIR}/explain-tests)
file(MAKE_DIRECTORY ${_ex})
file(WRITE ${_ex}/gpu16.yaml [=[
apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: gpu16}
spec:
  cluster:
    nodes: [{profile: dgx-h100, count: 3, name: dgx}, {profile: cpu-only, count: 2, name: cpu}]
  workload:
    count: 10
    mix: [{shape: gpu-n, count: 16}]
]=])
set(_ex_script [=[
set -e
B="$1"; d="$2"; C=harness/tests/data/explain/cluster.yaml
ex() { set +e; "$B" explain "$@" > "$d/out.txt" 2> "$d/err.txt"; rc=$?; set -e; }
has() { grep -qF -- "$1" "$d/out.txt" || { echo "missing: $1"; cat "$d/out.txt" "$d/err.txt"; exit 1; }; }
ex -f $C --claim four-gpus; test $rc = 0
has "fits on 2 nodes: node-b, node-d"
has "does not fit on 2 nodes:"
has "1 node   request gpu: 8 devices of class gpu.nvidia.com match, 3 free, 4 needed"
ex -f $C --claim four-gpus-one-clique; test $rc = 0
has "request gpu: matchAttribute gpu.nvidia.com/cliqueID: the largest group of free matching devices with one value has 3 of 4"
ex -f $C --claim one-h200; test $rc = 1
has "fits on 0 nodes"
has "3 nodes  request gpu: no device of class gpu.nvidia.com matches selector #0 \`device.attributes['gpu.nvidia.com'].productName == 'H200'\` (8 devices of the class)"
has "node-a, node-b, node-d"
ex -f $C --claim one-mig; test $rc = 1
has "request mig: 1 free matching device, none fits the counters left (counter memory-slices of counter set gpu-0-counter-set exhausted), 1 needed"
ex -f $C --claim two-gpus-bad-constraint; test $rc = 1
has "3 nodes  request gpu: matchAttribute nvidia.com/cliqueID: no free matching device has the attribute"
ex -f $C --claim four-gpus --node node-a --node node-c; test $rc = 1
has "claim default/four-gpus on 2 nodes"
ex -f $C --claim one-h200 -l 1; test $rc = 1
has "node-a, ... (2 more)"
# JSON: every node, the groups, the numbers
ex -f $C --claim four-gpus -o json; test $rc = 0
jq -e '.fits == 2 and .nodes == 4 and .fit_nodes == ["node-b", "node-d"] and (.per_node | length) == 4' "$d/out.txt" > /dev/null
jq -e '[.per_node[] | select(.node == "node-a") | .kind, .need, .left, .outcome] == ["allocated", 4, 3, "Unsatisfiable"]' "$d/out.txt" > /dev/null
jq -e '[.groups[] | select(.kind == "class-selector") | .count, .nodes[0]] == [1, "node-c"]' "$d/out.txt" > /dev/null
# the release 1.35 profile turns DRAPartitionableDevices off: the MIG devices are not offered
ex --scenario default --shape mig-1g.5gb --release 1.35; test $rc = 1
has "8 nodes  request mig: feature gate DRAPartitionableDevices is off in release 1.35, so the 56 matching devices consuming shared counters (partitions such as MIG devices) are not offered, 1 needed"
has "16 nodes  request mig: no ResourceSlice offers devices on this node, 1 needed"
ex --scenario default --shape mig-1g.5gb --feature DRAPartitionableDevices=false; test $rc = 1
has "feature gate DRAPartitionableDevices is turned off, so the 56 matching devices"
ex --scenario default --shape mig-1g.5gb; test $rc = 0
has "fits on 8 nodes: mig-0, mig-1, mig-2, mig-3, mig-4, ... (3 more)"
# 16 GPUs on 8-GPU nodes
ex --scenario "$d/gpu16.yaml"; test $rc = 1
has "3 nodes  request gpu: 8 devices of class gpu.nvidia.com on the node, 16 needed"
# usage errors: no cluster, an unknown claim, several candidates (listed), bad options
ex --claim x; test $rc = 2
grep -q "no cluster" "$d/err.txt"
ex -f $C --claim nope; test $rc = 2
grep -q "no ResourceClaim default/nope" "$d/err.txt"
ex -f $C; test $rc = 2
grep -q "several unallocated claims" "$d/err.txt"
grep -q -- "--claim default/one-h200" "$d/err.txt"
ex -f $C --claim a --pod b; test $rc = 2
ex -f $C --claim four-gpus -o yaml; test $rc = 2
ex -f $C --claim four-gpus --node nowhere; test $rc = 2
ex --scenario default; test $rc = 2
grep -q -- "--shape gpu-n-8" "$d/err.txt"
]=])
add_test(NAME harness.cli_explain.examples
         COMMAND sh -c "${_ex_script}" sh $<TARGET_FILE:drabench> ${_ex}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.cli_explain.examples PROPERTIES LABELS "unit;harness;cli"
                     TIMEOUT 300 ENVIRONMENT "${DRA_TEST_ENV}")

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
# an allocated claim is explained as if its devices were free: held-a holds 5 of node-a's GPUs
ex -f $C --claim held-a; test $rc = 0
has "claim default/held-a (allocated: explained as if its devices were free) on 4 nodes"
has "fits on 3 nodes: node-a, node-b, node-d"
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

# Reasons in runs and in `alloc`: the dominant per-node reasons of an unsatisfiable shape
# (harness/bench/reasons.h) in the summary, the result file's outcome_reasons[].node_reasons and,
# for a shape whose every pod is unsatisfiable, a warning; `expect: unsatisfiable` (unsat-storm)
# silences the warning. `alloc` names the reasons of a pod that fits no node (a real quickstart).
set(_exr_script [=[
set -e
B="$1"; d="$2"; N=../shared/real-manifests/nvidia-k8s-dra-driver-gpu
"$B" run default --release 1.35 -r 1 -w 0 -n 800 -o "$d/r135.json" > "$d/r135.txt"
jq -e '[.repetitions[0].outcome_reasons[] | select(.shape == "mig-1g.5gb") | .node_reasons[0] | .kind, .nodes] == ["gate", 8]' "$d/r135.json" > /dev/null
jq -e '[.repetitions[0].outcome_reasons[] | select(.shape == "mig-1g.5gb") | .reason | startswith("no node can allocate the claim (40 node(s) searched, policy first-fit): 8 nodes: request mig: feature gate DRAPartitionableDevices is off in release 1.35")] == [true]' "$d/r135.json" > /dev/null
jq -e '[.warnings[] | select(startswith("shape mig-1g.5gb: all "))] | length == 1' "$d/r135.json" > /dev/null
grep -Eq "^warning     shape mig-3g.20gb: all [0-9]+ pods unsatisfiable: request mig: feature gate DRAPartitionableDevices is off in release 1.35, so the 16 matching devices" "$d/r135.txt"
"$B" run default -r 1 -w 0 -n 800 -o "$d/r136.json" > "$d/r136.txt"
jq -e 'has("warnings") | not' "$d/r136.json" > /dev/null
"$B" run unsat-storm -r 1 -n 200 -o "$d/us.json" > "$d/us.txt"
jq -e 'has("warnings") | not' "$d/us.json" > /dev/null
jq -e '[.repetitions[0].outcome_reasons[] | select(.shape == "gpu-n-9") | .node_reasons[0] | .reason, .nodes] == ["request gpu: 8 devices of class gpu.nvidia.com on the node, 9 needed", 70]' "$d/us.json" > /dev/null
jq -e '[.repetitions[0].outcome_reasons[] | select(.shape == "all-gpus-plus-one") | .node_reasons[0] | .kind, .reason] == ["together", "requests all, more need 9 devices together, 8 free matching devices can serve them"]' "$d/us.json" > /dev/null
"$B" alloc -f $N/quickstart/v1/gpu-test4.yaml -f $N/resourceslices/kubectl-get-resourceslice-static-mig.derived.yaml -f $N/helm/deviceclass-mig.rendered.yaml -f $N/helm/deviceclass-gpu.rendered.yaml > /dev/null 2> "$d/alloc.err"
grep -qF "pod-1: unsatisfiable on every node tried: 1 node: request mig-2g-10gb: 1 device of class mig.nvidia.com matches, allocated already, 1 needed" "$d/alloc.err"
]=])
add_test(NAME harness.cli_explain.run_reasons
         COMMAND sh -c "${_exr_script}" sh $<TARGET_FILE:drabench> ${_ex}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.cli_explain.run_reasons PROPERTIES LABELS "unit;harness;cli"
                     TIMEOUT 300 ENVIRONMENT "${DRA_TEST_ENV}")

# 1.37's compatibility groups (harness/tests/data/explain/compat.yaml): with
# DRADeviceCompatibilityGroups off (1.37's default) the allocator skips a device declaring groups
# and a device drawing from a counter set an allocated device with groups draws from - the gate
# table's two rows; with it on, a device with no group in common with the devices allocated from
# its counter set is refused - kind compatibility-groups; 1.38-pre (master) leaves the slices with
# a grouped device out of their pools instead - the gate table's third row. The built-in mig-vgpu
# with the gate turned off: explain and validate of the scenario name the gate.
set(_excg_script [=[
set -e
B="$1"; d="$2"; C=harness/tests/data/explain/compat.yaml; G=DRADeviceCompatibilityGroups
ex() { set +e; "$B" explain "$@" > "$d/cg.txt" 2> "$d/cg.err"; rc=$?; set -e; }
has() { grep -qF -- "$1" "$d/cg.txt" || { echo "missing: $1"; cat "$d/cg.txt" "$d/cg.err"; exit 1; }; }
ex -f $C --claim one-vgpu; test $rc = 1
has "2 nodes  request vgpu: feature gate $G is off in release 1.37, so the 2 matching devices declaring compatibilityGroups are not offered, 1 needed"
ex -f $C --claim one-part; test $rc = 1
has "request part: feature gate $G is off in release 1.37, so the 1 matching device drawing from a counter set an allocated device with compatibilityGroups draws from is not offered, 1 needed"
ex -f $C --claim one-part -o json; test $rc = 1
jq -e '[.per_node[] | select(.node == "node-3") | .kind, .gate] == ["gate", "DRADeviceCompatibilityGroups"]' "$d/cg.txt" > /dev/null
ex -f $C --claim one-vgpu --feature $G=true; test $rc = 0
has "fits on 1 node: node-2"
has "request vgpu: 2 free matching devices, none with a compatibility group in common with the devices allocated from their counter set (counter set gpu-0), 1 needed"
ex -f $C --claim one-part --feature $G=true -o json; test $rc = 1
jq -e '[.per_node[] | select(.node == "node-3") | .kind, .left, .reason] == ["compatibility-groups", 0, "request part: 1 free matching device, without a compatibility group in common with the devices allocated from its counter set (counter set gpu-0), 1 needed"]' "$d/cg.txt" > /dev/null
ex -f $C --claim one-vgpu --release 1.38-pre --feature $G=true; test $rc = 0
has "fits on 1 node: node-2"
has "claim default/one-vgpu on 3 nodes (release 1.38-pre, master at 0c8a1b073dc3 + #141118, experimental allocator)"
# 1.38-pre with the gate off: pool gathering leaves out the slices with a grouped device (their
# pools are incomplete), so on node-3 the ungrouped part-0 goes with them
ex -f $C --claim one-vgpu --release 1.38-pre; test $rc = 1
has "2 nodes  request vgpu: feature gate $G is off in release 1.38-pre, so the 2 matching devices of ResourceSlices with a device declaring compatibilityGroups (left out of their pools, which are incomplete) are not offered, 1 needed"
ex -f $C --claim one-part --release 1.38-pre -o json; test $rc = 1
jq -e '[.per_node[] | select(.node == "node-3") | .kind, .gate] == ["gate", "DRADeviceCompatibilityGroups"]' "$d/cg.txt" > /dev/null
# 1.36 does not know the field: every vGPU is offered and fits
ex -f $C --claim one-vgpu --release 1.36; test $rc = 0
has "fits on 2 nodes: node-1, node-2"
ex --scenario mig-vgpu --shape vgpu-20c --feature $G=false; test $rc = 1
has "200 nodes  request gpu: feature gate $G is off in release 1.37, so the 32 matching devices declaring compatibilityGroups are not offered, 1 needed"
grep -v "features:" corpora/scenarios/mig-vgpu.yaml > "$d/mig-vgpu-nogate.yaml"
set +e; "$B" validate "$d/mig-vgpu-nogate.yaml" > "$d/cg.txt" 2>&1; rc=$?; set -e; test $rc = 2
has "spec.release: feature gate $G is off in release 1.37, so mix[3] (vgpu-20c) gets no device on any node"
]=])
add_test(NAME harness.cli_explain.compat_groups
         COMMAND sh -c "${_excg_script}" sh $<TARGET_FILE:drabench> ${_ex}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.cli_explain.compat_groups PROPERTIES LABELS "unit;harness;cli"
                     TIMEOUT 300 ENVIRONMENT "${DRA_TEST_ENV}")

# harness/tests/noderes.cmake - node resources at scenario level: a mix entry's
# `requests: {cpu, memory}` reach the placement engine, which checks them against the nodes'
# status.allocatable before devices (core/engine/engine.h). Two nodes of two GPUs, n1 with 4 cpu,
# n2 with 2 cpu (16Gi each); one-GPU pods of 1500m fill n1 twice and n2 once, although n2 keeps
# a free GPU: 3 of 6 allocated, the rest Unsatisfiable with a reason naming cpu. Without requests
# 4 are allocated; memory 10Gi: one per node. --allocator both agrees with the reference under
# every policy. In steady state a departure frees its cpu (all 40 placed).
# Bad quantities and requests on shared pods are errors (exit 2, file:line).
set(_nr ${PROJECT_BINARY_DIR}/noderes-tests)
file(MAKE_DIRECTORY ${_nr})
file(WRITE ${_nr}/nodes.yaml [=[
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 16Gi}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {allocatable: {cpu: "2", memory: 16Gi}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  nodeName: n1
  devices: [{name: g0}, {name: g1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n2-gpus}
spec:
  driver: gpu.example.com
  pool: {name: n2, generation: 1, resourceSliceCount: 1}
  nodeName: n2
  devices: [{name: g0}, {name: g1}]
]=])
file(WRITE ${_nr}/scn.yaml.in [=[
apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: node-resources}
spec:
  seed: 1
  release: "1.36"
  cluster:
    manifests: [nodes.yaml]
  workload:
    mode: fill
    count: 6
    mix:
    - weight: 1
      REQUESTS
      template:
        name: one-gpu
        requests:
        - {name: gpu, deviceClassName: gpu.example.com, count: 1}
  placement: first-fit
  run: {warmup: 0, repetitions: 2, invariants: all}
]=])

set(_nr_script [=[
set -e
d="$2"
mk() { sed "s/REQUESTS/$2/" "$d/scn.yaml.in" > "$d/$1.yaml"; }
runs() { "$1" run "$d/$2.yaml" -o "$d/$2.json" > "$d/$2.txt"; }
mk cpu 'requests: {cpu: 1500m, memory: 1Gi}'
mk none 'requests: {}'
mk mem 'requests: {memory: 10Gi}'
runs "$1" cpu
jq -e '.repetitions[] | .outcome_reasons == [{"count": 3, "outcome": "unsatisfiable",
  "shape": "one-gpu", "reason": "insufficient cpu on 2 node(s); no other node can allocate the claim (2 node(s) searched, policy first-fit)"}]' "$d/cpu.json" >/dev/null
jq -e '.digests_equal == true' "$d/cpu.json" >/dev/null
grep -Eq "^invariants +all: .* 0 violation" "$d/cpu.txt"
"$1" run "$d/cpu.yaml" -o "$d/both.json" --allocator both --both-prefix 6 > "$d/both.txt"
grep -Eq "^both +6 decisions compared" "$d/both.txt"
for p in best-fit spread random; do
  "$1" run "$d/cpu.yaml" -o "$d/both.json" --allocator both --both-prefix 6 --policy $p > "$d/both.txt"
  grep -Eq "^both +6 decisions compared" "$d/both.txt"
  grep -Eq "^invariants +all: .* 0 violation" "$d/both.txt"
done
# steady state, each pod gone before the next arrives: release frees the cpu, all 40 placed
sed -e 's/    mode: fill/    mode: steady\n    rate: 100\n    lifetime: {distribution: constant, value: 0.005}/' \
    -e 's/count: 6$/count: 40/' "$d/cpu.yaml" > "$d/steady.yaml"
runs "$1" steady
jq -e '[.repetitions[] | .outcomes.allocated] == [40, 40]' "$d/steady.json" >/dev/null
runs "$1" none
jq -e '[.repetitions[] | .outcome_reasons[0].count] == [2, 2]' "$d/none.json" >/dev/null
runs "$1" mem
jq -e '[.repetitions[] | .outcome_reasons[0] | .count, (.reason | startswith("insufficient memory on 2 node(s); "))] == [4, true, 4, true]' "$d/mem.json" >/dev/null
mk bad 'requests: {cpu: lots}'
set +e
"$1" run "$d/bad.yaml" -o "$d/bad.json" 2> "$d/bad.err"; rc=$?
set -e
test $rc = 2
grep -q "bad.yaml:14:.*requests.cpu.*\"lots\" is not a non-negative quantity" "$d/bad.err"
mk gpu 'requests: {gpu: 1}'
set +e
"$1" run "$d/gpu.yaml" -o "$d/gpu.json" 2> "$d/gpu.err"; rc=$?
set -e
test $rc = 2
grep -q 'unknown field "gpu"' "$d/gpu.err"
mk shared 'requests: {cpu: 1}'
sed -i 's/^    - weight: 1$/    - weight: 1\n      share: 2/' "$d/shared.yaml"
set +e
"$1" run "$d/shared.yaml" -o "$d/shared.json" 2> "$d/shared.err"; rc=$?
set -e
test $rc = 2
grep -q "cannot request cpu or memory" "$d/shared.err"
]=])
add_test(NAME harness.cli_noderes.scenario
         COMMAND sh -c "${_nr_script}" sh $<TARGET_FILE:drabench> ${_nr}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.cli_noderes.scenario PROPERTIES LABELS "unit;harness;cli"
                     TIMEOUT 120 ENVIRONMENT "${DRA_TEST_ENV}")

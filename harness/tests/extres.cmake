# harness/tests/extres.cmake - pods' extended resources backed by DRA (KEP-5004) and the pod
# inputs of `drabench alloc`, end to end:
#  example:  the dra-example-driver extended-resource-request example with its slices and class:
#            pod0 gets gpu-0 through the claim container-0-request-0 (printed with its marks and
#            the Pod's extendedResourceClaimStatus), pod1 is unschedulable naming example.com/gpu;
#            --allocator both agrees; under 1.35 (gate off) both are unschedulable; the output
#            read back (validate, alloc) is valid and binds nothing twice;
#  pods:     what alloc does with pod inputs it used to skip without a word: a pod without
#            claims is placed, a bound pod counts on its node, a Deployment of 0 replicas, a
#            DaemonSet's pod per node, a claim no pod uses, inputs not modelled (inter-pod
#            affinity, topology spread, another scheduler, volumes, host ports), node filters
#            and NodeResourcesFit with a device plugin's allocatable, skipped kinds;
#  explain:  explain --pod / --shape extended-resource: the scheduler's checks per node, each
#            node's own claim, PreBind, the gate off in 1.35 and locked on from 1.37, a pod pinned
#            by its allocated claim (the words alloc prints);
#  scenario: the generator's extended-resource shape: `run` (every policy, --allocator both)
#            and `alloc` of the `gen` output decide the same; a resource nothing backs is
#            unschedulable with its reason; a cluster whose node offers the resource by device
#            plugin is refused naming the node.
set(_er ${PROJECT_BINARY_DIR}/extres-tests)
file(MAKE_DIRECTORY ${_er})

set(_er_example [=[
set -e
b="$1"; d="$2"
R=../shared/real-manifests/dra-example-driver
in="-f $R/gpu-default.derived.yaml -f ../shared/real-manifests/k8s-website-examples/driver-install/deviceclass.yaml -f $R/extended-resource-request"
"$b" alloc $in > "$d/ex.yaml" 2> "$d/ex.err"
grep -qxF "pod0: allocated on dra-example-driver-cluster-worker" "$d/ex.err"
grep -qxF "pod1: unsatisfiable on every node tried: 1 node: Insufficient example.com/gpu" "$d/ex.err"
grep -qxF "1 allocated, 1 unsatisfiable, 0 failed (release 1.37, incubating allocator)" "$d/ex.err"
grep -qxF "1 document(s) of kinds drabench does not read (Namespace, Service, ...) were skipped" "$d/ex.err"
grep -Eq '^  name: pod0-extended-resources-[bcdfghjklmnpqrstvwxz2456789]{5}$' "$d/ex.yaml"
grep -qx '  generateName: pod0-extended-resources-' "$d/ex.yaml"
grep -qx '    resource.kubernetes.io/extended-resource-claim: "true"' "$d/ex.yaml"
grep -qx '    - name: container-0-request-0' "$d/ex.yaml"
grep -qx '        device: gpu-0' "$d/ex.yaml"
grep -qx '  nodeName: dra-example-driver-cluster-worker' "$d/ex.yaml"
grep -qx '      requestName: container-0-request-0' "$d/ex.yaml"
test "$(grep -c '^kind: Pod$' "$d/ex.yaml")" = 1
"$b" alloc $in --allocator both > "$d/both.yaml" 2> "$d/both.err"
cmp "$d/ex.yaml" "$d/both.yaml"
grep -q "^both: 1 decisions compared" "$d/both.err"
"$b" alloc $in -o json | jq -e '[.items[] | select(.kind == "Pod") | .status.extendedResourceClaimStatus.requestMappings[0].resourceName] == ["deviceclass.resource.kubernetes.io/gpu.example.com"]' > /dev/null
# 1.35: DRAExtendedResource off by default, --feature turns it on
"$b" alloc $in --release 1.35 > "$d/off.yaml" 2> "$d/off.err"
grep -qxF "pod0: unsatisfiable on every node tried: 1 node: Insufficient deviceclass.resource.kubernetes.io/gpu.example.com: feature gate DRAExtendedResource is off in release 1.35 (else DeviceClass gpu.example.com would back deviceclass.resource.kubernetes.io/gpu.example.com)" "$d/off.err"
! grep -q "extended-resource-claim" "$d/off.yaml"
"$b" alloc $in --release 1.35 --feature DRAExtendedResource=true 2>&1 >/dev/null | grep -qx "pod0: allocated on dra-example-driver-cluster-worker"
# the output read back: valid, pod0 bound (counted on its node, not scheduled again), gpu-0 taken
"$b" validate "$d/ex.yaml" > /dev/null
"$b" alloc -f $R/gpu-default.derived.yaml -f ../shared/real-manifests/k8s-website-examples/driver-install/deviceclass.yaml -f "$d/ex.yaml" > "$d/again.yaml" 2> "$d/again.err"
grep -q "^pod0: already bound to node dra-example-driver-cluster-worker" "$d/again.err"
grep -qxF "0 allocated, 0 unsatisfiable, 0 failed (release 1.37, incubating allocator)" "$d/again.err"
]=])
add_test(NAME harness.cli_extres.example
         COMMAND sh -c "${_er_example}" sh $<TARGET_FILE:drabench> ${_er}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})

file(WRITE ${_er}/pods.yaml [=[
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
  extendedResourceName: example.com/gpu
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
status: {allocatable: {cpu: "4", example.com/fpga: "1", pods: "3"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {zone: b}}
spec: {taints: [{key: dedicated, value: infra, effect: NoSchedule}]}
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
kind: ResourceClaim
metadata: {name: orphan}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu.example.com}}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: bound}
spec:
  nodeName: n1
  containers: [{name: c, resources: {limits: {example.com/fpga: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: plain}
spec:
  containers: [{name: c, resources: {requests: {cpu: "3"}}}]
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: zone}]
  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]
  schedulerName: my-scheduler
---
apiVersion: v1
kind: Pod
metadata: {name: fpga}
spec:
  containers: [{name: c, resources: {limits: {example.com/fpga: "1"}}, ports: [{containerPort: 80, hostPort: 80}]}]
  volumes: [{name: v, persistentVolumeClaim: {claimName: data}}]
  runtimeClassName: gvisor
---
apiVersion: v1
kind: Pod
metadata: {name: gpus}
spec:
  nodeSelector: {zone: a}
  containers: [{name: c, resources: {limits: {example.com/gpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: zone-b}
spec:
  nodeSelector: {zone: b}
  containers: [{name: c}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: none}
spec:
  replicas: 0
  template: {spec: {containers: [{name: c}]}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  template:
    spec:
      tolerations: [{key: dedicated, operator: Exists}]
      containers: [{name: c}]
]=])
set(_er_pods [=[
set -e
b="$1"; d="$2"
"$b" alloc -f "$d/pods.yaml" > "$d/pods.out" 2> "$d/pods.err" || true
cat "$d/pods.err"
grep -qxF "bound: already bound to node n1 (spec.nodeName): not scheduled again; its requests count on that node" "$d/pods.err"
grep -qxF "plain: spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution: inter-pod affinity is not modelled: ignored" "$d/pods.err"
grep -qxF "plain: spec.topologySpreadConstraints: pod topology spread (DoNotSchedule) is not modelled: ignored" "$d/pods.err"
grep -q "^plain: spec.schedulerName: another scheduler places this pod" "$d/pods.err"
grep -qxF "plain: placed on n1 (no claims to allocate)" "$d/pods.err"
grep -qxF "fpga: spec.volumes: persistent volume claims (volume binding) are not modelled: ignored" "$d/pods.err"
grep -qxF "fpga: spec.containers[].ports[].hostPort: host ports (NodePorts) are not modelled: ignored" "$d/pods.err"
grep -qxF "fpga: spec.runtimeClassName: the RuntimeClass's overhead is not read (spec.overhead is): ignored" "$d/pods.err"
# the bound pod holds n1's one fpga; n2 has none (and an untolerated taint)
grep -qxF "fpga: unsatisfiable on every node tried: 1 node: Insufficient example.com/fpga; 1 node: node(s) had untolerated taint {dedicated: infra}" "$d/pods.err"
grep -qxF "gpus: allocated on n1" "$d/pods.err"
grep -qxF "zone-b: unsatisfiable on every node tried: 1 node: node(s) didn't match Pod's node affinity/selector; 1 node: node(s) had untolerated taint {dedicated: infra}" "$d/pods.err"
grep -qxF "none: Deployment with 0 replicas: no pods" "$d/pods.err"
# the DaemonSet tolerates the taint: one pod per node; n1 holds 3 pods already (pods: 3)
grep -qxF "agent-n1: unsatisfiable on every node tried: 1 node: Insufficient pods" "$d/pods.err"
grep -qxF "agent-n2: placed on n2 (no claims to allocate)" "$d/pods.err"
grep -qxF "claim default/orphan: no pod in the input uses it: not allocated" "$d/pods.err"
grep -qxF "1 allocated, 3 unsatisfiable, 0 failed, 2 placed without claims (release 1.37, incubating allocator)" "$d/pods.err"
grep -qx '    - name: container-0-request-0' "$d/pods.out"
test "$(grep -c '        device: g' "$d/pods.out")" = 2
]=])
add_test(NAME harness.cli_extres.pods
         COMMAND sh -c "${_er_pods}" sh $<TARGET_FILE:drabench> ${_er}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})

# a pod whose shared claim is allocated on node-1 (its nodeSelector) and which asks for an
# extended resource: node-2 is ruled out before any allocation (node-selection, as for any pod)
file(WRITE ${_er}/pinned.yaml [=[
apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: v1
kind: Node
metadata: {name: node-2}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s1}
spec:
  driver: gpu.example.com
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  nodeName: node-1
  devices: [{name: gpu-0}, {name: gpu-1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s2}
spec:
  driver: gpu.example.com
  pool: {name: node-2, generation: 1, resourceSliceCount: 1}
  nodeName: node-2
  devices: [{name: gpu-0}, {name: gpu-1}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: class}
spec:
  selectors: [{cel: {expression: "device.driver == 'gpu.example.com'"}}]
  extendedResourceName: example.com/gpu
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: default}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: class}}]
status:
  allocation:
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-0}]
    nodeSelector:
      nodeSelectorTerms:
      - matchFields: [{key: metadata.name, operator: In, values: [node-1]}]
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  resourceClaims: [{name: s, resourceClaimName: shared}]
  containers:
  - name: main
    image: busybox
    resources:
      limits: {example.com/gpu: "1"}
]=])

# explain of pods (core/extres dra_extres_explain): the scheduler's checks per node, then the
# node's own special claim with the pod's claims; the same reasons alloc prints
set(_er_explain [=[
set -e
b="$1"; d="$2"
R=../shared/real-manifests/dra-example-driver
ex() { set +e; "$b" explain "$@" > "$d/x.txt" 2> "$d/x.err"; rc=$?; set -e; }
has() { grep -qF -- "$1" "$d/x.txt" || { echo "missing: $1"; cat "$d/x.txt" "$d/x.err"; exit 1; }; }
ex -f "$d/pods.yaml" --pod fpga; test $rc = 1
has "pod default/fpga (0 claims) on 2 nodes"
has "  1 node   Insufficient example.com/fpga"
has "  1 node   node(s) had untolerated taint {dedicated: infra}"
ex -f "$d/pods.yaml" --pod gpus -o json; test $rc = 0
jq -e '.fit_nodes == ["n1"] and .extended_resources == {"example.com/gpu": 2} and ([.groups[] | select(.kind == "node-filter") | .nodes] == [["n2"]])' "$d/x.txt" > /dev/null
ex -f $R/gpu-default.derived.yaml -f ../shared/real-manifests/k8s-website-examples/driver-install/deviceclass.yaml -f $R/extended-resource-request --pod extended-resource-request/pod1; test $rc = 1
has "  1 node   Insufficient example.com/gpu"
ex -f $R/gpu-default.derived.yaml -f ../shared/real-manifests/k8s-website-examples/driver-install/deviceclass.yaml -f $R/extended-resource-request --pod extended-resource-request/pod0; test $rc = 0
has "pod extended-resource-request/pod0 (0 claims, extended resources deviceclass.resource.kubernetes.io/gpu.example.com: 1) on 1 node"
# every node with its own claim: a device-plugin node fits without devices, a node too small
ex -f corpora/conformance/extended/explain-nodes-differ.yaml; test $rc = 0
has "fits on 2 nodes: node-dp, node-dra"
has "request container-0-request-0 (example.com/gpu of container con0): 1 device of class class on the node, 2 needed"
# a special claim without requests: PreBind
ex -f corpora/conformance/extended/device-plugin-with-own-claim.yaml --pod p; test $rc = 1
has "PreBind: nil or empty request mappings, no update of pod default/p ExtendedResourceClaimStatus"
# the default scenario's extended-resource shape, and the gate off in 1.35
ex --scenario default --shape extended-resource; test $rc = 0
has "shape extended-resource (spec.workload.mix[8], extended resources nvidia.com/gpu: 1) on 40 nodes"
has "fits on 16 nodes: dgx-0"
has "request container-0-request-0 (nvidia.com/gpu of container main): no ResourceSlice offers devices on this node, 1 needed"
ex --scenario default --shape extended-resource --release 1.35 -o json; test $rc = 1
jq -e '[.groups[0] | .kind, .gate, .count, .reason] == ["gate", "DRAExtendedResource", 40, "Insufficient nvidia.com/gpu: feature gate DRAExtendedResource is off in release 1.35 (else DeviceClass gpu.nvidia.com would back nvidia.com/gpu)"]' "$d/x.txt" > /dev/null
ex --scenario "$d/scn.yaml"; test $rc = 2
grep -qF -- "--shape fpga" "$d/x.err"
# 1.38-pre as 1.37; from 1.37 on the gate is GA and locked
ex --scenario default --shape extended-resource --release 1.38-pre; test $rc = 0
has "fits on 16 nodes: dgx-0"
ex --scenario default --shape extended-resource --feature DRAExtendedResource=false; test $rc = 2
grep -qF "cannot set feature gate DRAExtendedResource to false, feature is locked to true in release 1.37" "$d/x.err"
# an allocated claim of the pod pins it: the other node is node-selection, in explain and alloc
ex -f "$d/pinned.yaml" --pod default/p -o json; test $rc = 0
jq -e '.fit_nodes == ["node-1"] and ([.groups[] | select(.kind == "node-selection") | .nodes, .reason] == [["node-2"], "resourceclaim default/shared not available on the node (its allocation'"'"'s nodeSelector)"])' "$d/x.txt" > /dev/null
ex -f "$d/pinned.yaml" --pod default/p
has "pod default/p (0 claims, 1 allocated already, extended resources example.com/gpu: 1) on 2 nodes"
"$b" alloc -f "$d/pinned.yaml" 2>&1 >/dev/null | grep -qx "p: allocated on node-1"
"$b" alloc -f "$d/pinned.yaml" --node node-2 2>&1 >/dev/null | grep -qxF "p: unsatisfiable on every node tried: 1 node: resourceclaim default/shared not available on the node (its allocation's nodeSelector)"
]=])
add_test(NAME harness.cli_extres.explain
         COMMAND sh -c "${_er_explain}" sh $<TARGET_FILE:drabench> ${_er}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})

file(WRITE ${_er}/scn.yaml [=[
apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: extended-resources}
spec:
  seed: 1
  release: "1.36"
  cluster:
    nodes:
    - {profile: dgx-h100, count: 4, name: dgx}
    - {profile: cpu-only, count: 2, name: cpu}
  workload:
    mode: fill
    count: 50
    mix:
    - {shape: extended-resource, weight: 1}
    - {shape: extended-resource, count: 2, weight: 1}
    - {shape: extended-resource, class: gpu.nvidia.com, count: 3, name: implicit-3, weight: 1}
    - {shape: extended-resource, resource: example.com/fpga, name: fpga, weight: 1}
    - {shape: gpu-1, weight: 1}
  placement: first-fit
  run: {warmup: 0, repetitions: 1, invariants: all}
]=])
file(WRITE ${_er}/dp-node.yaml [=[
apiVersion: v1
kind: Node
metadata: {name: dgx-0}
status: {allocatable: {nvidia.com/gpu: "8"}}
---
apiVersion: v1
kind: Node
metadata: {name: dgx-1}
]=])
file(WRITE ${_er}/with-pods.yaml [=[
apiVersion: v1
kind: Node
metadata: {name: dgx-0}
---
apiVersion: v1
kind: Pod
metadata: {name: someone}
spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: pending}
spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu.nvidia.com}}]}}
]=])
set(_er_scn [=[
set -e
b="$1"; d="$2"
"$b" run "$d/scn.yaml" -o "$d/scn.json" > "$d/scn.txt"
jq -e '.repetitions[0].outcomes | .allocated == 20 and .unsatisfiable == 30' "$d/scn.json" > /dev/null
jq -e '[.repetitions[0].outcome_reasons[] | select(.shape == "fpga")] == [{"count": 10, "outcome": "unsatisfiable", "shape": "fpga", "reason": "the scheduler'"'"'s checks reject every node (before any allocation): 6 nodes: Insufficient example.com/fpga", "node_reasons": [{"kind": "node-resources", "nodes": 6, "reason": "Insufficient example.com/fpga"}]}]' "$d/scn.json" > /dev/null
jq -e '.warnings == ["shape fpga: all 10 pods unsatisfiable: Insufficient example.com/fpga"]' "$d/scn.json" > /dev/null
jq -e '[.repetitions[0].outcome_reasons[] | select(.shape == "extended-resource") | .node_reasons[0].reason] == ["request container-0-request-0 (nvidia.com/gpu of container main): 8 devices of class gpu.nvidia.com match, all allocated already, 1 needed"]' "$d/scn.json" > /dev/null
for p in first-fit best-fit spread random; do
  "$b" run "$d/scn.yaml" -o "$d/both.json" --allocator both --both-prefix 50 --policy $p > "$d/both.txt"
  grep -Eq "^invariants +all: .* 0 violation" "$d/both.txt"
done
# the same pods written by gen and scheduled by alloc: the same outcome
rm -rf "$d/gen"
"$b" gen "$d/scn.yaml" -o "$d/gen" > /dev/null
"$b" alloc -f "$d/gen" 2>&1 >/dev/null | grep -qx "20 allocated, 30 unsatisfiable, 0 failed (release 1.37, incubating allocator)"
# 1.35: the gate is off, no extended-resource pod is placed
"$b" run "$d/scn.yaml" --release 1.35 -o "$d/off.json" > /dev/null
jq -e '[.repetitions[0].outcome_reasons[] | select(.shape == "extended-resource") | .node_reasons[0] | .kind, .nodes, .reason] == ["gate", 6, "Insufficient nvidia.com/gpu: feature gate DRAExtendedResource is off in release 1.35 (else DeviceClass gpu.nvidia.com would back nvidia.com/gpu)"]' "$d/off.json" > /dev/null
# a node offering nvidia.com/gpu by device plugin: refused, naming it
set +e
"$b" run "$d/scn.yaml" --cluster "$d/dp-node.yaml" -o "$d/dp.json" > /dev/null 2> "$d/dp.err"; rc=$?
set -e
test $rc = 2
# pods and pending claims of a --cluster dump are not the workload: said
"$b" run "$d/scn.yaml" --cluster "$d/with-pods.yaml" -o "$d/wp.json" > /dev/null 2> "$d/wp.err"
grep -qxF "drabench run: note: the cluster manifests hold 1 Pod(s) or workload(s) and 1 unallocated ResourceClaim(s): run places the scenario's workload and ignores them (drabench alloc schedules them)" "$d/wp.err"
grep -q "shape extended-resource: the scheduler treats its pods differently on node dgx-0 (no claim: the node offers the resources itself) and on node dgx-1 (a claim of 1 request(s))" "$d/dp.err"
]=])
add_test(NAME harness.cli_extres.scenario
         COMMAND sh -c "${_er_scn}" sh $<TARGET_FILE:drabench> ${_er}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.cli_extres.example harness.cli_extres.pods harness.cli_extres.scenario
                     harness.cli_extres.explain
                     PROPERTIES LABELS "unit;harness;cli" TIMEOUT 300 ENVIRONMENT "${DRA_TEST_ENV}")

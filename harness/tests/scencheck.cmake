# harness/tests/scencheck.cmake - `drabench validate` of a scenario checks it against its own
# cluster (harness/bench/scencheck.h): a count larger than any node holds, a constraint naming an
# attribute no device of its class has (nvidia.com/cliqueID), a selector reading an attribute the
# class's devices lack, a capacity request no device has, a MIG profile no node profile offers
# (the ones offered listed), a release or feature gate withholding the devices a shape needs, an
# entry marked expect: unsatisfiable that fits, a steady workload too short to settle, a
# stopAfter that ends the run early, stopAfter in steady mode, a feature gate that does not
# exist; each at file:line:col with the
# alternatives; the extended-resource pod shape (the scheduler's checks and claim per node, core/extres):
# a count larger than any node holds, a resource no DeviceClass backs, expect: unsatisfiable on a
# pod that fits, DRAExtendedResource off in 1.35; the built-in scenarios validate clean (no error,
# no warning).
set(_sc ${PROJECT_BINARY_DIR}/scencheck-tests)
file(MAKE_DIRECTORY ${_sc})
file(WRITE ${_sc}/bad1.yaml [=[
apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: bad1}
spec:
  cluster:
    nodes:
    - {profile: dgx-h100, count: 4, name: dgx}
    - {profile: gb200-nvl72, count: 4, name: gb}
    - {profile: a100-mig-dynamic, count: 2, name: mig}
  workload:
    count: 100
    stopAfter: 3
    mix:
    - {shape: gpu-n, count: 16}
    - {shape: gpu-n, count: 2, constraint: nvidia.com/cliqueID}
    - {shape: mig-3g.40gb}
    - weight: 1
      template:
        name: bad-selector
        requests:
        - name: gpu
          deviceClassName: gpu.nvidia.com
          selectors: ["device.attributes['gpu.nvidia.com'].productname == 'H100'"]
    - {shape: gpu-1, expect: unsatisfiable}
    - {shape: gpu-n, count: 8, name: eight}
    - weight: 1
      template:
        name: vram
        requests:
        - {name: gpu, deviceClassName: gpu.nvidia.com, capacity: {vram: 10Gi}}
]=])
file(WRITE ${_sc}/release.yaml [=[
apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: release}
spec:
  release: "1.35"
  cluster:
    nodes: [{profile: a100-mig-dynamic, count: 2, name: mig}, {profile: dgx-h100, count: 2, name: dgx}]
  workload:
    mode: steady
    count: 100
    rate: 100
    stopAfter: 5
    lifetime: {distribution: exponential, mean: 2}
    mix:
    - {shape: mig-1g.5gb}
    - {shape: gpu-1}
]=])
file(WRITE ${_sc}/feature.yaml [=[
apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: feature}
spec:
  features: {DRAPartitionableDevices: false}
  cluster:
    nodes: [{profile: a100-mig-dynamic, count: 2, name: mig}, {profile: dgx-h100, count: 2, name: dgx}]
  workload:
    count: 100
    stopAfter: 2
    mix:
    - {shape: gpu-1, weight: 1}
    - {shape: gpu-n, count: 9, weight: 3, expect: unsatisfiable}
    - {shape: mig-1g.5gb, weight: 1}
]=])
file(WRITE ${_sc}/gate.yaml [=[
apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: gate}
spec:
  features: {DRANoSuchGate: true}
  cluster:
    nodes: [{profile: dgx-h100, count: 1}]
  workload:
    count: 3
    mix: [{shape: gpu-1}]
]=])
file(WRITE ${_sc}/extres.yaml [=[
apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: extres}
spec:
  cluster:
    nodes: [{profile: dgx-h100, count: 2, name: dgx}, {profile: cpu-only, count: 1, name: cpu}]
  workload:
    count: 20
    stopAfter: 4
    mix:
    - {shape: extended-resource, count: 9}
    - {shape: extended-resource, resource: example.com/fpga, name: fpga}
    - {shape: extended-resource, name: fits, expect: unsatisfiable}
    - {shape: extended-resource, class: gpu.nvidia.com, count: 2, name: implicit-2}
]=])
file(WRITE ${_sc}/extres135.yaml [=[
apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: extres135}
spec:
  release: "1.35"
  cluster:
    nodes: [{profile: dgx-h100, count: 2, name: dgx}]
  workload:
    count: 20
    mix: [{shape: extended-resource}]
]=])
set(_sc_script [=[
set -e
B="$1"; d="$2"
val() { set +e; "$B" validate "$@" > "$d/out.txt" 2> "$d/err.txt"; rc=$?; set -e; }
has() { grep -qF -- "$1" "$d/err.txt" || { echo "missing: $1"; cat "$d/err.txt"; exit 1; }; }
val "$d/bad1.yaml"; test $rc = 2
has "bad1.yaml:14:29: error: spec.workload.mix[0] (gpu-n-16): request gpu needs 16 devices of class gpu.nvidia.com, more than any node holds (matching devices per node: dgx-h100 nodes (dgx-*) 8, gb200-nvl72 nodes (gb-*) 4)"
has "bad1.yaml:15:44: error: spec.workload.mix[1] (gpu-n-2): matchAttribute nvidia.com/cliqueID: no device of the classes of its requests has this attribute; did you mean gpu.nvidia.com/cliqueID? (their attributes: gpu.nvidia.com/addressingMode,"
has "bad1.yaml:16:15: error: spec.workload.mix[2] (mig-3g.40gb): request mig: selector #0 \`device.attributes['gpu.nvidia.com'].profile == '3g.40gb'\` matches no device of class mig.nvidia.com on any node (the nodes offer a100-mig-dynamic nodes (mig-*): gpu.nvidia.com/profile 1g.10gb, 1g.5gb, 1g.5gb+me, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb)"
has "bad1.yaml:23:23: error: spec.workload.mix[3] (bad-selector): request gpu: selector #0 reads attribute gpu.nvidia.com/productname, which no device of class gpu.nvidia.com has; did you mean gpu.nvidia.com/productName?"
has "bad1.yaml:24:30: error: spec.workload.mix[4].expect: unsatisfiable, but the entry (gpu-1) fits on dgx-h100 nodes (dgx-*) (node dgx-0) of the empty cluster"
has "bad1.yaml:30:11: error: spec.workload.mix[6] (vram): request gpu asks for capacity vram, which no device of class gpu.nvidia.com has"
has "bad1.yaml:12:16: warning: spec.workload.stopAfter: 3 ends the workload at arrival 6 of 100: mix[0] (gpu-n-16), mix[1] (gpu-n-2), mix[2] (mig-3g.40gb), mix[3] (bad-selector), mix[6] (vram) fit no node even in the empty cluster"
grep -q "6 errors, 1 warning" "$d/err.txt"
! grep -q "mix\[5\]" "$d/err.txt"
val "$d/release.yaml"; test $rc = 2
has "release.yaml:5:12: error: spec.release: feature gate DRAPartitionableDevices is off in release 1.35, so mix[0] (mig-1g.5gb) gets no device on any node (a100-mig-dynamic nodes (mig-*): request mig: feature gate DRAPartitionableDevices is off in release 1.35, so the 56 matching devices"
has "release.yaml:10:12: warning: spec.workload.count: 100 arrivals at rate 100/s span 1 s of workload time, less than the 6 s occupancy needs to settle (3 mean lifetimes of the exponential lifetime) at about rate x mean lifetime = 200 pods: the run ends before steady state; use count >= 600"
has "release.yaml:12:16: warning: spec.workload.stopAfter: applies to mode fill only; ignored in mode steady"
val "$d/feature.yaml"; test $rc = 2
has "feature.yaml:5:39: error: spec.features: feature gate DRAPartitionableDevices is off, so mix[2] (mig-1g.5gb) gets no device on any node"
has "the 56 matching devices consuming shared counters (partitions such as MIG devices) are not offered, 1 needed); remove the override"
has "feature.yaml:10:16: warning: spec.workload.stopAfter: 2 ends the workload at arrival"
has "mix[1] (gpu-n-9), mix[2] (mig-1g.5gb) fit no node even in the empty cluster and 2 of them arrive in a row"
val "$d/extres.yaml"; test $rc = 2
has "extres.yaml:11:41: error: spec.workload.mix[0] (extended-resource-9): request container-0-request-0 needs 9 devices of class gpu.nvidia.com, more than any node holds (matching devices per node: dgx-h100 nodes (dgx-*) 8)"
has "extres.yaml:12:44: error: spec.workload.mix[1] (fpga): no node takes its pods (dgx-h100 nodes (dgx-*): Insufficient example.com/fpga): no DeviceClass backs the resource and no node offers it in status.allocatable (names DeviceClasses back here: nvidia.com/gpu (class gpu.nvidia.com), and deviceclass.resource.kubernetes.io/<class> of every class)"
has "extres.yaml:13:54: error: spec.workload.mix[2].expect: unsatisfiable, but the entry (fits) fits on dgx-h100 nodes (dgx-*) (node dgx-0) of the empty cluster"
has "extres.yaml:9:16: warning: spec.workload.stopAfter: 4 ends the workload at arrival"
has "mix[0] (extended-resource-9), mix[1] (fpga) fit no node even in the empty cluster"
! grep -q "mix\[3\]" "$d/err.txt"
grep -q "3 errors, 1 warning" "$d/err.txt"
val "$d/extres135.yaml"; test $rc = 2
has "extres135.yaml:5:12: error: spec.release: feature gate DRAExtendedResource is off in release 1.35, so mix[0] (extended-resource) gets no device on any node (dgx-h100 nodes (dgx-*): Insufficient nvidia.com/gpu: feature gate DRAExtendedResource is off in release 1.35 (else DeviceClass gpu.nvidia.com would back nvidia.com/gpu)); use a release where it is on, or set it in spec.features"
grep -q "1 error, 0 warnings" "$d/err.txt"
val "$d/gate.yaml"; test $rc = 2
has "gate.yaml:5:14: error: spec.features.DRANoSuchGate: unknown feature gate \"DRANoSuchGate\""
# -o json carries the warnings; -q hides them
val -o json "$d/release.yaml"; test $rc = 2
jq -e '.files[0].errors | length == 1' "$d/out.txt" > /dev/null
jq -e '[.files[0].warnings[] | .line] == [10, 12]' "$d/out.txt" > /dev/null
val -q "$d/release.yaml"; test $rc = 2
! grep -q warning "$d/err.txt"
# the built-ins: no error, no warning
for s in default fleet-5k gpu-sharing mig-inference mig-vgpu nvl72-training sched-perf-500 unsat-storm; do
  val corpora/scenarios/$s.yaml; test $rc = 0
  grep -q "0 errors, 0 warnings" "$d/err.txt" || { cat "$d/err.txt"; exit 1; }
done
]=])
add_test(NAME harness.cli_validate.scenario_checks
         COMMAND sh -c "${_sc_script}" sh $<TARGET_FILE:drabench> ${_sc}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.cli_validate.scenario_checks PROPERTIES LABELS "unit;harness;cli"
                     TIMEOUT 300 ENVIRONMENT "${DRA_TEST_ENV}")

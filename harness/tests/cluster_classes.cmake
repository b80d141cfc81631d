# harness/tests/cluster_classes.cmake - a scenario run against manifests (run --cluster, a
# scenario's spec.cluster.manifests, validate, explain): the manifests' DeviceClasses are the
# classes. The scenario build adds the standard classes its shapes need before the manifests are
# read; a manifest class of the same name replaces that default (it is no duplicate), and the
# scenario's own ResourceClaimTemplates stay the workload's (gen --no-pods writes them into the
# dump too).
#  dump:     gen default --no-pods, then run default --cluster on the dump: runs, and decides as
#            the generated run does (equal digests);
#  selector: the dump's gpu.nvidia.com class with another selector (type 'none'): its selector
#            decides - every GPU shape unsatisfiable by class selector #0 in run --cluster, in
#            validate and explain of a scenario naming the dump in spec.cluster.manifests.
set(_cc ${PROJECT_BINARY_DIR}/cluster-classes-tests)
file(MAKE_DIRECTORY ${_cc})

set(_cc_script [=[
set -e
b="$1"; d="$2"
rm -rf "$d/D" "$d/X"
"$b" gen default --no-pods -o "$d/D" > /dev/null 2>&1
"$b" run default -n 100 -o "$d/gen.json" > "$d/gen.out" 2>&1
"$b" run default --cluster "$d/D" -n 100 -o "$d/dump.json" > "$d/dump.out" 2>&1
g=$(grep '^digest' "$d/gen.out" | awk '{print $2}')
x=$(grep '^digest' "$d/dump.out" | awk '{print $2}')
test -n "$g"
test "$g" = "$x"
# the dump's class of a standard name, another selector: the dump's decides
mkdir -p "$d/X"
sed "s/\.type == 'gpu'\"/.type == 'none'\"/" "$d/D/manifests.yaml" > "$d/X/manifests.yaml"
test "$(grep -c "type == 'none'" "$d/X/manifests.yaml")" = 1
"$b" run default --cluster "$d/X" -n 100 -o "$d/x.json" > "$d/x.out" 2>&1
grep -q "^warning     shape gpu-1: all [0-9]* pods unsatisfiable in each repetition: request gpu: no device of class gpu.nvidia.com on the node (class selector #0 matches none of the 16 devices offered)" "$d/x.out"
grep -q "^warning     shape extended-resource: all [0-9]* pods unsatisfiable" "$d/x.out"
if grep -q "^digest      $g" "$d/x.out"; then exit 1; fi
cat > "$d/scn.yaml" <<'Y'
apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: dump-classes}
spec:
  seed: 7
  cluster:
    manifests: [X]
  workload:
    mode: fill
    count: 20
    mix:
    - {shape: gpu-1, weight: 1}
    - {shape: mig-1g.10gb, weight: 1}
  run: {repetitions: 1}
Y
set +e
"$b" validate "$d/scn.yaml" > "$d/v.out" 2>&1; rc=$?
set -e
test $rc = 2
grep -q "spec.workload.mix\[0\] (gpu-1): request gpu: no node of the cluster offers a device of class gpu.nvidia.com" "$d/v.out"
if grep -q "duplicate name" "$d/v.out"; then exit 1; fi
if grep -q "mix\[1\]" "$d/v.out"; then exit 1; fi
grep -q ", 3 classes," "$d/v.out"
set +e
"$b" explain --scenario "$d/scn.yaml" --shape gpu-1 > "$d/e.out" 2>&1; rc=$?
set -e
test $rc = 1
grep -qx "fits on 0 nodes" "$d/e.out"
grep -q "request gpu: no device of class gpu.nvidia.com on the node (class selector #0 matches none of the 16 devices offered)" "$d/e.out"
# the unchanged dump: validate passes, explain fits
sed 's/manifests: \[X\]/manifests: [D]/' "$d/scn.yaml" > "$d/scn-d.yaml"
"$b" validate -q "$d/scn-d.yaml"
"$b" explain --scenario "$d/scn-d.yaml" --shape gpu-1 > "$d/ed.out" 2>&1
if grep -qx "fits on 0 nodes" "$d/ed.out"; then exit 1; fi
grep -q "^fits on [1-9][0-9]* nodes" "$d/ed.out"
]=])
add_test(NAME harness.cluster_classes.scenario
         COMMAND sh -c "${_cc_script}" sh $<TARGET_FILE:drabench> ${_cc}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.cluster_classes.scenario
                     PROPERTIES LABELS "unit;harness;cli" TIMEOUT 300 ENVIRONMENT "${DRA_TEST_ENV}")

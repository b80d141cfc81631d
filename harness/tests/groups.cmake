# harness/tests/groups.cmake - PodGroups through the command line (issue items 1, 4 and 7):
# gen writes Workloads and PodGroups in the release's scheduling.k8s.io version, validate accepts
# them and refuses upstream's invalid ones with file:line:col, inspect lists them, alloc places
# them as groups only with GenericWorkload on (and compares the fast allocator's cycle with
# --allocator both), run records the groups, compare and export carry their metrics and report
# plots the topology domains.
set(_groups_cli_script [=[
d="$1/groups-cli"
rm -rf "$d" && mkdir -p "$d"
scn=harness/tests/data/groups-small.yaml
# gen: release 1.37 (the default) writes v1beta1 with workloadRef; 1.36 writes v1alpha2
"$0" gen "$scn" -p 40 -o "$d/g37" > /dev/null
m="$d/g37/manifests.yaml"
test "$(grep -c '^kind: PodGroup$' "$m")" -ge 4
test "$(grep -c '^kind: Workload$' "$m")" = 4
grep -q '^apiVersion: scheduling.k8s.io/v1beta1$' "$m"
! grep -q 'scheduling.k8s.io/v1alpha2' "$m"
grep -q 'workloadRef:' "$m"
grep -q 'schedulingGroup:' "$m"
sed 's/^  seed: 7$/  seed: 7\n  release: "1.36"\n  features: {GenericWorkload: true, GangScheduling: true, TopologyAwareWorkloadScheduling: true, DRAWorkloadResourceClaims: true}/; /^  features: {GenericWorkload: true, TopologyAware/d' \
  "$scn" > "$d/small-136.yaml"
"$0" gen "$d/small-136.yaml" -p 40 -o "$d/g36" > /dev/null
grep -q '^apiVersion: scheduling.k8s.io/v1alpha2$' "$d/g36/manifests.yaml"
! grep -q 'scheduling.k8s.io/v1beta1' "$d/g36/manifests.yaml"
"$0" validate "$d/g37" > /dev/null
"$0" validate "$d/g36" > /dev/null
# inspect: the PodGroup and Workload tables
"$0" inspect "$d/g37" > "$d/inspect.txt"
grep -Eq '^PODGROUP +NAMESPACE +NAME +POLICY +MINCOUNT' "$d/inspect.txt"
grep -Eq '^default +clique-gang-12 +gang +8 +8 +nvidia.com/gpu.clique +channel$' "$d/inspect.txt"
grep -Eq '^WORKLOAD ' "$d/inspect.txt"
# alloc: with the gates off every pod is placed alone, and it says so
"$0" alloc -f "$d/g37" > /dev/null 2> "$d/alloc-off.txt"
grep -q 'PodGroup(s) and the schedulingGroup of .* ignored: GenericWorkload is off in release 1.37' "$d/alloc-off.txt"
# with them on: groups, a group claim shared, a gang cut short by -p waits; both cycles agree
"$0" alloc -f "$d/g37" --feature GenericWorkload=true --feature TopologyAwareWorkloadScheduling=true \
  --feature DRAWorkloadResourceClaims=true --allocator both > /dev/null 2> "$d/alloc-on.txt"
grep -Eq '^gang default/clique-gang-12 \(minCount 8\): placed 8/8 pods in nvidia.com/gpu.clique=.*; group claim clique-gang-12-channel shared$' "$d/alloc-on.txt"
grep -Eq '^basic group default/rack-basic-6: placed 3/3 pods in topology.kubernetes.io/rack=' "$d/alloc-on.txt"
grep -q 'gang default/clique-gang-22 (minCount 8): waiting: waiting for minCount pods: 5 of 8 exist' "$d/alloc-on.txt"
grep -Eq '^35 allocated, 0 unsatisfiable, 0 failed, 5 waiting \(release 1.37' "$d/alloc-on.txt"
# validate: upstream's rules, each at its position
cat > "$d/bad.yaml" <<'EOF'
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: bad-gang
spec:
  schedulingPolicy:
    gang:
      minCount: 0
  schedulingConstraints:
    topology:
    - key: topology.kubernetes.io/rack
    - key: nvidia.com/gpu.clique
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: both-policies
spec:
  schedulingPolicy:
    basic: {}
    gang:
      minCount: 2
  schedulingConstraints:
    topology:
    - key: "not a label key!"
EOF
set +e
"$0" validate "$d/bad.yaml" > "$d/bad.txt" 2>&1
rc=$?
set -e
test "$rc" = 2
grep -q 'bad.yaml:8:17: error: PodGroup/bad-gang: spec.schedulingPolicy.gang.minCount' "$d/bad.txt"
grep -q 'bad.yaml:11:5: error: PodGroup/bad-gang: spec.schedulingConstraints.topology: must have at most 1 item, has 2' "$d/bad.txt"
grep -q 'bad.yaml:20:5: error: PodGroup/both-policies: spec.schedulingPolicy: exactly one of `basic`, `gang` is required' "$d/bad.txt"
grep -q 'bad.yaml:25:12: error: PodGroup/both-policies: spec.schedulingConstraints.topology\[0\].key: "not a label key!" is not a label key' "$d/bad.txt"
# a scenario's minCount larger than its group: refused at its position; a topology key no node
# carries: every cycle unschedulable, saying why (summary and warning)
sed 's|group: {pods: 4, minCount: 3, topologyKey: topology.kubernetes.io/rack}|group: {pods: 4, minCount: 5, topologyKey: topology.kubernetes.io/rack}|' \
  "$scn" > "$d/mincount.yaml"
set +e
"$0" validate "$d/mincount.yaml" > "$d/mincount.txt" 2>&1
rc=$?
set -e
test "$rc" = 2
grep -q 'mincount.yaml:35:87: error: spec.workload.mix\[1\].group.minCount: minCount 5 is larger than the group (4 pods)' "$d/mincount.txt"
sed 's|group: {pods: 4, minCount: 3, topologyKey: topology.kubernetes.io/rack}|group: {pods: 4, minCount: 3, topologyKey: example.com/nowhere}|' \
  "$scn" > "$d/nokey.yaml"
"$0" run "$d/nokey.yaml" -n 60 -w 0 -r 1 -o "$d/nokey.json" > "$d/nokey.txt" 2>&1
grep -q '^warning     shape rack-gang: all [0-9]* pods unsatisfiable: PodGroup unschedulable (no-domain): no node carries the topology key example.com/nowhere$' "$d/nokey.txt"
test "$(jq '.repetitions[0].groups.entries[] | select(.shape == "rack-gang") | .placed' "$d/nokey.json")" = 0
test "$(jq '.repetitions[0].groups.entries[] | select(.shape == "rack-gang") | .unschedulable' "$d/nokey.json")" -gt 0
# run: groups and domains in the result file; report plots the domains over the run
"$0" run "$scn" -n 120 -w 0 -r 1 -q -o "$d/run.json"
test "$(jq '[.repetitions[0].groups.entries[].cycles] | add' "$d/run.json")" -gt 0
test "$(jq '.repetitions[0].groups.domains | length' "$d/run.json")" -ge 2
test "$(jq '.repetitions[0].groups.domains[0].samples | length' "$d/run.json")" -gt 1
# compare and the CSV export carry the group metrics like every other value
set +e   # one repetition a side: inconclusive (exit 5), which is right
"$0" compare "$d/run.json" "$d/run.json" > "$d/compare.txt" 2> "$d/compare.err"
rc=$?
set -e
test "$rc" = 5
grep -q '^latency.clique-gang.cycle.p99 (ns, lower is better)' "$d/compare.txt"
grep -q '^groups.clique-gang.wait_s_mean ' "$d/compare.txt"
grep -q '^domains.nvidia.com/gpu.clique.stranded_gpus (GPUs, lower is better)' "$d/compare.txt"
"$0" export --format csv -o "$d/run.csv" "$d/run.json"
grep -q ',groups.clique-gang.placed,' "$d/run.csv"
grep -q ',domains.topology.kubernetes.io/rack.partial,count,lower,' "$d/run.csv"
"$0" report -o "$d/report" "$d/run.json" > /dev/null
test -s "$d/report/domains-1-1.dat"
test -s "$d/report/domains.gp"
if command -v gnuplot > /dev/null; then ls "$d/report" | grep -q '^domains.*\.svg$'; fi
]=])
add_test(NAME harness.groups.cli
         COMMAND sh -ec "${_groups_cli_script}" $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.groups.cli PROPERTIES LABELS "harness;cli" TIMEOUT 600
                     ENVIRONMENT "${DRA_TEST_ENV}")

# harness.test_fit_bound (test_fit_bound.c) builds seven scenarios under three releases: about
# 25 s of CPU under ASan, minutes of wall time on a loaded machine
if(TEST harness.test_fit_bound)
  set_tests_properties(harness.test_fit_bound PROPERTIES TIMEOUT 900)
endif()

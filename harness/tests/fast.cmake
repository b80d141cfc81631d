# harness/tests/fast.cmake - `drabench run` with the fast and the reference allocator make the
# same decisions: equal decision digests and outcome counts per built-in scenario (small
# counts, no warm-up). Arguments of the script: drabench, output dir, scenario, count.
set(_fast_digest_script [=[
out="$1/fast-digest-$2"
"$0" run "$2" --allocator reference -n "$3" -w 0 -r 1 -q -o "$out-ref.json"
"$0" run "$2" --allocator fast -n "$3" -w 0 -r 1 -q -o "$out-fast.json"
test "$(jq -r .run.allocator "$out-fast.json")" = fast
test "$(jq -r .run.allocator "$out-ref.json")" = reference
a=$(jq -r .digest "$out-ref.json"); b=$(jq -r .digest "$out-fast.json")
echo "reference $a fast $b"
test -n "$a" && test "$a" = "$b"
u1=$(jq -c '.repetitions[0].values["outcomes.unsatisfiable"]' "$out-ref.json")
u2=$(jq -c '.repetitions[0].values["outcomes.unsatisfiable"]' "$out-fast.json")
test "$u1" = "$u2"
]=])
function(dra_fast_digest_test scn count)
  add_test(NAME harness.fast.digest_${scn}
           COMMAND sh -ec "${_fast_digest_script}" $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
                   ${scn} ${count}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.fast.digest_${scn} PROPERTIES LABELS "harness;bench-smoke"
                       TIMEOUT 900 ENVIRONMENT "${DRA_TEST_ENV}")
endfunction()
dra_fast_digest_test(default 300)
dra_fast_digest_test(sched-perf-500 600)
dra_fast_digest_test(nvl72-training 200)
dra_fast_digest_test(mig-inference 30)
dra_fast_digest_test(gpu-sharing 300)
# Every built-in scenario under every placement policy and release profile (short prefixes): the
# fast allocator (its exact fast paths included) and the reference decide alike (equal decision
# digests and outcome counts). Arguments: drabench, output dir, scenario, count, policies.
set(_fast_matrix_script [=[
out="$1/fast-matrix-$2"
for policy in $4; do
  for release in 1.34 1.35 1.36; do
    for al in reference fast; do
      "$0" run "$2" --allocator $al --policy $policy --release $release -n "$3" -w 0 -r 1 -q \
        --invariants off -o "$out-$al.json"
    done
    a=$(jq -r .digest "$out-reference.json"); b=$(jq -r .digest "$out-fast.json")
    u1=$(jq -c '.repetitions[0].outcomes' "$out-reference.json")
    u2=$(jq -c '.repetitions[0].outcomes' "$out-fast.json")
    echo "$policy $release: reference $a fast $b; $u1 $u2"
    test -n "$a" && test "$a" = "$b" && test "$u1" = "$u2"
  done
done
]=])
function(dra_fast_matrix_test scn count labels)
  set(policies "first-fit best-fit spread random")
  if(ARGC GREATER 3)
    set(policies "${ARGV3}")
  endif()
  add_test(NAME harness.fast.matrix_${scn}
           COMMAND sh -ec "${_fast_matrix_script}" $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
                   ${scn} ${count} ${policies}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.fast.matrix_${scn} PROPERTIES LABELS "${labels}" TIMEOUT 1800
                       ENVIRONMENT "${DRA_TEST_ENV}")
endfunction()
# the reference allocator gathers pools per node and call: large clusters, MIG and the
# unsatisfiable storm only in Release (label bench), and on fleet-50k only first-fit (best-fit
# and spread try all 50,000 nodes for every pod)
dra_fast_matrix_test(default 20 "harness;no-asan")
dra_fast_matrix_test(sched-perf-500 20 "harness;no-asan")
dra_fast_matrix_test(nvl72-training 20 "harness;no-asan")
dra_fast_matrix_test(unsat-storm 3 "harness;bench")
dra_fast_matrix_test(mig-inference 4 "harness;bench")
dra_fast_matrix_test(fleet-5k 6 "harness;bench")
dra_fast_matrix_test(fleet-50k 3 "harness;bench" "first-fit")
dra_fast_matrix_test(gpu-sharing 20 "harness;no-asan")
# The PodGroup scenarios: every policy and every release with the workload gates (1.36 needs
# GangScheduling as well; 1.37 merged it into GenericWorkload). --allocator both runs the
# literal reference cycle (every placement, every pod, every node, on the engine's exact answers)
# beside the fast cycle on every PodGroup arrival and retry and exits 3 at a different decision
# (single pods: one compared, the reference placement on 4500 nodes being what it is); its
# decision digest equals the fast run's. harness.groups.reference_* below runs the literal cycle
# on the reference allocator itself (--allocator reference) on smaller clusters.
set(_group_matrix_script [=[
out="$1/group-matrix-$(basename "$2" .yaml)"
for policy in $4; do
  for release in 1.36 1.37 1.38-pre; do
    gate=""
    test "$release" = 1.36 && gate="--feature GangScheduling=true"
    "$0" run "$2" --allocator both --both-prefix 1 --both-groups "$3" --policy $policy --release $release $gate \
      -n "$3" -w 0 -r 1 -q --invariants all -o "$out-both.json"
    "$0" run "$2" --allocator fast --policy $policy --release $release $gate -n "$3" -w 0 -r 1 \
      -q --invariants off -o "$out-fast.json"
    b=$(jq -r .digest "$out-fast.json"); c=$(jq -r .digest "$out-both.json")
    n=$(jq -r '[.repetitions[0].groups.entries[].cycles] | add' "$out-both.json")
    echo "$policy $release: fast $b both $c, $n group cycles compared"
    test -n "$b" && test "$b" = "$c" && test "$n" -gt 0
    test "$(jq -r '.repetitions[0].invariants.violations' "$out-both.json")" = 0
    if test "$5" = reference; then
      "$0" run "$2" --allocator reference --policy $policy --release $release $gate -n "$3" -w 0 \
        -r 1 -q --invariants off -o "$out-reference.json"
      a=$(jq -r .digest "$out-reference.json")
      g1=$(jq -c '.repetitions[0].groups.entries' "$out-reference.json")
      g2=$(jq -c '.repetitions[0].groups.entries' "$out-fast.json")
      echo "  reference $a"
      test "$a" = "$b" && test "$g1" = "$g2"
    fi
  done
done
]=])
function(dra_group_matrix_test name scn count labels ref)
  add_test(NAME harness.groups.${name}
           COMMAND sh -ec "${_group_matrix_script}" $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
                   ${scn} ${count} "first-fit best-fit spread random" ${ref}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.groups.${name} PROPERTIES LABELS "${labels}" TIMEOUT 1800
                       ENVIRONMENT "${DRA_TEST_ENV}")
endfunction()
dra_group_matrix_test(matrix_nvl72-gangs nvl72-gangs 200 "harness;no-asan" both)
dra_group_matrix_test(matrix_superpod-gangs superpod-gangs 300 "harness;no-asan" both)
dra_group_matrix_test(reference_groups-small harness/tests/data/groups-small.yaml 400 "harness"
                      reference)

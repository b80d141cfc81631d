# harness/tests/replay.cmake - command-line tests of `drabench replay`: a tiny hand-computed
# trace, strict CSV errors (exit 2 with file:line: reason), and the --emit round trip through
# `drabench validate` and `drabench alloc`. Included by dra_add_unit_tests(harness ...).
set(_rp ${PROJECT_BINARY_DIR}/replay-tests)
file(MAKE_DIRECTORY ${_rp})

# Two nodes of two T4s; two 0.6-GPU shares and one 2-GPU pod. In any order first-fit ends with
# both shares on one node ([400, 400] milli free) and the 2-GPU pod on the other: 3200 / 4000 =
# 80% allocated; the typical classes (share 600: 2 pods, 2 GPUs: 1 pod) both strand the 800 free
# milli: 20% of all GPU, 100% of idle. Device plugin: the shares take whole GPUs, 100% allocated,
# 80% of the capacity asked for.
file(WRITE ${_rp}/nodes.csv "sn,cpu_milli,memory_mib,gpu,model\nn-0,64000,262144,2,T4\nn-1,64000,262144,2,T4\n")
file(WRITE ${_rp}/pods.csv "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
p-0,4000,8192,1,600,,LS,Running,0,10,0
p-1,4000,8192,1,600,T4|P100,LS,Running,0,10,0
p-2,8000,16384,2,1000,,LS,Running,0,10,0
")

function(dra_replay_test name script)
  add_test(NAME harness.cli_replay.${name}
           COMMAND sh -c "${script}" sh $<TARGET_FILE:drabench> ${_rp}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.cli_replay.${name} PROPERTIES LABELS "unit;harness;cli"
                       TIMEOUT 120 ENVIRONMENT "${DRA_TEST_ENV}")
endfunction()

dra_replay_test(help [=[set -e; "$1" replay --help | grep -q '^drabench replay - '; "$1" replay --help | grep -q 'Exit status'; ! "$1" replay --help | grep -q '%%']=])

# The hand-computed curve end, for both device choices; device plugin.
dra_replay_test(tiny_first_fit [=[
for dc in policy dra; do
  "$1" replay --nodes "$2/nodes.csv" --pods "$2/pods.csv" --policy first-fit --tune 0.8 \
      --device-choice $dc -o json > "$2/ff-$dc.json" || exit 1
  jq -e '.runs[0].curve | length == 9 and (.[0].gpu_alloc_ratio_pct == 0) and
         (.[-1].gpu_alloc_ratio_pct == 80) and (.[-1].frag_amount_pct_of_total == 20) and
         (.[-1].frag_ratio_pct_of_idle == 100) and (.[-1].arrived_gpu_pct == 80)' \
      "$2/ff-$dc.json" >/dev/null || { echo "device choice $dc:"; cat "$2/ff-$dc.json"; exit 1; }
done
"$1" replay --nodes "$2/nodes.csv" --pods "$2/pods.csv" --policy first-fit --tune 0.8 \
    --mode device-plugin --device-choice policy,dra -o json > "$2/ff-dp.json" || exit 1
jq -e '[.runs[] | .curve[-1] | .gpu_alloc_ratio_pct == 100 and .served_demand_pct == 80] == [true, true]' \
    "$2/ff-dp.json" >/dev/null || { cat "$2/ff-dp.json"; exit 1; }
]=])

# Same seed, same output; every policy runs on the tiny trace and schedules the three pods.
dra_replay_test(deterministic_all_policies [=[
a=$("$1" replay --nodes "$2/nodes.csv" --pods "$2/pods.csv" --policy all,first-fit,spread --seeds 1..3 -o json | jq -c '[.runs[] | .curve, .unscheduled_mean]') || exit 1
b=$("$1" replay --nodes "$2/nodes.csv" --pods "$2/pods.csv" --policy all,first-fit,spread --seeds 1..3 -o json | jq -c '[.runs[] | .curve, .unscheduled_mean]') || exit 1
test "$a" = "$b" || { echo "differs"; exit 1; }
"$1" replay --nodes "$2/nodes.csv" --pods "$2/pods.csv" --policy all --tune 0.8 -o json |
  jq -e '[.runs[].per_seed[0].pods_submitted] == [3,3,3,3,3,3]' >/dev/null
]=])

# Strict CSV: each bad input exits 2 and names file:line and the reason.
set(_bad_cases
  "hdr|sn,cpu,memory_mib,gpu,model\n|hdr.csv:1: header: column 2|nodes"
  "int|sn,cpu_milli,memory_mib,gpu,model\nn-0,64000,262144,2,T4\nn-1,6.4,262144,2,T4\n|int.csv:3: cpu_milli: \"6.4\" is not|nodes"
  "gpus|sn,cpu_milli,memory_mib,gpu,model\nn-0,64000,262144,99,T4\n|gpus.csv:2: gpu: 99 is out of range|nodes"
  "fields|sn,cpu_milli,memory_mib,gpu,model\nn-0,64000,262144,2\n|fields.csv:2: want 5 fields, got 4|nodes"
  "dup|sn,cpu_milli,memory_mib,gpu,model\nn-0,1,1,1,T4\nn-0,1,1,1,T4\n|dup.csv:3: duplicate name \"n-0\" (also on line 2)|nodes"
  "quote|sn,cpu_milli,memory_mib,gpu,model\n\"n-0\",1,1,1,T4\n|quote.csv:2: quoted fields are not supported|nodes"
  "name|sn,cpu_milli,memory_mib,gpu,model\nNode_0,1,1,1,T4\n|name.csv:2: sn: \"Node_0\" is not a DNS subdomain|nodes"
  "milli|name,cpu_milli,memory_mib,num_gpu,gpu_milli\np-0,1,1,1,1001\n|milli.csv:2: gpu_milli: 1001 is out of range|pods"
  "sharen|name,cpu_milli,memory_mib,num_gpu,gpu_milli\np-0,1,1,2,500\n|sharen.csv:2: gpu_milli 500 with num_gpu 2|pods"
  "zero|name,cpu_milli,memory_mib,num_gpu,gpu_milli\np-0,1,1,0,500\n|zero.csv:2: num_gpu 0 with gpu_milli 500|pods"
  "spec|name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\np-0,1,1,1,500,T4|a\"b,LS,Running,0,1,0\n|spec.csv:2: quoted fields|pods"
  "empty|name,cpu_milli,memory_mib,num_gpu,gpu_milli\n\np-0,1,1,1,500\n|empty.csv:2: empty line|pods")
foreach(c IN LISTS _bad_cases)
  string(REPLACE "|" ";" parts "${c}")
  list(GET parts 0 n)
  list(GET parts 1 body)
  list(GET parts 2 msg)
  list(GET parts 3 which)
  string(REPLACE "\\n" "\n" body "${body}")
  file(WRITE ${_rp}/${n}.csv "${body}")
  if(which STREQUAL "nodes")
    set(_args "--nodes \"$2/${n}.csv\" --pods \"$2/pods.csv\"")
  else()
    set(_args "--nodes \"$2/nodes.csv\" --pods \"$2/${n}.csv\"")
  endif()
  dra_replay_test(csv_${n} "\"$1\" replay ${_args} >/dev/null 2>\"$2/${n}.err\"; rc=$?; test $rc -eq 2 || { echo exit $rc; exit 1; }; grep -F -q '${msg}' \"$2/${n}.err\" || { cat \"$2/${n}.err\"; exit 1; }")
endforeach()
dra_replay_test(missing_file [=["$1" replay --nodes "$2/no-such.csv" --pods "$2/pods.csv" 2>/dev/null; test $? -eq 2]=])
dra_replay_test(bad_option [=["$1" replay --nodes "$2/nodes.csv" --pods "$2/pods.csv" --policy tetris 2>/dev/null; test $? -eq 2]=])
dra_replay_test(bad_tune [=[for t in 0.05 3.5 nan x; do "$1" replay --nodes "$2/nodes.csv" --pods "$2/pods.csv" --tune $t 2>/dev/null; test $? -eq 2 || exit 1; done
"$1" replay --nodes "$2/nodes.csv" --pods "$2/pods.csv" --tune 0.1 -o json | jq -e '.runs[0].curve | length == 2' >/dev/null]=])

# --emit: the objects read back by validate (no errors) and alloc (all three claims allocated,
# the shares on n-0's two GPUs, the 2-GPU claim on n-1). The Node allocatable round trip is
# checked in test_replay.c.
dra_replay_test(emit_validate_alloc [=[
rm -rf "$2/emit"
"$1" replay --nodes "$2/nodes.csv" --pods "$2/pods.csv" --tune 0.8 --emit "$2/emit" >/dev/null || exit 1
grep -F -q 'model in [\"T4\", \"P100\"]' "$2/emit/replay.yaml" || { echo "no selector"; exit 1; }
"$1" validate "$2/emit" || exit 1
"$1" alloc -f "$2/emit" -o json > "$2/alloc.json" || exit 1
jq -e '[.items[] | select(.kind == "ResourceClaim") | .status.allocation.devices.results[] | "\(.pool)/\(.device)"] ==
       ["n-0/gpu-0", "n-0/gpu-1", "n-1/gpu-0", "n-1/gpu-1"]' "$2/alloc.json" >/dev/null || { cat "$2/alloc.json"; exit 1; }
]=])

# drabench report on replay results: the plots' scripts and tables; untrusted fields rejected
# (a policy that is not one drabench knows, as a gnuplot injection would need); a file name
# with a quote and a newline does not break the gnuplot script.
dra_replay_test(report [=[
rm -rf "$2/rep" "$2/MARKER"
"$1" replay --nodes "$2/nodes.csv" --pods "$2/pods.csv" --policy fgd,best-fit --device-choice policy,dra --tune 0.8 --result "$2/r.json" >/dev/null || exit 1
evil="$2/evil'
x.json"
cp "$2/r.json" "$evil"
"$1" report -o "$2/rep" "$2/r.json" "$evil" >/dev/null || exit 1
grep -F -q 'fgd, dra choice, dra mode \[r.json\] | - | 80.00 | 20.00 | 100.00 | 0.0 |' "$2/rep/report.md" || { cat "$2/rep/report.md"; exit 1; }
grep -F -q "title 'best-fit, policy choice, dra mode [evil__x.json]'" "$2/rep/replay-alloc.gp" || { cat "$2/rep/replay-alloc.gp"; exit 1; }
test "$(ls "$2"/rep/replay-run-*.dat | wc -l)" -eq 8 || exit 1
sed 's/"policy": "fgd"/"policy": "fgd\\nsystem(\\"touch MARKER\\")"/' "$2/r.json" > "$2/bad.json"
"$1" report -o "$2/rep2" "$2/bad.json" 2>"$2/bad.err"; rc=$?
test $rc -eq 2 && grep -q 'bad.json: runs\[0\].policy: not a known policy' "$2/bad.err" && test ! -e "$2/rep2/MARKER" && test ! -e MARKER
]=])

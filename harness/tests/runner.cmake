# harness/tests/runner.cmake - tests of `drabench run` (the runner), included by
# dra_add_unit_tests(harness ...). Unit tests test_runner*.c are globbed; this file adds the
# malloc-counting link options and the command-line tests (processes, signals, schema via jq).

# Count allocations of the runner's own code inside timed regions (test_runner_malloc.c).
if(TARGET harness_test_runner_malloc)
  target_link_options(harness_test_runner_malloc PRIVATE
    -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=aligned_alloc,--wrap=posix_memalign,--wrap=strdup)
endif()

set(_rt ${PROJECT_BINARY_DIR}/runner-tests)
file(MAKE_DIRECTORY ${_rt})

# A small scenario for the command-line tests.
file(WRITE ${_rt}/small.yaml "apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: runner-cli-small}
spec:
  seed: 11
  release: \"1.36\"
  cluster:
    nodes:
    - {profile: dgx-h100, count: 3, name: dgx}
    - {profile: cpu-only, count: 2, name: cpu}
  workload:
    mode: fill
    count: 40
    mix:
    - {shape: gpu-1, weight: 3}
    - {shape: gpu-n, count: 2, weight: 1}
  placement: first-fit
  run: {warmup: 10, repetitions: 2, invariants: all}
")

# Schema check of a result file with jq 1.6: required keys and their types (results/README.md).
file(WRITE ${_rt}/schema.jq [=[
def hex: type == "string" and test("^[0-9a-f]{16}$");
def int: type == "number" and . == floor;
def req(k; t): if has(k) and (.[k] | t) then true else error("missing or mistyped: \(k)") end;
def hist: req("name"; type == "string") and req("shape"; type == "string")
  and req("phase"; IN("node_search", "allocate", "commit", "release", "pod"))
  and req("outcome"; IN("allocated", "unsatisfiable", "any"))
  and req("lowest"; int) and req("highest"; int) and req("sigfigs"; int) and req("min"; int) and req("p90"; int)
  and req("count"; int) and req("p50"; int) and req("p99"; int) and req("p999"; int) and req("max"; int)
  and req("buckets"; type == "array" and all(.[]; length == 2 and (.[0] | int) and (.[1] | int)))
  and ((.buckets | map(.[1]) | add // 0) == .count or error("buckets do not sum to count: \(.name)"));
def rep: req("index"; int) and req("wall_ns"; int) and req("pods"; int) and req("claims"; int)
  and req("digest"; hex)
  and req("outcomes"; type == "object")
  and (.outcomes | req("allocated"; int) and req("unsatisfiable"; int) and req("node_failure"; int) and req("fatal"; int))
  and req("values"; type == "object" and all(.[]; type == "number"))
  and (.values | req("throughput.claims_per_s"; type == "number") and req("latency.pod.p99"; type == "number"))
  and req("histograms"; type == "array" and all(.[]; hist))
  and req("fragmentation"; type == "object")
  and (.fragmentation | req("idle_gpus_unusable"; type == "number") and req("stranded_mig_fraction"; type == "number")
       and req("partial_nvlink_domains"; type == "number") and req("samples"; type == "array"))
  and req("invariants"; type == "object") and (.invariants | req("checked"; int) and req("violations"; int));
req("schema"; . == "drabench-result/v1")
and req("status"; IN("complete", "interrupted"))
and req("digest"; hex)
and req("tool"; type == "object")
and (.tool | req("name"; . == "drabench") and req("version"; type == "string") and req("git"; type == "string")
     and req("compiler"; type == "string") and req("native"; type == "boolean") and req("kernel"; type == "object")
     and req("deps"; type == "object"))
and req("host"; type == "object")
and (.host | req("hostname"; type == "string") and req("date"; test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$"))
     and req("kernel"; type == "string") and req("cpu_model"; type == "string") and req("cpus"; int)
     and req("mhz"; type == "number" or type == "null") and req("governor"; type == "string")
     and req("caches"; type == "array") and req("load_avg"; type == "array" and length == 3)
     and req("hw_counters"; type == "boolean") and req("executable"; type == "string"))
and req("run"; type == "object")
and (.run | req("scenario"; type == "string") and req("scenario_hash"; hex) and req("cluster_hash"; hex)
     and req("workload_hash"; hex) and req("seed"; test("^[0-9]+$")) and req("seed_hex"; hex)
     and req("release"; IN("1.34", "1.35", "1.36")) and req("features"; type == "object")
     and req("upstream_bugs"; type == "boolean") and req("allocator"; type == "string")
     and req("policy"; IN("first-fit", "best-fit", "spread", "random"))
     and req("invariant_mode"; type == "string" and test("^(off|full|sample=.+)$"))
     and req("method"; type == "object") and req("argv"; type == "array")
     and (.method | req("warmup"; int) and req("repetitions"; int) and req("timer"; . == "CLOCK_MONOTONIC")
          and req("timer_resolution_ns"; int) and req("hist_sigfigs"; int) and req("interleaving"; type == "string")))
and req("cluster"; type == "object")
and (.cluster | req("nodes"; int) and req("slices"; int) and req("devices"; int) and req("pools"; int)
     and req("build_ns"; int) and req("table_build_ns"; int) and req("table_bytes"; int)
     and req("bytes_per_device"; type == "number") and req("arena_high_water_bytes"; int))
and req("metrics"; type == "object" and all(.[]; (.unit | type == "string") and (.better | IN("higher", "lower")) and (.exact | type == "boolean")))
and (. as $d | [.repetitions[].values | keys[]] | all(. as $k | $d.metrics | has($k)) or error("a values key is not in metrics"))
and req("repetitions"; type == "array" and all(.[]; rep))
and req("invariants"; type == "object")
and (.invariants | req("mode"; type == "string") and req("checked"; int) and req("violations"; int)
     and req("first"; type == "array"))
]=])

set(_run_env "${DRA_TEST_ENV};RT=${_rt}")

function(dra_runner_cli_test name script)
  add_test(NAME harness.runner.${name} COMMAND sh -ec "${script}" WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.runner.${name} PROPERTIES LABELS "unit;harness;bench-smoke" TIMEOUT 900
                       ENVIRONMENT "${_run_env}")
endfunction()

# The built-in default scenario with full invariants: zero violations, a valid file.
dra_runner_cli_test(cli_default [=[
out="$RT/default.json"; rm -f "$out"
"$DRABENCH" run --repeat 1 --warmup 0 --invariants full --progress never -o "$out" > "$RT/default.txt"
jq -e '.status == "complete" and .invariants.violations == 0 and .invariants.checked > 0 and .run.scenario == "default"' "$out" > /dev/null
jq -e -f "$RT/schema.jq" "$out" > /dev/null
grep -q '^invariants  full: [0-9]* checked, 0 violation' "$RT/default.txt"
grep -q "^written     $out" "$RT/default.txt"
]=])

# Two processes with one seed give one digest; another seed another; the schema holds.
dra_runner_cli_test(cli_digest_processes [=[
"$DRABENCH" run "$RT/small.yaml" -q -o "$RT/a.json"
"$DRABENCH" run "$RT/small.yaml" -q -o "$RT/b.json"
"$DRABENCH" run "$RT/small.yaml" -q --seed 12 -o "$RT/c.json"
da=$(jq -r .digest "$RT/a.json"); db=$(jq -r .digest "$RT/b.json"); dc=$(jq -r .digest "$RT/c.json")
test -n "$da" && test "$da" = "$db" && test "$da" != "$dc"
jq -e '[.repetitions[].digest] | unique | length == 1' "$RT/a.json" > /dev/null
jq -e '.repetitions | length == 2' "$RT/a.json" > /dev/null
for f in a b c; do jq -e -f "$RT/schema.jq" "$RT/$f.json" > /dev/null; done
]=])

# The injected fault (a duplicated device) is caught: exit 3, violations recorded with claim and node.
dra_runner_cli_test(cli_inject_fault [=[
rc=0; DRA_TEST_INJECT_FAULT=3 "$DRABENCH" run "$RT/small.yaml" -q -o "$RT/fault.json" || rc=$?
test "$rc" = 3
jq -e '.invariants.violations > 0 and (.invariants.first[0].node | length > 0) and (.invariants.first[0].claim | length > 0) and .run.test_inject_fault == 3' "$RT/fault.json" > /dev/null
rc=0; DRA_TEST_INJECT_FAULT=3 "$DRABENCH" run "$RT/small.yaml" -q --invariants off -o "$RT/fault-off.json" || rc=$?
test "$rc" = 0
]=])

# The delay hook is recorded and shows in the latency; -o - writes JSON to stdout and the table to stderr.
dra_runner_cli_test(cli_delay_and_stdout [=[
DRA_TEST_DELAY_NS=300000 "$DRABENCH" run "$RT/small.yaml" --progress never -o - > "$RT/delay.json" 2> "$RT/delay.txt"
jq -e '.run.test_delay_ns == 300000 and .repetitions[0].values["latency.pod.p50"] >= 300000' "$RT/delay.json" > /dev/null
grep -q '^scenario    runner-cli-small' "$RT/delay.txt"
jq -e -f "$RT/schema.jq" "$RT/delay.json" > /dev/null
]=])

# SIGINT stops at a pod boundary and still writes a valid file marked "interrupted".
dra_runner_cli_test(cli_sigint [=[
out="$RT/intr.json"; rm -f "$out" "$RT/intr.txt"
"$DRABENCH" run "$RT/small.yaml" --repeat 100000 --warmup 0 --invariants off --progress auto -o "$out" > "$RT/intr.txt" 2>&1 &
pid=$!
i=0; while [ $i -lt 600 ] && ! grep -q 'rep 2/100000' "$RT/intr.txt"; do sleep 0.1; i=$((i+1)); done
kill -INT $pid
rc=0; wait $pid || rc=$?
test "$rc" = 130
jq -e '.status == "interrupted" and (.repetitions | length >= 1) and (.digest | test("^[0-9a-f]{16}$"))' "$out" > /dev/null
jq -e -f "$RT/schema.jq" "$out" > /dev/null
]=])

# Usage errors exit 2 with a hint; --help exits 0.
dra_runner_cli_test(cli_usage [=[
"$DRABENCH" run --help | head -1 | grep -q '^drabench run - '
for a in "--policy worst" "--invariants sample=2" "--repeat 0" "--bogus" "--release 1.99" "--feature NoSuchGate=true" "--allocator quick"; do
  rc=0; "$DRABENCH" run $a -o /dev/null 2> "$RT/usage.txt" || rc=$?
  test "$rc" = 2; grep -q "Try 'drabench run --help'" "$RT/usage.txt"
done
rc=0; "$DRABENCH" run no-such-scenario -q -o "$RT/none.json" 2>/dev/null || rc=$?
test "$rc" = 2 && test ! -e "$RT/none.json"
]=])

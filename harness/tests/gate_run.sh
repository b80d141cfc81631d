#!/bin/sh
# gate_run.sh CASE - end-to-end checks of `drabench run` and `export` behind the gate
# (harness/tests/gate.cmake). Small scenarios, seconds under sanitizers. Needs $DRABENCH and jq;
# runs from the project root.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
root=$(pwd)
case "$DRABENCH" in /*) ;; *) DRABENCH=$root/$DRABENCH ;; esac
cat >"$T/small.yaml" <<'YAML'
apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: gate-small}
spec:
  seed: 5
  release: "1.36"
  cluster:
    nodes:
    - {profile: dgx-h100, count: 2, name: dgx}
    - {profile: a100-mig-dynamic, count: 1, name: mig}
  workload:
    mode: fill
    count: 30
    mix:
    - {shape: gpu-1, weight: 3}
    - {shape: mig-1g.5gb, weight: 1}
    - weight: 1
      template:
        name: typo-class
        requests:
        - {name: gpu, deviceClassName: gpu.nvidia.con, count: 1}
    - weight: 1
      template:
        name: bad-selector
        requests:
        - {name: gpu, deviceClassName: gpu.nvidia.com, count: 1, selectors: ["device.attributes['gpu.nvidia.com'].productName == "]}
  placement: first-fit
  run: {warmup: 5, repetitions: 3, invariants: all}
YAML

case "$1" in
independent_reps)
    # every repetition starts from the same state: exact counters equal (and non-zero) in every
    # repetition, also without a warm-up; both throughput definitions are in the file
    for w in 0 5; do
        "$DRABENCH" run "$T/small.yaml" -q -w $w -o "$T/r$w.json" || fail "run -w $w"
        jq -e '[.repetitions[].values["search.cel_evaluations"]] | (unique | length == 1) and .[0] > 0' "$T/r$w.json" >/dev/null \
            || fail "search.cel_evaluations differs between repetitions (-w $w): $(jq -c '[.repetitions[].values["search.cel_evaluations"]]' "$T/r$w.json")"
        jq -e '[.repetitions[].values["search.allocate_one_calls"]] | unique | length == 1' "$T/r$w.json" >/dev/null || fail "allocate_one differs"
    done
    jq -e '.host.fingerprint | test("^[0-9a-f]{16}$")' "$T/r5.json" >/dev/null || fail "no host fingerprint"
    jq -e '.throughput.claims_per_s | (.pooled > 0) and (.median_of_repetitions > 0) and (.min <= .median_of_repetitions) and (.median_of_repetitions <= .max)' "$T/r5.json" >/dev/null || fail "no throughput summary"
    "$DRABENCH" run "$T/small.yaml" -r 3 --progress never -o "$T/t.json" >"$T/t.txt" || fail run
    grep -q '^throughput  median of repetitions [0-9]* allocated claims/s (min [0-9]*, max [0-9]*' "$T/t.txt" || fail "summary does not name the median"
    grep -q 'pooled [0-9]* claims/s' "$T/t.txt" || fail "summary does not name the pooled figure"
    ;;
reasons)
    # fatal outcomes carry the allocator's reason, counted per shape, in the file and the summary
    "$DRABENCH" run "$T/small.yaml" -r 1 --progress never -o "$T/f.json" >"$T/f.txt" || fail run
    jq -e '[.repetitions[0].outcome_reasons[] | select(.outcome == "fatal" and .shape == "typo-class")][0].reason | test("gpu.nvidia.con")' "$T/f.json" >/dev/null || fail "no class reason"
    jq -e '[.repetitions[0].outcome_reasons[] | select(.shape == "bad-selector")][0].reason | test("CEL compile error")' "$T/f.json" >/dev/null || fail "no selector reason"
    jq -e '(.repetitions[0].outcome_reasons | map(.count) | add) == (.repetitions[0].outcomes | .unsatisfiable + .node_failure + .fatal)' "$T/f.json" >/dev/null || fail "reason counts do not add up"
    grep -q 'fatal (typo-class, per repetition): .*gpu.nvidia.con' "$T/f.txt" || fail "summary has no reason"
    ;;
names)
    # default result names carry the scenario and milliseconds and never overwrite
    mkdir "$T/cwd" && cd "$T/cwd" || fail cd
    "$DRABENCH" run "$T/small.yaml" -q -r 1 -w 0 || fail run1
    "$DRABENCH" run "$T/small.yaml" -q -r 1 -w 0 || fail run2
    n=$(ls results/runs | wc -l)
    [ "$n" -eq 2 ] || fail "want 2 result files, got $n: $(ls results/runs)"
    ls results/runs | grep -qE '^gate-small-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}\.[0-9]{3}Z(-[0-9]+)?\.json$' || fail "bad name: $(ls results/runs)"
    for f in results/runs/*.json; do jq -e '.status == "complete"' "$f" >/dev/null || fail "$f"; done
    # a failing run leaves no reserved file behind
    "$DRABENCH" run no-such-scenario -q 2>/dev/null && fail "bad scenario ran"
    [ "$(ls results/runs | wc -l)" -eq 2 ] || fail "a failed run left a file"
    cd "$root" || fail cd
    ;;
eta)
    # progress is reported every 256 arrivals: a run of 600
    "$DRABENCH" run default -n 600 -r 2 -w 0 --invariants off --progress always -o "$T/e.json" >/dev/null 2>"$T/e.err" || fail run
    grep -q 'ETA [0-9]' "$T/e.err" || fail "no ETA in the progress bar"
    ;;
preemptions)
    # a run that shares its CPU with a busy loop is preempted during its measured loops: every
    # repetition records how often (repetitions[].preemptions) and the summary names them
    command -v taskset >/dev/null || { echo "skip: no taskset"; exit 0; }
    cpu=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')
    taskset -c "$cpu" sh -c 'while :; do :; done' &
    spin=$!
    trap 'kill $spin 2>/dev/null; rm -rf "$T"' EXIT
    taskset -c "$cpu" "$DRABENCH" run default -n 300 -r 4 -w 0 --invariants off -o "$T/p.json" >"$T/out" 2>&1
    rc=$?
    kill $spin
    [ $rc -eq 0 ] || { cat "$T/out"; fail run; }
    jq -e '[.repetitions[].preemptions] | length == 4 and all(type == "number" and . >= 0) and add > 0' "$T/p.json" >/dev/null ||
        fail "preemptions not recorded: $(jq -c '[.repetitions[].preemptions]' "$T/p.json")"
    n=$(jq '[.repetitions[] | select(.preemptions > 0)] | length' "$T/p.json")
    s=$(jq '[.repetitions[].preemptions] | add' "$T/p.json")
    grep -q "^preempted   $n of 4 repetition(s) lost the CPU during the measured loop, $s time(s) in all" "$T/out" ||
        { cat "$T/out"; fail "the summary does not name the preempted repetitions"; }
    ;;
csv)
    "$DRABENCH" run "$T/small.yaml" -q -r 2 -w 0 -o "$T/c.json" || fail run
    "$DRABENCH" export --format csv -o "$T/c.csv" "$T/c.json" || fail export
    head -1 "$T/c.csv" | grep -q '^file,scenario,seed,release,policy,allocator,commit,host,date,repetition,metric,unit,better,exact,value' || fail header
    rows=$(($(wc -l <"$T/c.csv") - 1))
    want=$(jq '[.repetitions[].values | length] | add' "$T/c.json")
    [ "$rows" -eq "$want" ] || fail "csv rows $rows, values $want"
    grep -q ',throughput.claims_per_s,claims/s,higher,false,' "$T/c.csv" || fail "no throughput row"
    # a text field that a spreadsheet would evaluate is neutralised
    jq '.run.scenario = "=HYPERLINK(\"x\")"' "$T/c.json" >"$T/evil.json"
    "$DRABENCH" export --format csv "$T/evil.json" | grep -q ',"'"'"'=HYPERLINK(""x"")",' || fail "formula not neutralised"
    ;;
delay20)
    # a 20% slowdown (DRA_TEST_DELAY_NS = a fifth of the measured timed work per claim) at the
    # scenario's default repetitions (3) is inconclusive or a regression, never PASS
    "$DRABENCH" run default -n 200 -w 20 --invariants off -q -o "$T/a.json" || fail run
    jq -e '.repetitions | length == 3' "$T/a.json" >/dev/null || fail "default repetitions are not 3"
    d=$(jq '[.repetitions[].values["throughput.claims_per_s"]] | sort | .[1] | 1e9 / . * 0.2 | floor | if . < 1 then 1 else . end' "$T/a.json")
    DRA_TEST_DELAY_NS=$d "$DRABENCH" run default -n 200 -w 20 --invariants off -q -o "$T/b.json" || fail run
    "$DRABENCH" compare "$T/a.json" "$T/b.json" >"$T/out" 2>&1; rc=$?
    echo "delay $d ns per claim: compare exit $rc"
    [ $rc -eq 1 ] || [ $rc -eq 5 ] || { cat "$T/out"; fail "a 20% slowdown at 3 repetitions gave exit $rc"; }
    ;;
self20)
    # the same build compared with itself passes 20 times in a row with the default gate: one
    # run's 16 repetitions split into halves of 8 in 20 different ways, each half a result file.
    # The split is the alternation the project measures by (MEASUREMENT.md: ABAB, never AABB):
    # repetitions 2i and 2i+1 go one to each half, which one by bit i of a mask that differs
    # from compare to compare. A load that comes and goes on a shared host then falls on both
    # halves alike; a split by random permutation can put most of one slow stretch of the run
    # into one half, and the gate rightly calls the halves different.
    # A run whose repetitions were disturbed one by one (preemptions inside timed calls) may still
    # split into halves that really differ; such a run is measured again, at most three runs in
    # all, and one of them must pass all 20 compares.
    attempt=1
    while :; do
        "$DRABENCH" run default -n 300 -r 16 -w 50 --invariants off -q -o "$T/s.json" || fail run
        [ "$(jq '[.repetitions[].index] | sort == [range(16)]' "$T/s.json")" = true ] ||
            fail "repetitions are not indexed 0..15"
        k=1
        while [ $k -le 20 ]; do
            # the mask (k * 157 + 91) mod 256 takes 20 different values for k = 1..20
            for half in x y; do
                jq --argjson k $k --arg half $half '
                    def side: ((($k * 157 + 91) % 256) / pow(2; (.index / 2) | floor) | floor) % 2
                              == .index % 2;
                    .repetitions |= map(select(side == ($half == "x")))' \
                    "$T/s.json" >"$T/$half.json"
            done
            [ "$(jq '.repetitions | length' "$T/x.json")" = 8 ] || fail "split $k: not 8 repetitions"
            "$DRABENCH" compare "$T/x.json" "$T/y.json" >"$T/out" 2>&1 || break
            k=$((k + 1))
        done
        [ $k -gt 20 ] && break
        cat "$T/out"
        [ $attempt -lt 3 ] || fail "compare $k of 20 failed in 3 runs"
        echo "self20: run $attempt failed compare $k of 20; measuring again"
        attempt=$((attempt + 1))
    done
    ;;
cluster)
    # a real cluster's manifests as the cluster: --cluster DUMP with a workload scenario, and a
    # scenario whose cluster is only manifests (no node groups)
    R=${DRA_SHARED:-../shared}/real-manifests
    [ -r "$R/dra-example-driver/gpu-default.derived.yaml" ] || { echo "skip: no shared manifests"; exit 0; }
    { cat "$R/dra-example-driver/gpu-default.derived.yaml"; echo "---"; cat "$R/k8s-website-examples/driver-install/deviceclass.yaml"; } >"$T/dump.yaml"
    cat >"$T/w.yaml" <<'YAML'
apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: example-gpus}
spec:
  seed: 1
  release: "1.36"
  cluster:
    manifests: [dump.yaml]
  workload:
    mode: fill
    count: 12
    mix:
    - weight: 1
      template:
        name: one-gpu
        requests:
        - {name: gpu, deviceClassName: gpu.example.com, count: 1}
  placement: first-fit
  run: {warmup: 0, repetitions: 1, invariants: all}
YAML
    "$DRABENCH" run "$T/w.yaml" -q -o "$T/m.json" || fail "manifests-only scenario"
    jq -e '.cluster.nodes == 1 and .cluster.devices == 8 and .repetitions[0].outcomes.allocated == 8 and .repetitions[0].outcomes.unsatisfiable == 4' "$T/m.json" >/dev/null || fail "manifests-only: $(jq -c '.cluster, .repetitions[0].outcomes' "$T/m.json")"
    "$DRABENCH" run --cluster "$T/dump.yaml" "$T/small.yaml" -q -r 1 -w 0 -o "$T/c.json" || fail "--cluster"
    jq -e '.run.cluster_file | endswith("dump.yaml")' "$T/c.json" >/dev/null || fail "cluster_file not recorded"
    jq -e '.cluster.nodes == 1 and .cluster.devices == 8' "$T/c.json" >/dev/null || fail "--cluster did not replace the generated cluster"
    # no NVIDIA device in that cluster: nothing is allocated and every outcome says why
    jq -e '.repetitions[0].outcomes.allocated == 0 and (.repetitions[0].outcome_reasons | map(.count) | add) == .repetitions[0].pods and ([.repetitions[0].outcome_reasons[].reason] | any(test("gpu.nvidia.con")))' "$T/c.json" >/dev/null || fail "reasons: $(jq -c '.repetitions[0].outcome_reasons' "$T/c.json")"
    ;;
gen_list_json)
    "$DRABENCH" gen --list --json >"$T/l.json" || fail "gen --list --json"
    jq -e '(.profiles | map(.name) | index("dgx-h100")) != null and (.shapes | map(.name) | index("gpu-1")) != null and ([.scenarios[] | select(.name == "default")][0] | .repetitions == 3 and .count == 4000 and .mode == "steady")' "$T/l.json" >/dev/null || fail "gen --list --json content"
    ;;
validate)
    # a class no device can satisfy and a selector that does not compile are reported by
    # validate, for a scenario and for gen output with --cluster
    "$DRABENCH" validate "$T/small.yaml" 2>"$T/v.err"; rc=$?
    [ $rc -eq 2 ] || { cat "$T/v.err"; fail "validate of a bad scenario exited $rc"; }
    grep -q 'small.yaml:[0-9]*:[0-9]*: error: spec.workload.mix\[2\] (typo-class): request gpu: device class gpu.nvidia.con does not exist' "$T/v.err" || { cat "$T/v.err"; fail "no class error"; }
    grep -q 'spec.workload.mix\[3\] (bad-selector): request gpu: request selector #0 does not compile' "$T/v.err" || fail "no selector error"
    "$DRABENCH" validate corpora/scenarios/default.yaml corpora/scenarios/mig-inference.yaml 2>"$T/ok.err" || { cat "$T/ok.err"; fail "built-in scenarios invalid"; }
    "$DRABENCH" gen "$T/small.yaml" -o "$T/gen" >/dev/null || fail gen
    "$DRABENCH" validate --cluster "$T/gen" 2>"$T/g.err"; rc=$?
    [ $rc -eq 2 ] || fail "validate --cluster of gen output exited $rc"
    grep -q 'ResourceClaimTemplate/typo-class: request gpu: device class gpu.nvidia.con does not exist' "$T/g.err" || fail "gen output: no class error"
    grep -q 'ResourceClaimTemplate/bad-selector: .*does not compile' "$T/g.err" || fail "gen output: no selector error"
    # a class that exists but that no device satisfies
    sed 's/deviceClassName: gpu.nvidia.con/deviceClassName: mig.nvidia.com/; s/- {shape: mig-1g.5gb, weight: 1}//; s/profile: a100-mig-dynamic/profile: cpu-only/' "$T/small.yaml" >"$T/nodev.yaml"
    "$DRABENCH" validate "$T/nodev.yaml" 2>"$T/n.err"
    grep -q 'spec.workload.mix\[1\] (typo-class): request gpu: no node of the cluster offers a device of class mig.nvidia.com' "$T/n.err" || { cat "$T/n.err"; fail "no unsatisfiable-class error"; }
    ;;
across)
    # 1.35 against 1.36 on one workload: not comparable by default, information with --across
    # release: per shape the pods whose outcome, node or devices changed
    "$DRABENCH" run default -n 200 -w 0 -r 1 --invariants off --release 1.35 -q -o "$T/a.json" || fail run
    "$DRABENCH" run default -n 200 -w 0 -r 1 --invariants off --release 1.36 -q -o "$T/b.json" || fail run
    jq -e '.decisions.pods == 200 and (.decisions.shapes | length) == 9' "$T/b.json" >/dev/null || fail "no decision records"
    "$DRABENCH" compare "$T/a.json" "$T/b.json" >"$T/out" 2>&1; rc=$?
    [ $rc -eq 2 ] || fail "release 1.35 vs 1.36 without --across exited $rc"
    grep -q '(release 1.35 vs 1.36)' "$T/out" || fail "no release message"
    "$DRABENCH" compare --across release --format json "$T/a.json" "$T/b.json" >"$T/j.json" 2>/dev/null; rc=$?
    [ $rc -ne 2 ] && [ $rc -ne 3 ] || fail "--across release exited $rc"
    jq -e '[.shape_changes[] | select(.shape == "all")][0] | .pods_compared == 200 and .pods_changed > 0 and .digest_differs' "$T/j.json" >/dev/null || fail "per-pod changes: $(jq -c .shape_changes "$T/j.json")"
    jq -e '([.shape_changes[] | select(.shape != "all") | .pods_changed] | add) == ([.shape_changes[] | select(.shape == "all")][0].pods_changed)' "$T/j.json" >/dev/null || fail "per-shape changes do not add up"
    # fit apart from speed: 1.36 places more (the MIG claims 1.35 rejects); the aggregates over
    # all shapes are information across inputs, the per-shape latencies say whether it is slower
    jq -e '.fit_speed[0] | .placed_new > .placed_base and .rejected_new < .rejected_base and .shapes_compared > 0' "$T/j.json" >/dev/null || fail "fit_speed: $(jq -c .fit_speed "$T/j.json")"
    jq -e '[.rows[] | select(.metric == "throughput.claims_per_s" or (.metric | startswith("latency.pod."))) | .not_gated | test("mix that fits")] | all' "$T/j.json" >/dev/null || fail "aggregates gated across inputs"
    "$DRABENCH" compare --across release "$T/a.json" "$T/b.json" >"$T/t.txt" 2>&1
    grep -q '^fit and speed across inputs (release 1.35 vs 1.36):' "$T/t.txt" || fail "no fit and speed line"
    grep -q 'more claims fit; ' "$T/t.txt" || fail "fit not read: $(grep -A1 '^fit and speed' "$T/t.txt")"
    # the same inputs twice: nothing changed
    "$DRABENCH" run default -n 200 -w 0 -r 1 --invariants off --release 1.36 -q -o "$T/c.json" || fail run
    "$DRABENCH" run default -n 200 -w 0 -r 1 --invariants off --release 1.36 --policy spread -q -o "$T/d.json" || fail run
    "$DRABENCH" compare --across policy --format json "$T/c.json" "$T/d.json" >"$T/p.json" 2>/dev/null
    jq -e '[.shape_changes[] | select(.shape == "all")][0].pods_changed > 0' "$T/p.json" >/dev/null || fail "first-fit vs spread changed nothing"
    "$DRABENCH" compare --across policy --format json "$T/b.json" "$T/c.json" >"$T/s.json" 2>/dev/null
    jq -e '.shape_changes | length == 0' "$T/s.json" >/dev/null || fail "equal inputs reported as crossed"
    ;;
ci)
    # the committed nightly workflow and the README's GitLab example are YAML (drabench's reader
    # finds no syntax error, only that they are not Kubernetes objects) and run scripts/nightly
    # on a dedicated runner, cache the build, keep artifacts, summarize, and fail on 1 and 3
    w=.github/workflows/nightly.yml
    "$DRABENCH" validate "$w" 2>"$T/w.err"
    grep -q 'YAML syntax error' "$T/w.err" && { cat "$T/w.err"; fail "$w is not YAML"; }
    for want in 'cron:' 'runs-on: \[self-hosted, linux, drabench-bench\]' 'scripts/nightly --budget' \
                'fetch-depth: 0' 'actions/cache@' 'path: build/release' 'path: build/ab' \
                'path: results/baseline/local' 'actions/upload-artifact@' 'ab.md' \
                'GITHUB_STEP_SUMMARY' '1) echo .*exit 1' '3) echo .*exit 3'; do
        grep -q "$want" "$w" || fail "$w lacks $want"
    done
    awk '/^```yaml$/ {on = 1; next} /^```$/ {on = 0} on' README.md | awk '/^nightly:/ {on = 1} on' >"$T/gitlab.yml"
    grep -q 'scripts/nightly' "$T/gitlab.yml" || fail "no GitLab example in README.md"
    "$DRABENCH" validate "$T/gitlab.yml" 2>"$T/g.err"
    grep -q 'YAML syntax error' "$T/g.err" && { cat "$T/g.err"; fail "the GitLab example is not YAML"; }
    for sc in scripts/nightly scripts/ab-build scripts/ab-campaign; do
        bash -n "$sc" || fail "$sc has a syntax error"
        "$sc" --help >"$T/h.txt" || fail "$sc --help"
    done
    scripts/nightly --help | grep -q 'drabench ab BASE NEW' || fail "scripts/nightly --help does not name drabench ab"
    # the nightly's timing pass extends a sitting whose floor is above the threshold (ab --extend)
    grep -qE '^"\$bin" ab .*--budget "\$left" --extend 1 ' scripts/nightly || fail "scripts/nightly does not run ab with --extend 1"
    # ab.md escapes what reaches Markdown (suite names, notes, reasons) by dra_esc_md's rule:
    # the nightly's own jq definition, applied to a hostile name
    jq_md=$(sed -n "s/^jq_md='\\(.*\\)'\$/\\1/p" scripts/nightly)
    [ -n "$jq_md" ] || fail "scripts/nightly defines no jq_md"
    got=$(printf '%s' '{"s":"a|b<i>&[x](y)`z`!\nnext"}' | jq -r "$jq_md"'.s | md')
    [ "$got" = 'a\|b&lt;i&gt;&amp;\[x\](y)\`z\`\! next' ] || fail "ab.md escaping: got '$got'"
    grep -q '\\(\$s | md)' scripts/nightly && grep -q 'extension.reason | md' scripts/nightly ||
        fail "scripts/nightly writes a name or a reason into ab.md unescaped"
    # the campaign refuses what ab cannot judge before it runs anything
    scripts/ab-campaign --rounds 5 >"$T/c.txt" 2>&1; [ $? -eq 2 ] || fail "ab-campaign --rounds 5 is not a usage error"
    grep -q 'at least 6' "$T/c.txt" || fail "ab-campaign does not say why"
    scripts/ab-campaign --only no-such-scenario >/dev/null 2>&1; [ $? -eq 2 ] || fail "ab-campaign --only of no line is not a usage error"
    grep -q 'scripts/nightly' "$T/gitlab.yml" && grep -q 'build/ab' "$T/gitlab.yml" || fail "the GitLab example does not cache the base builds"
    ;;
*)
    fail "unknown case $1"
    ;;
esac
echo "ok: $1"

#!/bin/sh
# gate.sh CASE - checks of the regression gate of `drabench compare` (harness/tests/gate.cmake):
# result files derived with jq from the hand-made fixtures of corpora/golden/compare/, each case
# asserting an exit status and the message a user reads. Needs $DRABENCH and jq; runs from the
# project root.
set -u
D=corpora/golden/compare
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# expect WANT OUTFILE ARGS...: run compare, check the exit status
expect() {
    want=$1; o=$2; shift 2
    "$DRABENCH" compare "$@" >"$o" 2>&1; rc=$?
    [ "$rc" -eq "$want" ] || { cat "$o"; fail "compare $* exited $rc, want $want"; }
}
derive() { jq "$2" "$D/$1" >"$T/$3" || fail "jq $2"; }

case "$1" in
few_samples)
    # 3 repetitions per side: the U test cannot reach alpha 0.05, so a 20% slowdown and no change
    # alike are inconclusive (exit 5), never PASS
    derive base-default.json '.repetitions |= .[:3]' b.json
    derive regress-default.json '.repetitions |= .[:3]' r.json
    derive noise-default.json '.repetitions |= .[:3]' n.json
    expect 5 "$T/out" "$T/b.json" "$T/r.json"
    grep -q '^gate: INCONCLUSIVE (exit 5)' "$T/out" || fail "no INCONCLUSIVE gate line"
    grep -q 'inconclusive: throughput.claims_per_s of default: 3 vs 3 sample(s)' "$T/out" || fail "no reason"
    expect 5 "$T/out" "$T/b.json" "$T/n.json"
    # 4 per side can: the same slowdown is a regression
    derive base-default.json '.repetitions |= .[:4]' b4.json
    derive regress-default.json '.repetitions |= .[:4]' r4.json
    expect 1 "$T/out" "$T/b4.json" "$T/r4.json"
    ;;
other_host)
    # timings of another host are refused with the differing facts named; exact metrics and
    # digests still compare
    derive noise-default.json '.host.cpu_model = "Other CPU" | .host.kernel = "6.9.0" | .host.hostname = "fixture-host"' h.json
    expect 5 "$T/out" "$D/base-default.json" "$T/h.json"
    grep -q "cpu_model 'Fixture CPU @ 2.0GHz' vs 'Other CPU'; kernel '6.1.0' vs '6.9.0'" "$T/out" || fail "facts not named"
    grep -q 'not compared (other host)' "$T/out" || fail "timing rows not refused"
    expect 0 "$T/out" --exact-only "$D/base-default.json" "$T/h.json"
    grep -q '^throughput\.' "$T/out" && fail "--exact-only still shows timings"
    derive digest-default.json '.host.cpu_model = "Other CPU"' hd.json
    expect 3 "$T/out" --exact-only "$D/base-default.json" "$T/hd.json"
    derive noise-default.json '.host.load_avg = [3.5, 2, 1]' busy.json
    expect 0 "$T/out" "$D/base-default.json" "$T/busy.json"
    grep -q 'busy.json: the host was busy when the run started (load average 3.50 on 2 CPUs)' "$T/out" || fail "no busy-host warning"
    derive noise-default.json '.tool.flags = "-O3 -march=native"' fl.json
    expect 5 "$T/out" "$D/base-default.json" "$T/fl.json"
    grep -q "flags" "$T/out" || fail "build flags not named"
    # timings the builds define differently (timing version 1: every claim in throughput,
    # checks between the timed pods; 2: allocated claims only) are refused like another host's
    derive noise-default.json '.run.method.timing_version = 2' tv.json
    expect 5 "$T/out" "$D/base-default.json" "$T/tv.json"
    grep -q 'timing definitions differ: .*base-default.json has timing version 1, .*tv.json 2' "$T/out" || fail "timing versions not named"
    expect 0 "$T/out" --exact-only "$D/base-default.json" "$T/tv.json"
    # nor releases timed with the look-ahead elsewhere (drabench run --release-look-ahead); a
    # file without the field ran it timed, the only place before the option
    derive noise-default.json '.run.method.release_look_ahead = "untimed"' la.json
    expect 5 "$T/out" "$D/base-default.json" "$T/la.json"
    grep -q 'release timings measured differently: .*base-default.json ran its release look-ahead timed, .*la.json untimed' "$T/out" || fail "look-ahead places not named"
    derive noise-default.json '.run.method.release_look_ahead = "timed"' lt.json
    expect 0 "$T/out" "$D/base-default.json" "$T/lt.json"
    ;;
inputs_differ)
    derive base-default.json '.run.workload_count = 500' b.json
    derive noise-default.json '.run.workload_count = 600 | .digest = "1111111111111111" | .repetitions[].digest = "1111111111111111"' c.json
    expect 2 "$T/out" "$T/b.json" "$T/c.json"
    grep -q 'not comparable: inputs of scenario default differ (count 500 vs 600)' "$T/out" || fail "no count message"
    expect 0 "$T/out" --across count "$T/b.json" "$T/c.json"
    grep -q 'decisions across inputs (count 500 vs 600)' "$T/out" || fail "no per-shape section"
    grep -q 'decision digest differs' "$T/out" || fail "digest change not reported as information"
    derive noise-default.json '.run.seed = "43"' s.json
    expect 2 "$T/out" "$D/base-default.json" "$T/s.json"
    grep -q '(seed 42 vs 43)' "$T/out" || fail "no seed message"
    expect 0 "$T/out" --across seed "$D/base-default.json" "$T/s.json"
    derive noise-default.json '.run.release = "1.36"' rel.json
    expect 2 "$T/out" "$D/base-default.json" "$T/rel.json"
    grep -q -- '--across release' "$T/out" || fail "no --across hint"
    expect 0 "$T/out" --across release,policy "$D/base-default.json" "$T/rel.json"
    derive noise-default.json '.run.policy = "spread"' pol.json
    expect 2 "$T/out" "$D/base-default.json" "$T/pol.json"
    derive noise-default.json '.run.allocator = "fast"' al.json
    expect 2 "$T/out" "$D/base-default.json" "$T/al.json"
    expect 2 "$T/out" --across bogus "$D/base-default.json" "$T/al.json"
    ;;
sets)
    # a base scenario missing from the new set fails the gate
    expect 1 "$T/out" "$D/base-default.json" "$D/base-mig-inference.json" -- "$D/noise-default.json"
    grep -q 'scenario mig-inference is in the base but has no complete result' "$T/out" || fail "no missing line"
    # an interrupted new file is excluded: its scenario is then missing
    derive noise-mig-inference.json '.status = "interrupted"' i.json
    expect 1 "$T/out" "$D/base-default.json" "$D/base-mig-inference.json" -- "$D/noise-default.json" "$T/i.json"
    grep -q 'excluded from the gate' "$T/out" || fail "interrupted file not excluded"
    # 0 repetitions or no values: invalid
    derive noise-default.json '.repetitions = []' z.json
    expect 2 "$T/out" "$D/base-default.json" "$T/z.json"
    grep -q 'invalid: no repetitions' "$T/out" || fail "no zero-repetition message"
    derive noise-default.json '.repetitions[].values = {}' v.json
    expect 2 "$T/out" "$D/base-default.json" "$T/v.json"
    grep -q 'invalid: no metric values' "$T/out" || fail "no no-values message"
    ;;
noise)
    # 60 ns -> 80 ns (+33%, significant) is below the noise floor; p99 of a shape with 44 pods
    # per repetition is not gated even at +50%
    derive base-default.json '.repetitions |= map(.values["latency.pod.p50"] = 60 + .index)' b.json
    derive noise-default.json '.repetitions |= map(.values["latency.pod.p50"] = 80 + .index | .values["latency.pod.p99"] *= 1.5)' c.json
    expect 0 "$T/out" "$T/b.json" "$T/c.json"
    grep -q '~ (noise: |Δ| < 100ns' "$T/out" || fail "no noise note"
    grep -q 'not gated: 44 pods per repetition, need >= 1000 for p99' "$T/out" || fail "p99 of 44 pods gated"
    # 1 us -> 2 us on p50 of 44 pods per repetition is not gated (fewer than 100) ...
    derive noise-default.json '.repetitions |= map(.values["latency.pod.p50"] *= 2)' d.json
    expect 0 "$T/out" "$D/base-default.json" "$T/d.json"
    grep -q 'not gated: 44 pods per repetition, need >= 100 for p50' "$T/out" || fail "p50 of 44 pods gated"
    # ... with 200 pods per repetition it gates
    big='.repetitions[].histograms |= map(if .name == "all/pod/any" then .count = 200 | .buckets = [[1000, 200]] else . end)'
    derive base-default.json "$big" b200.json
    derive noise-default.json "$big"' | .repetitions |= map(.values["latency.pod.p50"] *= 2)' d200.json
    expect 1 "$T/out" "$T/b200.json" "$T/d200.json"
    ;;
report_same_gate)
    # one source of thresholds: the report's comparison section gives compare's verdict for the
    # same files and the same gate (none, the nightly gate file, a stricter threshold)
    for g in "" "--gate corpora/nightly-gate.yaml" "--gate $D/e2e-gate.yaml" "--threshold 2%"; do
        for set in regress within noise; do
            "$DRABENCH" compare $g "$D/base-default.json" "$D/$set-default.json" >/dev/null 2>&1; want=$?
            rm -rf "$T/rep"
            "$DRABENCH" report --no-plots $g -o "$T/rep" "$D/base-default.json" "$D/$set-default.json" >/dev/null 2>&1 || fail "report $g"
            grep -q "^Exit status $want:" "$T/rep/report.md" || fail "report with '$g' on $set does not say exit $want: $(grep '^Exit status' "$T/rep/report.md")"
        done
    done
    ;;
preempted)
    # repetitions the kernel preempted during their measured loop (repetitions[].preemptions):
    # one of six is left to the median, two of six (a third) are named in a warning that does
    # not change the verdict; counts too large to add saturate; a negative count is refused
    derive noise-default.json '.repetitions[0].preemptions = 3' one.json
    expect 0 "$T/out" "$D/base-default.json" "$T/one.json"
    grep -q 'lost the CPU' "$T/out" && fail "one preempted repetition of six warned"
    derive noise-default.json '.repetitions[0].preemptions = 3 | .repetitions[4].preemptions = 2' two.json
    expect 0 "$T/out" "$D/base-default.json" "$T/two.json"
    grep -q 'two.json: 2 of its 6 repetitions lost the CPU during their measured loop (5 preemptions)' "$T/out" || fail "no preemption warning"
    "$DRABENCH" compare -f json "$D/base-default.json" "$T/two.json" | jq -e '.warnings | any(test("2 of its 6 repetitions lost the CPU"))' >/dev/null || fail "warning not in the JSON report"
    derive noise-default.json '.repetitions[] |= (.preemptions = 4611686018427387904)' huge.json
    expect 0 "$T/out" "$D/base-default.json" "$T/huge.json"
    grep -q '6 of its 6 repetitions lost the CPU during their measured loop (9223372036854775807 preemptions)' "$T/out" || fail "the sum did not saturate"
    derive noise-default.json '.repetitions[1].preemptions = -1' neg.json
    "$DRABENCH" compare "$D/base-default.json" "$T/neg.json" >"$T/out" 2>&1 && fail "a negative count was taken"
    grep -q 'neg.json.*preemptions' "$T/out" || { cat "$T/out"; fail "the negative count is not named"; }
    ;;
*)
    fail "unknown case $1"
    ;;
esac
echo "ok: $1"

#!/bin/sh
# ab.sh CASE - checks of `drabench ab` (harness/tests/ab.cmake) with a small scenario: seconds under
# sanitizers. Needs $DRABENCH and jq; runs from the project root.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
root=$(pwd)
case "$DRABENCH" in /*) ;; *) DRABENCH=$root/$DRABENCH ;; esac
cat >"$T/small.yaml" <<'YAML'
apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: ab-small}
spec:
  seed: 3
  release: "1.36"
  cluster:
    nodes:
    - {profile: dgx-h100, count: 4, name: dgx}
  workload:
    mode: fill
    count: 40
    mix:
    - {shape: gpu-1, weight: 3}
    - {shape: gpu-n, count: 2, weight: 1}
  placement: first-fit
  run: {warmup: 10, repetitions: 3, invariants: all}
YAML
printf '%s\n' "# a comment" "" "$T/small.yaml --repeat 3 --invariants off" >"$T/suite.txt"

case "$1" in
mechanics)
    # a gross planted slowdown (2x) on B: a regression, exit 1; the JSON holds the method, every
    # round with its order and samples, the interval, p and the noise floor. With 6 rounds the
    # signed-rank test needs B slower in every one, and under a loaded CI run (tests in parallel,
    # sanitizers, a timed region of about a millisecond) one A process slowed 2x turned a round
    # and the verdict (p 0.062). With 10 rounds, B slower in 8 with the two others the closest
    # still gives p < 0.05: the test checks the mechanics, not that the machine is quiet
    # A sitting of about 10 s whose three A/A rounds met a burst of the host's load gets a noise
    # floor above the planted change (54% once, the change -24%) and passes it as below the floor:
    # the gate doing its job on a noisy sitting, not the mechanics failing. Such a sitting is
    # measured once more, with another seed; the second must find the regression.
    for seed in 5 6; do
        "$DRABENCH" ab "$DRABENCH" "$DRABENCH" --suite "$T/suite.txt" --rounds 10 --aa 3 --seed $seed \
            --env-b DRA_TEST_SLOWDOWN_PCT=100 -q -o "$T/ab.json" >"$T/ab.txt" 2>"$T/ab.err"; rc=$?
        [ $rc -eq 0 ] && grep -q 'below the A/A noise floor' "$T/ab.txt" || break
        echo "a noisy sitting (seed $seed): its A/A floor hid the planted change; once more"
    done
    [ $rc -eq 1 ] || { cat "$T/ab.txt" "$T/ab.err"; fail "a 2x slowdown gave exit $rc, want 1"; }
    grep -q '^gate: FAIL: regression (exit 1)' "$T/ab.txt" || fail "no gate line"
    grep -q 'REGRESSION' "$T/ab.txt" || fail "no REGRESSION row"
    jq -e '.schema == "drabench-ab/v1" and .exit_status == 1 and .method.rounds == 10 and .method.aa_rounds == 3 and (.method.seed == "5" or .method.seed == "6") and (.b.environment == ["DRA_TEST_SLOWDOWN_PCT=100"]) and (.a.environment == [])' "$T/ab.json" >/dev/null || fail "method: $(jq -c .method "$T/ab.json")"
    jq -e '.scenarios | length == 1' "$T/ab.json" >/dev/null || fail "scenarios"
    s='.scenarios[0]'
    jq -e "$s.args == [\"--repeat\", \"3\", \"--invariants\", \"off\"] and ($s.rounds | length == 13) and ([$s.rounds[] | select(.kind == \"ab\")] | length == 10) and ([$s.rounds[] | select(.kind == \"aa\")] | length == 3)" "$T/ab.json" >/dev/null || fail "rounds: $(jq -c "$s.rounds | map(.kind)" "$T/ab.json")"
    jq -e "[$s.rounds[].order] | (index(\"AB\") != null) and (index(\"BA\") != null)" "$T/ab.json" >/dev/null || fail "the order is not randomized: $(jq -c "[$s.rounds[].order]" "$T/ab.json")"
    jq -e "[$s.rounds[] | .a[\"throughput.claims_per_s\"] > 0 and .b[\"throughput.claims_per_s\"] > 0] | all" "$T/ab.json" >/dev/null || fail "samples"
    jq -e "[$s.rounds[] | select(.kind == \"ab\") | select(.b[\"throughput.claims_per_s\"] < .a[\"throughput.claims_per_s\"])] | length >= 8" "$T/ab.json" >/dev/null || fail "B is not slower in 8 of 10 rounds"
    jq -e "$s.metrics[0] | .metric == \"throughput.claims_per_s\" and .better == \"higher\" and .verdict == \"regression\" and .rounds == 10 and .aa_rounds == 3 and .ratio < 0.9 and .interval[1] < 1 and .p < 0.05 and .noise_floor_pct >= 0 and .noise_floor_aa_only_pct >= 0 and (.aa_only_interval | length) == 2 and .change_pct < -10 and .slowdown_pct > 11" "$T/ab.json" >/dev/null || fail "verdict: $(jq -c "$s.metrics[0]" "$T/ab.json")"
    jq -e "$s.decisions_equal and ($s.digest_a | test(\"^[0-9a-f]{16}$\"))" "$T/ab.json" >/dev/null || fail "digests"
    # the planted slowdown is in the timed work only: the same decisions; Markdown and JSON on stdout
    "$DRABENCH" ab "$DRABENCH" "$DRABENCH" "$T/small.yaml" --run-args "-r 3 --invariants off" --rounds 6 --aa 3 --seed 9 -q --format md >"$T/ab.md" 2>/dev/null; rc=$?
    [ $rc -ne 2 ] && [ $rc -ne 4 ] || fail "A/A sitting exited $rc"
    grep -q '^## drabench ab: ' "$T/ab.md" || fail "no Markdown heading"
    # every process runs a fresh copy of its executable in the sitting's temporary directory,
    # removed after it (two files of the same bytes time differently); --in-place runs the file
    jq -e '.method.executable == "a fresh copy per process"' "$T/ab.json" >/dev/null || fail "method.executable: $(jq -c .method.executable "$T/ab.json")"
    mkdir -p "$T/tmp" "$T/kc" "$T/ki"
    TMPDIR="$T/tmp" "$DRABENCH" ab "$DRABENCH" "$DRABENCH" "$T/small.yaml" --run-args "-r 1 --invariants off" --rounds 2 --aa 1 --seed 3 -q --keep "$T/kc" -o "$T/c.json" >/dev/null 2>&1; rc=$?
    [ $rc -ne 2 ] && [ $rc -ne 4 ] || fail "a sitting with copies exited $rc"
    [ -z "$(ls -A "$T/tmp")" ] || fail "the sitting left files in its temporary directory: $(ls -AR "$T/tmp")"
    [ "$(cat "$T"/kc/*.json | jq -r '.host.executable' | grep -cE "^$T/tmp/drabench-ab\.[^/]+/p[0-9]+-[AB]\$")" -eq 6 ] || fail "the processes did not run fresh copies: $(cat "$T"/kc/*.json | jq -r .host.executable)"
    [ "$(cat "$T"/kc/*.json | jq -r '.host.executable' | sort -u | wc -l)" -eq 6 ] || fail "a copy was reused"
    TMPDIR="$T/tmp" "$DRABENCH" ab "$DRABENCH" "$DRABENCH" "$T/small.yaml" --run-args "-r 1 --invariants off" --rounds 2 --aa 1 --seed 3 -q --in-place --keep "$T/ki" -o "$T/i.json" >/dev/null 2>&1
    jq -e '.method.executable == "in place"' "$T/i.json" >/dev/null || fail "--in-place: method.executable $(jq -c .method.executable "$T/i.json")"
    real=$(readlink -f "$DRABENCH")
    [ "$(cat "$T"/ki/*.json | jq -r '.host.executable' | sort -u)" = "$real" ] || fail "--in-place ran $(cat "$T"/ki/*.json | jq -r .host.executable | sort -u), want $real"
    grep -q '| scenario | metric | rounds (A/B+A/A) |' "$T/ab.md" || fail "no Markdown table"
    # no A/A rounds (and too few A/B rounds for a test): the floor and p are dashes, never "nan"
    "$DRABENCH" ab "$DRABENCH" "$DRABENCH" "$T/small.yaml" --run-args "-r 1 --invariants off" --rounds 2 --aa 0 --seed 9 -q --format md >"$T/ab0.md" 2>/dev/null
    grep -q '^| .*small.yaml | throughput' "$T/ab0.md" || fail "no Markdown row without A/A rounds"
    ! grep -qiE '\| -?nan%? \|' "$T/ab0.md" || fail "nan in the Markdown table: $(grep -i nan "$T/ab0.md")"
    ;;
errors)
    expect() { want=$1; shift; "$DRABENCH" ab "$@" >"$T/o" 2>&1; rc=$?; [ $rc -eq "$want" ] || { cat "$T/o"; fail "ab $* exited $rc, want $want"; }; }
    expect 2 "$DRABENCH"
    grep -q "Try 'drabench ab --help'" "$T/o" || fail "no hint"
    expect 2 "$DRABENCH" "$DRABENCH"
    grep -q 'no scenario' "$T/o" || fail "no scenario message"
    expect 2 /nonexistent/drabench "$DRABENCH" "$T/small.yaml"
    grep -q 'A: /nonexistent/drabench is not an executable file' "$T/o" || fail "no executable message"
    expect 2 "$DRABENCH" "$DRABENCH" "$T/small.yaml" --threshold 0
    expect 2 "$DRABENCH" "$DRABENCH" "$T/small.yaml" --env-b NOEQUALS
    expect 2 "$DRABENCH" "$DRABENCH" "$T/small.yaml" --pin 9999
    expect 2 "$DRABENCH" "$DRABENCH" --suite /nonexistent/suite.txt
    # --rev: a revision git does not know is a usage error (scripts/ab-build, nothing built)
    expect 2 --rev no-such-revision-of-drabench "$DRABENCH" "$T/small.yaml"
    grep -q "git knows no commit 'no-such-revision-of-drabench'" "$T/o" || fail "no unknown-revision message"
    printf '%s\n' "--repeat 3 default" >"$T/bad.txt"
    expect 2 "$DRABENCH" "$DRABENCH" --suite "$T/bad.txt"
    grep -q 'bad.txt:1: a line starts with the scenario' "$T/o" || fail "no file:line"
    # a scenario the processes refuse: exit 2 with the process's own message
    expect 2 "$DRABENCH" "$DRABENCH" no-such-scenario --rounds 6 --aa 3 -q
    grep -q 'no-such-scenario' "$T/o" || fail "the process's message is not shown"
    # a process finding a correctness failure: exit 3, its result file kept
    mkdir "$T/cwd" && cd "$T/cwd" || fail cd
    expect 3 "$DRABENCH" "$DRABENCH" "$T/small.yaml" --run-args "-r 1" --rounds 6 --aa 3 -q --env-b DRA_TEST_INJECT_FAULT=2
    grep -q 'a correctness failure' "$T/o" || fail "no correctness message"
    ls ab-correctness-*-B.json >/dev/null 2>&1 || fail "the failing result file is not kept"
    cd "$root" || fail cd
    "$DRABENCH" ab --help | head -1 | grep -q '^drabench ab - ' || fail "--help"
    ;;
budget)
    # a budget too small for more than one pass: the minimum rounds, with a warning; --keep keeps
    # each process's result file
    "$DRABENCH" ab "$DRABENCH" "$DRABENCH" --suite "$T/suite.txt" --budget 0.01 --seed 3 -q \
        --keep "$T/keep" -o "$T/b.json" >"$T/b.txt" 2>&1; rc=$?
    [ $rc -ne 2 ] && [ $rc -ne 4 ] || { cat "$T/b.txt"; fail "budget sitting exited $rc"; }
    jq -e '.method.rounds == 6 and .method.aa_rounds == 3 and .method.budget_s == 0.01 and (.scenarios[0].rounds | length == 9)' "$T/b.json" >/dev/null || fail "budget rounds: $(jq -c .method "$T/b.json")"
    jq -e '[.warnings[] | test("fits 1 round")] | any' "$T/b.json" >/dev/null || fail "no budget warning: $(jq -c .warnings "$T/b.json")"
    [ "$(ls "$T/keep" | wc -l)" -eq 18 ] || fail "--keep kept $(ls "$T/keep" | wc -l) files, want 18"
    ;;
extend)
    # --extend: a threshold of 0.01% puts every floor above it, so the extension triggers (the
    # runner has no noise knob); 6 + 3 planned rounds, 6 + 3 more, marked, and judged over all
    # 18; the kinds and orders are the seed's: the planned ones as a sitting without --extend
    # (or one where it does not trigger) draws them, the extension's the same in a second
    # sitting of the seed
    kinds() { jq -c '[.scenarios[0].rounds[] | [.kind, .order, .extension]]' "$1"; }
    ext="--rounds 6 --aa 3 --seed 11 -q"
    sit() { out=$1; r=$2; shift 2; eval "\"\$DRABENCH\" ab \"\$DRABENCH\" \"\$DRABENCH\" \"\$T/small.yaml\" --run-args \"-r $r --invariants off\" $ext \"\$@\" -o \"\$T/\$out.json\"" >"$T/$out.txt" 2>&1; rc=$?
        [ $rc -ne 2 ] && [ $rc -ne 4 ] || { cat "$T/$out.txt"; fail "$out: exit $rc"; }; }
    sit x 1 --threshold 0.01% --extend 1 --format md
    e='.scenarios[0]'
    jq -e ".method.extend == 1 and ($e.rounds | length) == 18 and ([$e.rounds[] | select(.extension)] | length) == 9 and ([$e.rounds[0:9][] | select(.extension)] | length) == 0 and ([$e.rounds[9:][] | select(.kind == \"aa\")] | length) == 3" "$T/x.json" >/dev/null || fail "extension rounds: $(kinds "$T/x.json")"
    jq -e "$e.extension | .extended and .rounds == 6 and .aa_rounds == 3 and .planned_rounds == 6 and .planned_aa_rounds == 3 and .cap_rounds == 6 and .cap_aa_rounds == 3 and (.budget_cut | not) and .metric == \"throughput.claims_per_s\" and .noise_floor_pct > 0.01 and .threshold_pct == 0.01 and (.reason | startswith(\"extended by 6 + 3 rounds: after 6 + 3 rounds the A/A noise floor of throughput.claims_per_s\"))" "$T/x.json" >/dev/null || fail "extension: $(jq -c "$e.extension" "$T/x.json")"
    jq -e "$e.metrics[0] | .rounds == 12 and .aa_rounds == 6 and .floor_above_threshold and .before_extension.rounds == 6 and .before_extension.aa_rounds == 3 and .before_extension.floor_above_threshold" "$T/x.json" >/dev/null || fail "metric: $(jq -c "$e.metrics[0]" "$T/x.json")"
    jq -e "$e.metrics[0].before_extension.noise_floor_pct == $e.extension.noise_floor_pct" "$T/x.json" >/dev/null || fail "the floor before the extension is not the one that triggered it"
    grep -q '^- .*small.yaml: extended by 6 + 3 rounds: after 6 + 3 rounds the A/A noise floor' "$T/x.txt" || fail "no extension in the Markdown: $(cat "$T/x.txt")"
    sit x2 1 --threshold 0.01% --extend 1
    grep -q '^  extended by 6 + 3 rounds: after 6 + 3 rounds the A/A noise floor' "$T/x2.txt" || fail "no extension line in the text: $(cat "$T/x2.txt")"
    [ "$(kinds "$T/x.json")" = "$(kinds "$T/x2.json")" ] || fail "the seed does not reproduce the extension: $(kinds "$T/x.json") vs $(kinds "$T/x2.json")"
    sit y 1 --threshold 0.01%
    sit z 3 --threshold 99% --extend 1
    jq -e '.method.extend == null and .scenarios[0].extension == null and .scenarios[0].metrics[0].before_extension == null and .scenarios[0].metrics[0].floor_above_threshold' "$T/y.json" >/dev/null || fail "without --extend: $(jq -c '.scenarios[0].extension' "$T/y.json")"
    jq -e '.scenarios[0].extension == null and (.scenarios[0].metrics[0].floor_above_threshold | not)' "$T/z.json" >/dev/null || fail "a floor below the threshold extended: $(jq -c '.scenarios[0].extension' "$T/z.json")"
    first=$(jq -c '[.scenarios[0].rounds[0:9][] | [.kind, .order, .extension]]' "$T/x.json")
    [ "$first" = "$(kinds "$T/y.json")" ] && [ "$first" = "$(kinds "$T/z.json")" ] || fail "the planned rounds differ: $first, $(kinds "$T/y.json"), $(kinds "$T/z.json")"
    ! grep -q 'extended' "$T/y.txt" "$T/z.txt" || fail "an extension line without an extension"
    # a budget that is spent: the minimum rounds, no extension, and a warning that says why
    sit b 1 --threshold 0.01% --extend 1 --budget 0.01
    jq -e "$e.extension | (.extended | not) and .budget_cut and .rounds == 0 and .budget_left_s == 0 and (.reason | startswith(\"not extended: \"))" "$T/b.json" >/dev/null || fail "budget: $(jq -c "$e.extension" "$T/b.json")"
    jq -e '[.warnings[] | test("budget allowed 0 \\+ 0 of the 6 \\+ 3 more rounds")] | any' "$T/b.json" >/dev/null || fail "no budget warning: $(jq -c .warnings "$T/b.json")"
    expect() { want=$1; shift; "$DRABENCH" ab "$@" >"$T/o" 2>&1; rc=$?; [ $rc -eq "$want" ] || { cat "$T/o"; fail "ab $* exited $rc, want $want"; }; }
    expect 2 "$DRABENCH" "$DRABENCH" "$T/small.yaml" --extend -1
    expect 2 "$DRABENCH" "$DRABENCH" "$T/small.yaml" --extend lots
    ;;
campaign)
    # scripts/ab-campaign on the small scenario, one A/A and one planted sitting of 6 + 3 rounds:
    # its summary, then --summarize rebuilding the same summary from the sittings' files alone
    # (--extend with a 0.01% threshold: both sittings extended, which the summary counts)
    scripts/ab-campaign --bin "$DRABENCH" --suite "$T/suite.txt" -n 1 --small 0 --checks 0 \
        --rounds 6 --aa 3 --ab-args "--extend 1 --threshold 0.01%" --out "$T/c" >"$T/c.txt" 2>&1; rc=$?
    [ $rc -eq 0 ] || [ $rc -eq 1 ] || { cat "$T/c.txt"; fail "campaign exited $rc"; }
    jq -e '.schema == "drabench-ab-campaign/v1" and (.scenarios | length) == 1 and .scenarios[0].aa.sittings == 1 and .scenarios[0].p10.sittings == 1' \
        "$T/c/summary.json" >/dev/null || fail "summary: $(jq -c . "$T/c/summary.json")"
    jq -e '.scenarios[0].floor_above | .aa.sittings == 1 and .aa.extended == 1 and .p10.sittings == 1 and .p10.extended == 1' \
        "$T/c/summary.json" >/dev/null || fail "floor above the threshold: $(jq -c .scenarios[0].floor_above "$T/c/summary.json")"
    grep -q '| 1 (1 extended), 1 (1 extended) |' "$T/c/summary.md" || fail "summary.md: $(cat "$T/c/summary.md")"
    mv "$T/c/summary.json" "$T/first.json" && rm "$T/c/summary.md"
    scripts/ab-campaign --summarize "$T/c" -n 1 --small 0 --checks 0 --rounds 6 --aa 3 >"$T/s.txt" 2>&1; rc2=$?
    [ $rc2 -eq $rc ] || { cat "$T/s.txt"; fail "--summarize exited $rc2, the campaign $rc"; }
    [ -s "$T/c/summary.md" ] || fail "--summarize wrote no summary.md"
    a=$(jq -c '.scenarios[0] | {aa, p10, p3, checks, meets_bar, floor_above}' "$T/first.json")
    b=$(jq -c '.scenarios[0] | {aa, p10, p3, checks, meets_bar, floor_above}' "$T/c/summary.json")
    [ "$a" = "$b" ] || fail "--summarize gives $b, the campaign gave $a"
    scripts/ab-campaign --summarize "$T/nowhere" >"$T/n.txt" 2>&1; [ $? -eq 2 ] || fail "--summarize of no campaign is not a usage error"
    # --plan alone leaves no output directory behind
    before=$(ls "$root/results/ab-campaign" 2>/dev/null | wc -l)
    scripts/ab-campaign --plan --bin "$DRABENCH" --suite "$T/suite.txt" -n 1 >"$T/p.txt" 2>&1 || { cat "$T/p.txt"; fail "--plan failed"; }
    grep -q 'a process' "$T/p.txt" || fail "--plan printed no plan"
    [ "$(ls "$root/results/ab-campaign" 2>/dev/null | wc -l)" -eq "$before" ] || fail "--plan left a directory in results/ab-campaign"
    ;;
*)
    fail "unknown case $1"
    ;;
esac
echo "ok: $1"

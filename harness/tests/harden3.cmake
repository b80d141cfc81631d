# harness/tests/harden3.cmake - command-line tests of issue 24's hardening (outputs never lost
# or mislabelled, numbers exact, memory and time bounded, exit codes and messages), one test per
# defect and its siblings, named after the defect. Included by dra_add_unit_tests(harness ...).

set(_h3 ${PROJECT_BINARY_DIR}/harden3-tests)
file(MAKE_DIRECTORY ${_h3})
set(_h3fix ${PROJECT_SOURCE_DIR}/corpora/golden/compare)

file(WRITE ${_h3}/small.yaml "apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: h3-small}
spec:
  seed: 7
  cluster:
    nodes:
    - {profile: dgx-h100, count: 2, name: dgx}
  workload:
    mode: fill
    count: 10
    mix:
    - {shape: gpu-1, weight: 1}
  run: {warmup: 0, repetitions: 1, invariants: all}
")

set(_h3_env "${DRA_TEST_ENV};HT=${_h3};FIX=${_h3fix}")

# dra_harden3_test(NAME SCRIPT): sh -ec SCRIPT in the source directory, HT = the scratch
# directory, FIX = the compare fixtures, DRABENCH = the binary.
function(dra_harden3_test name script)
  add_test(NAME harness.harden3.${name} COMMAND sh -ec "${script}"
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.harden3.${name} PROPERTIES LABELS "unit;harness" TIMEOUT 300
                       ENVIRONMENT "${_h3_env}")
endfunction()

# 1. A regular file is replaced, wherever it is (/dev/shm, /proc); only devices, FIFOs and our
#    own redirected stdout are written in place. A second write never concatenates documents.
dra_harden3_test(d01_regular_file_replaced [=[
d="$HT/d01"; rm -rf "$d"; mkdir -p "$d"
one() { "$DRABENCH" compare --format json -o "$1" "$FIX/base-default.json" "$FIX/noise-default.json"; }
one "$d/ref.json"
dirs="$d"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then dirs="$dirs /dev/shm"; fi
for dir in $dirs; do
  f="$dir/h3-d01-$$.json"; rm -f "$f"
  one "$f"; one "$f"
  cmp "$f" "$d/ref.json" || { echo "$f: not one document"; rm -f "$f"; exit 1; }
  "$DRABENCH" export --format csv -o "$f" "$FIX/base-default.json"
  "$DRABENCH" export --format csv -o "$f" "$FIX/base-default.json"
  test "$(grep -c '^file,scenario,' "$f")" = 1 || { echo "$f: csv twice"; rm -f "$f"; exit 1; }
  rm -f "$f"
done
# /dev/stdout redirected to a file is still that file, appended to in place
"$DRABENCH" compare --format json -o /dev/stdout "$FIX/base-default.json" "$FIX/noise-default.json" > "$d/so.json"
cmp "$d/so.json" "$d/ref.json"
(echo head; "$DRABENCH" compare --format json -o /dev/stdout "$FIX/base-default.json" "$FIX/noise-default.json") > "$d/so2.json"
test "$(head -n 1 "$d/so2.json")" = head
]=])
# sibling: the report's gnuplot.log holds this report's gnuplot runs, not an earlier report's
dra_harden3_test(d01_gnuplot_log_fresh [=[
d="$HT/d01g"; rm -rf "$d"; mkdir -p "$d"
for w in first second; do
  printf '#!/bin/sh\n[ "$1" = --version ] && exit 0\necho "%s run" >&2\nexit 1\n' "$w" > "$d/gp-$w"
  chmod +x "$d/gp-$w"
  GNUPLOT="$d/gp-$w" "$DRABENCH" report -o "$d/rep" "$FIX/base-default.json" > /dev/null 2>&1 || true
done
grep -q 'second run' "$d/rep/gnuplot.log"
! grep -q 'first run' "$d/rep/gnuplot.log"
]=])

# 8. Numbers are decimal only and range-checked, in every command, environment variable, gate
#    file and script: "010" is ten, "0x10", " -3", "inf" and out-of-range values are refused
#    (exit 2), never read in another base or wrapped.
dra_harden3_test(d08_decimal_options [=[
d="$HT/d08"; rm -rf "$d"; mkdir -p "$d"
printf 'sn,cpu_milli,memory_mib,gpu,model\nn-0,64000,262144,2,T4\n' > "$d/nodes.csv"
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np-0,1000,1024,1,1000\n' > "$d/pods.csv"
RP="replay --nodes $d/nodes.csv --pods $d/pods.csv --policy first-fit"
printf 'default: 5%%\nnoise_floor: 0x10ns\n' > "$d/gate-hex.yaml"
bad() { # exit 2 and no result file
  rc=0; "$DRABENCH" "$@" > "$d/out.txt" 2> "$d/err.txt" || rc=$?
  test "$rc" = 2 || { echo "drabench $*: exit $rc, want 2"; cat "$d/err.txt"; exit 1; }
}
for v in 0x10 ' -3' -3 +3 ' 3' '3 ' 18446744073709551616 ''; do
  bad run "$HT/small.yaml" -q -o "$d/r.json" --seed "$v"
  bad gen "$HT/small.yaml" --json --seed "$v"
  bad $RP --seeds "$v"
  bad alloc -f "$HT/small.yaml" --max-steps "$v"
  bad cel true --bench "$v"
done
bad run "$HT/small.yaml" -q -o "$d/r.json" -w 18446744073709551615
bad run "$HT/small.yaml" -q -o "$d/r.json" --count 0x10
bad run "$HT/small.yaml" -q -o "$d/r.json" --repeat 010x
bad run "$HT/small.yaml" -q -o "$d/r.json" --both-prefix 18446744073709551615
bad run "$HT/small.yaml" -q -o "$d/r.json" --invariants sample=0x1p-1
bad run "$HT/small.yaml" -q -o "$d/r.json" --invariants 'sample= 0.5'
bad run "$HT/small.yaml" -q -o "$d/r.json" --invariants sampled --sample-rate 0x1p-1
bad explain --seed 0x10 -f "$HT/small.yaml"
bad explain --seed 010x -f "$HT/small.yaml"
bad explain --max-steps ' 5' -f "$HT/small.yaml"
bad $RP --seeds 0x2a..0x2b
bad $RP --tune 0x1p0
bad $RP --tune inf
bad compare --threshold 0x10 "$FIX/base-default.json" "$FIX/noise-default.json"
bad compare --threshold ' 5%' "$FIX/base-default.json" "$FIX/noise-default.json"
bad compare --alpha ' 0.05' "$FIX/base-default.json" "$FIX/noise-default.json"
bad compare --alpha nan "$FIX/base-default.json" "$FIX/noise-default.json"
bad compare --gate "$d/gate-hex.yaml" "$FIX/base-default.json" "$FIX/noise-default.json"
bad report --base 0x1 -o "$d/rep" "$FIX/base-default.json" "$FIX/noise-default.json"
rc=0; DRA_TEST_DELAY_NS=0x10 "$DRABENCH" run "$HT/small.yaml" -q -o "$d/r.json" 2> "$d/err.txt" || rc=$?
test "$rc" = 2
test ! -e "$d/r.json"
# a leading zero is decimal
"$DRABENCH" run "$HT/small.yaml" -q -o "$d/r.json" --seed 010 --warmup 02
jq -e '.run.seed == "10" and .run.method.warmup == 2' "$d/r.json" > /dev/null
"$DRABENCH" $RP --seeds 042..043 -o json > "$d/rp.json"
jq -e '[.runs[].per_seed[].seed | tostring] == ["42", "43"]' "$d/rp.json" > /dev/null
# the scripts
for s in "scripts/fuzz --minutes 0x10" "scripts/fuzz --minutes 99999999999999999999" "scripts/fuzz --minutes=-1" \
         "scripts/nightly --budget 0x10" "scripts/nightly --budget 1e3" "scripts/mk-big-slices 0x10" \
         "scripts/mk-big-slices 1e3"; do
  rc=0; $s > /dev/null 2> "$d/err.txt" || rc=$?
  test "$rc" = 2 || { echo "$s: exit $rc, want 2"; cat "$d/err.txt"; exit 1; }
done
test "$(scripts/mk-big-slices 010 | grep -c '^  - name: gpu-')" = 10
if [ -f harness/tests/cel_diff/node_modules/@bufbuild/cel/package.json ] && command -v node > /dev/null; then
  for v in 4294967297 0x10 ' 1' ''; do
    rc=0; node harness/tests/cel_diff/cel_diff.mjs --exe /bin/false --seed "$v" > /dev/null 2>&1 || rc=$?
    test "$rc" = 2 || { echo "cel_diff.mjs --seed '$v': exit $rc, want 2"; exit 1; }
  done
fi
]=])

# 20a. A gate file's noise_floor that overflows (1e306ms is infinite) or lies beyond the
#      histograms' range is refused (exit 2 naming it) instead of silencing every latency change.
dra_harden3_test(d20_noise_floor_bounded [=[
d="$HT/d20n"; rm -rf "$d"; mkdir -p "$d"
for v in 1e306ms 1e300ns 3600001ms; do
  printf 'default: 5%%\nnoise_floor: %s\n' "$v" > "$d/gate.yaml"
  for cmd in compare report; do
    rc=0
    if [ $cmd = compare ]; then
      "$DRABENCH" compare --gate "$d/gate.yaml" "$FIX/base-default.json" "$FIX/regress-default.json" > /dev/null 2> "$d/err.txt" || rc=$?
    else
      "$DRABENCH" report --no-plots --gate "$d/gate.yaml" -o "$d/rep" "$FIX/base-default.json" "$FIX/regress-default.json" > /dev/null 2> "$d/err.txt" || rc=$?
    fi
    test "$rc" = 2 || { echo "$cmd noise_floor $v: exit $rc"; cat "$d/err.txt"; exit 1; }
    grep -q 'gate.yaml:2:[0-9]*: noise_floor: at most 3600000ms' "$d/err.txt" || { cat "$d/err.txt"; exit 1; }
  done
done
printf 'default: 5%%\nnoise_floor: 3600000ms\n' > "$d/gate.yaml"
rc=0; "$DRABENCH" compare --gate "$d/gate.yaml" "$FIX/base-default.json" "$FIX/regress-default.json" > /dev/null 2>&1 || rc=$?
test "$rc" != 2
]=])

# 9. Unsigned 64-bit values are written exactly: replay's seeds as decimal strings (as run writes
#    its seed), run's seed 2^64-1 as such; counts beyond the schema's range are refused up front.
dra_harden3_test(d09_u64_written_exactly [=[
d="$HT/d09"; rm -rf "$d"; mkdir -p "$d"
printf 'sn,cpu_milli,memory_mib,gpu,model\nn-0,64000,262144,2,T4\n' > "$d/nodes.csv"
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np-0,1000,1024,1,1000\n' > "$d/pods.csv"
"$DRABENCH" replay --nodes "$d/nodes.csv" --pods "$d/pods.csv" --policy first-fit \
    --seeds 18446744073709551615,9007199254740993 -o json --result "$d/rp.json" > "$d/rp-out.json"
cmp "$d/rp.json" "$d/rp-out.json"
jq -e '.seeds == ["18446744073709551615", "9007199254740993"] and
       [.runs[0].per_seed[].seed] == ["18446744073709551615", "9007199254740993"]' "$d/rp.json" > /dev/null
grep -q '"18446744073709551615"' "$d/rp.json"
! grep -q -- '-1[,]*$' "$d/rp.json"
"$DRABENCH" report --no-plots -o "$d/rep" "$d/rp.json" > /dev/null
"$DRABENCH" run "$HT/small.yaml" -q -o "$d/r.json" --seed 18446744073709551615 --warmup 1099511627776 --count 1
jq -e '.run.seed == "18446744073709551615" and .run.seed_hex == "ffffffffffffffff" and
       .run.method.warmup == 1099511627776' "$d/r.json" > /dev/null
rc=0; "$DRABENCH" run "$HT/small.yaml" -q -o "$d/r2.json" --warmup 18446744073709551615 2> "$d/err.txt" || rc=$?
test "$rc" = 2
grep -q -- '--warmup: expected a count 0..1099511627776' "$d/err.txt"
]=])

# 2, 3. A mix entry's name is refused up front (exit 2, file:line, the rule) when the result
#    file reserves it ("pod": latency.pod.* holds all shapes, "all": the all-shapes histograms,
#    "slice-update") or when a reader of the result (compare, export, report, bless) or of the
#    generated manifests would refuse it (a space, non-ASCII, '/', uppercase); every name run
#    accepts, every reader accepts.
dra_harden3_test(d02_d03_mix_names [=[
d="$HT/d02"; rm -rf "$d"; mkdir -p "$d"
mk() { sed "s|    - {shape: gpu-1, weight: 1}|    - {shape: gpu-1, weight: 1}\n    - $1|" "$HT/small.yaml" > "$d/s.yaml"; }
for e in '{shape: gpu-1, name: pod}' '{shape: gpu-1, name: all}' '{shape: gpu-1, name: slice-update}' \
         '{shape: gpu-1, name: "my shape"}' '{shape: gpu-1, name: "gpü"}' '{shape: gpu-1, name: "x/y"}' \
         '{shape: gpu-1, name: "Big"}' \
         '{template: {name: pod, requests: [{name: g, deviceClassName: gpu.nvidia.com}]}}'; do
  mk "$e"
  for cmd in "run $d/s.yaml -q -o $d/r.json" "validate $d/s.yaml"; do
    rc=0; "$DRABENCH" $cmd > /dev/null 2> "$d/err.txt" || rc=$?
    test "$rc" = 2 || { echo "$e: $cmd: exit $rc"; cat "$d/err.txt"; exit 1; }
    grep -q 's.yaml:14:[0-9]*: \(error: \)\{0,1\}spec.workload.mix\[1\]\.\(template\.\)\{0,1\}name: ' "$d/err.txt" || { echo "$e:"; cat "$d/err.txt"; exit 1; }
  done
  test ! -e "$d/r.json"
done
mk '{shape: gpu-1, name: pods.x-1}'
"$DRABENCH" run "$d/s.yaml" -q -o "$d/r.json"
jq -e '.repetitions[0].values | has("latency.pods.x-1.p50")' "$d/r.json" > /dev/null
"$DRABENCH" compare "$d/r.json" -- "$d/r.json" > /dev/null || test $? = 5
"$DRABENCH" export --format csv "$d/r.json" > /dev/null
"$DRABENCH" export --format benchfmt "$d/r.json" > /dev/null
"$DRABENCH" report --no-plots -o "$d/rep" "$d/r.json" > /dev/null
"$DRABENCH" baseline bless --dir "$d/bl" "$d/r.json" > /dev/null
"$DRABENCH" gen "$d/s.yaml" -o "$d/gen" > /dev/null
"$DRABENCH" validate "$d/gen" > /dev/null
]=])

# 5. run --hgrm writes one file per histogram (shapes x/y and x_y wrote the same files): the
#    file name encodes the shape injectively (test_hist: test_hgrm_file_names), and such names
#    are refused by the scenario rule anyway.
dra_harden3_test(d05_hgrm_one_file_per_histogram [=[
d="$HT/d05"; rm -rf "$d"; mkdir -p "$d"
sed 's|    - {shape: gpu-1, weight: 1}|    - {shape: gpu-1, weight: 1, name: "x/y"}\n    - {shape: gpu-1, weight: 1, name: x_y}|' "$HT/small.yaml" > "$d/bad.yaml"
rc=0; "$DRABENCH" run "$d/bad.yaml" -q -o "$d/bad.json" --hgrm "$d/badh" 2> "$d/err.txt" || rc=$?
test "$rc" = 2 || { echo "x/y and x_y: exit $rc"; ls "$d/badh" 2>/dev/null; exit 1; }
sed 's|    - {shape: gpu-1, weight: 1}|    - {shape: gpu-1, weight: 1, name: x.y}\n    - {shape: gpu-1, weight: 1, name: x-y}|' "$HT/small.yaml" > "$d/ok.yaml"
"$DRABENCH" run "$d/ok.yaml" -q -o "$d/ok.json" --hgrm "$d/h"
want=$(jq '[.repetitions[0].histograms[] | select(.count > 0)] | length' "$d/ok.json")
test "$(ls "$d/h" | grep -c '\.hgrm$')" = "$want"
test -s "$d/h/x.y_pod_any.hgrm" && test -s "$d/h/x-y_pod_any.hgrm" && test -s "$d/h/all_pod_any.hgrm"
]=])

# 4. scripts/nightly refuses a suite whose lines share a scenario (default and default --policy
#    spread wrote one out/default.json and blessed the baseline twice with the second), before
#    it builds or runs anything; the check by metadata.name follows the probe.
dra_harden3_test(d04_nightly_one_file_per_line [=[
d="$HT/d04"; rm -rf "$d"; mkdir -p "$d"
printf '# suite\ndefault --warmup 5\n\ndefault --policy spread\n' > "$d/suite.txt"
rc=0; timeout 60 scripts/nightly --suite "$d/suite.txt" --out "$d/out" > "$d/out.txt" 2>&1 || rc=$?
test "$rc" = 2 || { echo "exit $rc"; cat "$d/out.txt"; exit 1; }
grep -q "suite.txt: lines 2 and 4 run the same scenario file name 'default'" "$d/out.txt"
test ! -e "$d/out"
]=])
# sibling: scripts/compare-releases writes DIR/<release>/<name>.json per suite line, so two lines
# of one scenario lost the first result there too; refused by file name before anything runs,
# by metadata.name after the first release's runs (before the other releases and compare).
dra_harden3_test(d04_compare_releases_one_file_per_line [=[
d="$HT/d04c"; rm -rf "$d"; mkdir -p "$d"
printf '# suite\ndefault --count 10\n\ndefault --policy spread\n' > "$d/suite.txt"
rc=0; timeout 60 scripts/compare-releases --bin "$DRABENCH" --suite "$d/suite.txt" --out "$d/out" > "$d/out.txt" 2>&1 || rc=$?
test "$rc" = 2 || { echo "exit $rc"; cat "$d/out.txt"; exit 1; }
grep -q "suite.txt: lines 2 and 4 run the same scenario file name 'default'" "$d/out.txt"
test ! -e "$d/out"
cp "$HT/small.yaml" "$d/a.yaml"; cp "$HT/small.yaml" "$d/b.yaml"
printf '%s/a.yaml\n%s/b.yaml --count 5\n' "$d" "$d" > "$d/suite2.txt"
rc=0; timeout 120 scripts/compare-releases --bin "$DRABENCH" --repeat 1 --suite "$d/suite2.txt" --out "$d/out" > "$d/out.txt" 2>&1 || rc=$?
test "$rc" = 2 || { echo "exit $rc"; cat "$d/out.txt"; exit 1; }
grep -q "suite2.txt: lines 1 and 2 run the same scenario (metadata.name) 'h3-small'" "$d/out.txt"
test ! -e "$d/out/1.37" && test ! -e "$d/out/README.md"
]=])

# 14. Every input is read once: report and baseline bless looked at the first file (replay
#     results? a comparison?) and then read it again, so a pipe came back empty and a FIFO hung.
dra_harden3_test(d14_inputs_read_once [=[
d="$HT/d14"; rm -rf "$d"; mkdir -p "$d"
printf 'sn,cpu_milli,memory_mib,gpu,model\nn-0,64000,262144,2,T4\n' > "$d/nodes.csv"
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np-0,1000,1024,1,1000\n' > "$d/pods.csv"
"$DRABENCH" replay --nodes "$d/nodes.csv" --pods "$d/pods.csv" --policy first-fit --result "$d/rp.json" > /dev/null
# a pipe (what <(cat r.json) is): read twice, the second read found it empty
for f in "$FIX/base-default.json" "$d/rp.json"; do
  cat "$f" | timeout 60 "$DRABENCH" report --no-plots -o "$d/rep-pipe" /dev/stdin > /dev/null
done
cat "$FIX/base-default.json" | timeout 60 "$DRABENCH" baseline bless --dir "$d/bl" --release r1 /dev/stdin > /dev/null
test -s "$d/bl/r1/default.json"
cat "$FIX/base-default.json" | timeout 60 "$DRABENCH" compare "$FIX/base-default.json" /dev/stdin > /dev/null || test $? = 5
cat "$FIX/base-default.json" | timeout 60 "$DRABENCH" export --format csv /dev/stdin > /dev/null
# validate looked at a file's head (a scenario?) and then read it again
cat corpora/samples/sample-cluster.yaml | timeout 60 "$DRABENCH" validate -o json /dev/stdin > "$d/v.json"
jq -e '.summary.slices == 2 and .summary.devices == 3' "$d/v.json" > /dev/null
cat "$HT/small.yaml" | timeout 60 "$DRABENCH" validate -o json /dev/stdin > "$d/v.json"
jq -e '.summary.slices > 0' "$d/v.json" > /dev/null
# a FIFO: the second open waited for a writer that never came
mkfifo "$d/fifo"
for cmd in "report --no-plots -o $d/rep-fifo" "baseline bless --dir $d/bl --release r2" "validate"; do
  src="$FIX/base-default.json"; [ "$cmd" = validate ] && src=corpora/samples/sample-cluster.yaml
  cat "$src" > "$d/fifo" &
  w=$!
  rc=0; timeout 60 "$DRABENCH" $cmd "$d/fifo" > /dev/null 2>&1 || rc=$?
  test "$rc" = 0 || { echo "$cmd: exit $rc"; kill $w 2>/dev/null; exit 1; }
  wait $w
done
test -s "$d/bl/r2/default.json"
]=])

# 20b. report on trace-replay results refuses --gate, --base and --threshold (they were ignored).
dra_harden3_test(d20_report_replay_options [=[
d="$HT/d20r"; rm -rf "$d"; mkdir -p "$d"
printf 'sn,cpu_milli,memory_mib,gpu,model\nn-0,64000,262144,2,T4\n' > "$d/nodes.csv"
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np-0,1000,1024,1,1000\n' > "$d/pods.csv"
"$DRABENCH" replay --nodes "$d/nodes.csv" --pods "$d/pods.csv" --policy first-fit --result "$d/a.json" > /dev/null
cp "$d/a.json" "$d/b.json"
printf 'default: 5%%\n' > "$d/gate.yaml"
for o in "--gate $d/gate.yaml" "--base 1" "--threshold 3%"; do
  rc=0; "$DRABENCH" report --no-plots $o -o "$d/rep" "$d/a.json" "$d/b.json" > /dev/null 2> "$d/err.txt" || rc=$?
  test "$rc" = 2 || { echo "$o: exit $rc"; exit 1; }
  grep -q -- "${o%% *} applies to the comparison of benchmark results" "$d/err.txt"
done
"$DRABENCH" report --no-plots -o "$d/rep" "$d/a.json" "$d/b.json" > /dev/null
]=])

# 6. Two blesses of one release at once write one run's set: MANIFEST lists exactly the files in
#    the directory and they all come from one of the two blesses (they mixed). The write holds a
#    lock of the baseline root.
dra_harden3_test(d06_bless_concurrent [=[
d="$HT/d06"; rm -rf "$d"; mkdir -p "$d/a" "$d/b"
i=0; while [ $i -lt 40 ]; do
  cp "$FIX/base-default.json" "$d/a/$i.json"; cp "$FIX/noise-default.json" "$d/b/$i.json"; i=$((i+1))
done
round=0; while [ $round -lt 6 ]; do
  "$DRABENCH" baseline bless --dir "$d/bl" --release r "$d"/a/*.json > /dev/null 2>&1 & pa=$!
  "$DRABENCH" baseline bless --dir "$d/bl" --release r "$d"/b/*.json > /dev/null 2>&1 & pb=$!
  wait $pa; wait $pb
  ls "$d/bl/r" | grep '\.json$' | sort > "$d/files.txt"
  sed -n 's/^\[\(.*\)\]$/\1/p' "$d/bl/r/MANIFEST" | sort > "$d/listed.txt"
  test "$(wc -l < "$d/files.txt")" = 40 || { echo "round $round: $(wc -l < "$d/files.txt") files"; exit 1; }
  cmp "$d/files.txt" "$d/listed.txt" || { echo "round $round: MANIFEST and files differ"; exit 1; }
  test "$(cat "$d"/bl/r/*.json | jq -r '.tool.git + .host.hostname + (.repetitions[0].values["latency.pod.p50"] | tostring)' | sort -u | wc -l)" = 1 \
    || { echo "round $round: files of both blesses"; exit 1; }
  round=$((round+1))
done
]=])

# 7. CURRENT and local (any case) are not release names: --release CURRENT made a CURRENT/
#    directory, and every later bless of any release exited 4.
dra_harden3_test(d07_bless_reserved_release [=[
d="$HT/d07"; rm -rf "$d"; mkdir -p "$d"
for r in CURRENT current local Local; do
  rc=0; "$DRABENCH" baseline bless --dir "$d/bl" --release "$r" "$FIX/base-default.json" > /dev/null 2> "$d/err.txt" || rc=$?
  test "$rc" = 2 || { echo "--release $r: exit $rc"; exit 1; }
  grep -q "not CURRENT or local" "$d/err.txt"
  test ! -e "$d/bl/$r"
done
"$DRABENCH" baseline bless --dir "$d/bl" --release v1 "$FIX/base-default.json" > /dev/null
test "$(cat "$d/bl/CURRENT")" = v1
# a root an older bless left with a CURRENT/ directory: refused before any file is written,
# naming it (every bless exited 4 after writing its set)
mkdir -p "$d/old/CURRENT"
rc=0; "$DRABENCH" baseline bless --dir "$d/old" --release v1 "$FIX/base-default.json" > /dev/null 2> "$d/err.txt" || rc=$?
test "$rc" = 2 || { echo "CURRENT/ directory: exit $rc"; cat "$d/err.txt"; exit 1; }
grep -q 'old/CURRENT: not a regular file: CURRENT names the current release' "$d/err.txt"
test ! -e "$d/old/v1"
]=])

# 13. A walked directory yields regular files only: a FIFO named *.yaml hung validate / inspect /
#     run --cluster, a link to /dev/zero was read up to the size limit; each is named and skipped
#     (exit 2) and the regular files are still read.
dra_harden3_test(d13_walker_regular_files [=[
d="$HT/d13"; rm -rf "$d"; mkdir -p "$d/m"
cp corpora/samples/sample-cluster.yaml "$d/m/a.yaml"
mkfifo "$d/m/f.yaml"; ln -s /dev/zero "$d/m/z.yaml"
for cmd in "validate $d/m" "validate --cluster $d/m" "inspect $d/m" "alloc -f $d/m" "cel -f $d/m true" \
           "run $HT/small.yaml -q --count 2 -o $d/r.json --cluster $d/m"; do
  rc=0; timeout 60 "$DRABENCH" $cmd > "$d/out.txt" 2> "$d/err.txt" || rc=$?
  test "$rc" = 2 || { echo "$cmd: exit $rc"; cat "$d/err.txt"; exit 1; }
  cat "$d/out.txt" "$d/err.txt" | grep -q 'f.yaml.*skipped: not a regular file: a FIFO' || { echo "$cmd:"; cat "$d/err.txt"; exit 1; }
  case "$cmd" in run*) continue ;; esac # run names the first error only
  cat "$d/out.txt" "$d/err.txt" | grep -q 'z.yaml.*skipped: not a regular file: a character device'
done
rc=0; timeout 60 "$DRABENCH" validate --cluster -o json "$d/m" > "$d/v.json" 2>/dev/null || rc=$?
test "$rc" = 2
jq -e '[.files[].errors[] | select(.message | test("skipped: not a regular file"))] | length == 2' "$d/v.json" > /dev/null
# named on the command line, a FIFO is read as asked
cat corpora/samples/sample-cluster.yaml > "$d/m/f.yaml" &
timeout 60 "$DRABENCH" validate "$d/m/f.yaml" > /dev/null
wait
]=])

# 15. A count in a result file is bounded before it sizes anything: decisions.pods =
#     3689348814741910324 wrapped the records length check into an allocation of exabytes
#     (exit 4 "out of memory"); ragged fragmentation rows were padded to rows x longest row.
#     Exit 2 naming the field, with its line.
dra_harden3_test(d15_rload_counts_bounded [=[
d="$HT/d15"; rm -rf "$d"; mkdir -p "$d"
jq '.decisions = {"shapes": ["default"], "pods": 777777, "records": "AAAAAAAA"}' "$FIX/base-default.json" |
  sed 's/777777/3689348814741910324/' > "$d/pods.json"
grep -q 3689348814741910324 "$d/pods.json"
jq '.repetitions[0].fragmentation.samples = ([range(20000)] | map([1])) + [[range(20000)]]' "$FIX/base-default.json" > "$d/frag.json"
for f in pods frag; do
  for cmd in "compare $d/$f.json $d/$f.json" "export --format csv $d/$f.json" "report --no-plots -o $d/rep $d/$f.json" \
             "baseline bless --dir $d/bl $d/$f.json"; do
    rc=0; "$DRABENCH" $cmd > /dev/null 2> "$d/err.txt" || rc=$?
    test "$rc" = 2 || { echo "$f: $cmd: exit $rc"; head -3 "$d/err.txt"; exit 1; }
  done
done
grep -q "$f.json:[0-9]*:[0-9]*: repetitions\[0\].fragmentation.samples: rows of very unequal length" "$d/err.txt"
"$DRABENCH" compare "$d/pods.json" "$d/pods.json" 2> "$d/err.txt" || true
grep -q 'pods.json:[0-9]*:[0-9]*: decisions.pods: 3689348814741910324 pods but records holds 8 characters' "$d/err.txt"
]=])

# 16. replay --device-choice dra and --emit build a pod's GPU-model selector of any allowed length:
#     ten models of 61 characters (within the documented 63) overflowed a 512-byte buffer
#     ("out of memory", exit 4; --emit: "limit exceeded").
dra_harden3_test(d16_replay_long_selector [=[
d="$HT/d16"; rm -rf "$d"; mkdir -p "$d"
x=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
printf 'sn,cpu_milli,memory_mib,gpu,model\n' > "$d/nodes.csv"
spec=""
for i in 0 1 2 3 4 5 6 7 8 9; do
  printf 'n-%s,64000,262144,2,M0%s-%s\n' $i $i $x >> "$d/nodes.csv"
  spec="$spec${spec:+|}M0$i-$x"
done
test "$(printf 'M00-%s' $x | wc -c)" = 61
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\np-0,1000,1024,1,500,%s,LS,Running,0,10,0\n' "$spec" > "$d/pods.csv"
"$DRABENCH" replay --nodes "$d/nodes.csv" --pods "$d/pods.csv" --device-choice policy,dra --policy first-fit -o json > "$d/r.json"
jq -e '[.runs[].per_seed[0].pods_scheduled] | length == 2 and all(. > 0)' "$d/r.json" > /dev/null
"$DRABENCH" replay --nodes "$d/nodes.csv" --pods "$d/pods.csv" --emit "$d/emit" > /dev/null 2>&1
"$DRABENCH" validate "$d/emit/replay.yaml" > /dev/null 2>&1
"$DRABENCH" alloc -f "$d/emit/replay.yaml" 2>/dev/null | grep -q 'M09-'
]=])

# 11. replay's resampling is bounded: a nodes CSV of 1,000 8-GPU nodes and one 1-milli pod meant
#     24M placements per policy and seed; beyond 1,000,000 submitted pods the replay is refused
#     (exit 2, the figures named) before any placement. Removing surplus pods is O(n log n) with
#     the same choices (the 80,000-pod list below at tune 0.1 took seconds).
dra_harden3_test(d11_replay_resample_bounded [=[
d="$HT/d11"; rm -rf "$d"; mkdir -p "$d"
awk 'BEGIN { print "sn,cpu_milli,memory_mib,gpu,model"; for (i = 0; i < 1000; i++) printf "n-%d,64000,262144,8,T4\n", i }' > "$d/nodes.csv"
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np-0,1,1,1,1\n' > "$d/one.csv"
rc=0; timeout 60 "$DRABENCH" replay --nodes "$d/nodes.csv" --pods "$d/one.csv" --policy first-fit --tune 3 > /dev/null 2> "$d/err.txt" || rc=$?
test "$rc" = 2 || { echo "exit $rc"; cat "$d/err.txt"; exit 1; }
grep -q 'resampling would submit more than 1000000 pods' "$d/err.txt"
awk 'BEGIN { print "name,cpu_milli,memory_mib,num_gpu,gpu_milli"; for (i = 0; i < 80000; i++) printf "p-%d,1,1,1,1000\n", i }' > "$d/many.csv"
timeout 120 "$DRABENCH" replay --nodes "$d/nodes.csv" --pods "$d/many.csv" --policy first-fit --tune 0.1 -o json > "$d/r.json"
jq -e '.runs[0].per_seed[0].pods_submitted == 800' "$d/r.json" > /dev/null
]=])

# 20c. replay runs each policy, device choice, mode and seed once however often a list names it
#      (--policy all,all ran twelve replays; --seeds 1,1 weighed seed 1 twice in the means).
dra_harden3_test(d20_replay_lists_distinct [=[
d="$HT/d20p"; rm -rf "$d"; mkdir -p "$d"
printf 'sn,cpu_milli,memory_mib,gpu,model\nn-0,64000,262144,2,T4\n' > "$d/nodes.csv"
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np-0,1000,1024,1,500\n' > "$d/pods.csv"
"$DRABENCH" replay --nodes "$d/nodes.csv" --pods "$d/pods.csv" --policy all,all,fgd --seeds 1..3,2,3 \
    --device-choice policy,policy --mode dra,dra -o json > "$d/r.json"
jq -e '(.runs | length) == 6 and ([.runs[].policy] | unique | length) == 6 and
       .seeds == ["1", "2", "3"] and all(.runs[]; (.per_seed | length) == 3)' "$d/r.json" > /dev/null
]=])

# 12. A run holds the histograms it records, not one per mix entry, phase and outcome: 256 mix
#     entries and 10 pods peaked at 1.1 GB (under 50 MB now, ASan included). Peak RSS through
#     GNU time when it is installed; the result must list only recorded histograms either way.
dra_harden3_test(d12_histograms_on_first_record [=[
d="$HT/d12"; rm -rf "$d"; mkdir -p "$d"
i=0; mix=""
while [ $i -lt 256 ]; do mix="$mix    - {shape: gpu-1, weight: 1, name: s$i}
"; i=$((i+1)); done
printf 'apiVersion: drabench.dev/v1alpha1\nkind: Scenario\nmetadata: {name: many-shapes}\nspec:\n  seed: 7\n  cluster:\n    nodes:\n    - {profile: dgx-h100, count: 2, name: dgx}\n  workload:\n    mode: fill\n    count: 10\n    mix:\n%s  run: {warmup: 0, repetitions: 2}\n' "$mix" > "$d/s.yaml"
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M' -o "$d/rss.txt" "$DRABENCH" run "$d/s.yaml" -q -o "$d/r.json" --hgrm "$d/h"
  kb=$(tail -n 1 "$d/rss.txt")
  test "$kb" -lt 300000 || { echo "peak RSS $kb KiB"; exit 1; }
else
  "$DRABENCH" run "$d/s.yaml" -q -o "$d/r.json" --hgrm "$d/h"
fi
jq -e '[.repetitions[] | .pods] == [10, 10] and
       all(.repetitions[].histograms[]; .count > 0) and
       ([.repetitions[0].histograms[] | select(.shape == "all" and .phase == "pod" and .outcome == "any")][0].count == 10) and
       ([.repetitions[0].values | keys[] | select(test("^latency\\.s[0-9]+\\.p50$"))] | length) <= 10' "$d/r.json" > /dev/null
test "$(ls "$d/h" | wc -l)" = "$(jq '[.repetitions[0].histograms[]] | length' "$d/r.json")"
]=])

# 10. Device health events republish without growing memory (4.2 KB per arrival on 3 nodes,
#     33 KB with one 128-device slice before: 2,500 arrivals of one 128-device slice grew RSS by
#     about 70 MB over 500 under ASan, by a few MB now; Release flat); the taint value is a label value (at most 63 characters), as
#     is a device taint's and a DeviceTaintRule's; a cluster read by run / gen / validate of a
#     scenario is held to the limits validate applies (a 5,000-device slice is refused); alloc
#     -f still decides on such manifests but names the first rule they break.
dra_harden3_test(d10_health_memory_and_limits [=[
d="$HT/d10"; rm -rf "$d"; mkdir -p "$d"
cat > "$d/t.yaml" <<'Y'
apiVersion: drabench.dev/v1alpha1
kind: Scenario
metadata: {name: taints}
spec:
  seed: 7
  cluster:
    nodes:
    - {profile: sched-perf, count: 1, params: {devices: 128}}
  workload:
    mode: steady
    count: 1000
    rate: 1000
    lifetime: {distribution: constant, value: 0.001}
    mix:
    - {shape: sched-perf, weight: 1}
    deviceTaints: {every: 1, hold: 1, key: example.com/unhealthy, value: "true"}
  run: {warmup: 0, repetitions: 1, invariants: off}
Y
if [ -x /usr/bin/time ]; then
  for n in 500 2500; do
    # ASan's quarantine keeps freed memory resident: off, so RSS shows what the run holds
    ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=0:thread_local_quarantine_size_kb=0" \
      /usr/bin/time -f '%M' -o "$d/rss-$n.txt" "$DRABENCH" run "$d/t.yaml" -q -o "$d/r-$n.json" --count $n
  done
  a=$(tail -n 1 "$d/rss-500.txt"); b=$(tail -n 1 "$d/rss-2500.txt")
  test $((b - a)) -lt 20000 || { echo "RSS $a KiB at 500 arrivals, $b KiB at 2,500"; exit 1; }
else
  "$DRABENCH" run "$d/t.yaml" -q -o "$d/r-2500.json" --count 2500
fi
jq -e '.repetitions[0].pods == 2500' "$d/r-2500.json" > /dev/null
# limits: the scenario's taint, a device's taint, a rule's taint
v=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
sed "s/value: \"true\"/value: $v/" "$d/t.yaml" > "$d/long.yaml"
rc=0; "$DRABENCH" run "$d/long.yaml" -q -o "$d/long.json" 2> "$d/err.txt" || rc=$?
test "$rc" = 2 && grep -q 'spec.workload.deviceTaints.value: "x*" is not a label value' "$d/err.txt"
printf 'apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: gpu.example.com\n  pool: {name: n1, generation: 1, resourceSliceCount: 1}\n  nodeName: n1\n  devices:\n  - name: gpu-0\n    taints: [{key: example.com/bad, value: %s, effect: NoSchedule}]\n' "$v" > "$d/tv.yaml"
rc=0; "$DRABENCH" validate "$d/tv.yaml" 2> "$d/err.txt" || rc=$?
test "$rc" = 2 && grep -q 'taints\[0\]: value: "x*" is not a label value' "$d/err.txt"
printf 'apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceTaintRule\nmetadata: {name: r}\nspec:\n  deviceSelector: {driver: gpu.example.com}\n  taint: {key: example.com/bad, value: %s, effect: NoSchedule}\n' "$v" > "$d/rule.yaml"
rc=0; "$DRABENCH" alloc -f corpora/samples/sample-cluster.yaml -f "$d/rule.yaml" > /dev/null 2> "$d/err.txt" || rc=$?
test "$rc" = 2 && grep -q 'spec.taint.value: "x*" is not a label value' "$d/err.txt"
# a 5,000-device slice: validate refuses it, and so do run --cluster, a scenario's manifests, gen
awk 'BEGIN { print "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: big}\nspec:\n  driver: gpu.example.com\n  pool: {name: n1, generation: 1, resourceSliceCount: 1}\n  nodeName: n1\n  devices:"
             for (i = 0; i < 5000; i++) printf "  - name: gpu-%d\n", i }' > "$d/big.yaml"
printf 'apiVersion: drabench.dev/v1alpha1\nkind: Scenario\nmetadata: {name: w}\nspec:\n  cluster:\n    manifests: [big.yaml]\n  workload:\n    count: 10\n    mix:\n    - template: {name: one, requests: [{name: g, deviceClassName: gpu.example.com}]}\n  run: {warmup: 0, repetitions: 1}\n' > "$d/w.yaml"
for cmd in "validate $d/big.yaml" "run $HT/small.yaml -q -o $d/c.json --cluster $d/big.yaml" "run $d/w.yaml -q -o $d/w.json" \
           "gen $d/w.yaml --json" "validate $d/w.yaml"; do
  rc=0; "$DRABENCH" $cmd > /dev/null 2> "$d/err.txt" || rc=$?
  test "$rc" = 2 || { echo "$cmd: exit $rc"; exit 1; }
  grep -q 'big.yaml:[0-9]*:[0-9]*: .*spec.devices: must have at most 128 devices, has 5000' "$d/err.txt" || { echo "$cmd:"; cat "$d/err.txt"; exit 1; }
done
# alloc decides on what it is given (a dry run) but says the API server would refuse it
"$DRABENCH" alloc -f "$d/big.yaml" > /dev/null 2> "$d/err.txt"
grep -q 'note: the manifests break 1 rule(s) of the API server .*, first: .*big.yaml:[0-9]*:[0-9]*: .*spec.devices: must have at most 128 devices, has 5000' "$d/err.txt"
"$DRABENCH" alloc -f corpora/samples/sample-cluster.yaml > /dev/null 2> "$d/err.txt"
! grep -q 'rule(s) of the API server' "$d/err.txt"
]=])

# 17. A path that is not UTF-8 (or holds a control character or a backslash) is written into
#     JSON losslessly - valid UTF-8 as is, '\' as "\\", other bytes as "\xNN" (escape.h) -
#     instead of being dropped: gen --json -o DIR exited 4 with nothing printed, replay -o json
#     dropped nodes_file, run dropped the scenario from run.argv (the recorded command line
#     would run default) and its name, validate -o json omitted the scenario's entry.
dra_harden3_test(d17_json_paths_lossless [=[
d="$HT/d17"; rm -rf "$d"; mkdir -p "$d"
bad=$(printf 'n\377x')
sed '/^metadata/d' "$HT/small.yaml" > "$d/$bad.yaml"
"$DRABENCH" run "$d/$bad.yaml" -q -o "$d/r.json"
jq -e --arg p "$d/n\\xffx.yaml" '.run.argv[-1] == $p and .run.scenario_file == $p and .run.scenario == "n\\xffx"' "$d/r.json" > /dev/null
"$DRABENCH" compare "$d/r.json" "$d/r.json" > /dev/null || test $? = 5
"$DRABENCH" baseline bless --dir "$d/bl" "$d/r.json" > /dev/null
"$DRABENCH" gen --json -o "$d/o$bad" "$HT/small.yaml" > "$d/gen.json"
jq -e --arg p "$d/on\\xffx/manifests.yaml" '.written.path == $p' "$d/gen.json" > /dev/null
printf 'sn,cpu_milli,memory_mib,gpu,model\nn-0,64000,262144,2,T4\n' > "$d/$bad.csv"
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np-0,1000,1024,1,500\n' > "$d/pods.csv"
"$DRABENCH" replay --nodes "$d/$bad.csv" --pods "$d/pods.csv" --policy first-fit -o json > "$d/rp.json"
jq -e '.nodes_file == "n\\xffx.csv" and .pods_file == "pods.csv"' "$d/rp.json" > /dev/null
mkdir "$d/v"; cp "$HT/small.yaml" "$d/v/$bad.yaml"; printf 'kind: [\n' > "$d/v/b$bad.yaml"
rc=0; "$DRABENCH" validate -o json "$d/v" > "$d/v.json" || rc=$?
test "$rc" = 2
jq -e --arg a "$d/v/bn\\xffx.yaml" --arg b "$d/v/n\\xffx.yaml" '[.files[].file] == [$a, $b] and
       ([.files[0].errors[].file] | unique) == [$a]' "$d/v.json" > /dev/null
# a backslash and an escape sequence: one decoding, no ambiguity
cp "$FIX/base-default.json" "$d/$(printf 'a\\b\033x').json"
"$DRABENCH" compare --format json "$d/$(printf 'a\\b\033x').json" "$FIX/base-default.json" > "$d/c.json" || true
jq -e --arg p "$d/a\\\\b\\x1bx.json" '.files[0].path == $p' "$d/c.json" > /dev/null
]=])

# 19. Success messages show output paths terminal-safe like error messages do (an escape
#     sequence in DIR retitled the terminal): replay --emit, report -o, export perfdash,
#     baseline bless, run -o, gen -o, and every usage and error message built by the CLI. A path
#     printed alone on stdout as the command's result stays as it is for a pipe, and is escaped
#     for a terminal (checked through script(1) when it is installed).
dra_harden3_test(d19_success_messages_escaped [=[
d="$HT/d19"; rm -rf "$d"; mkdir -p "$d"
E=$(printf '\033')
x="$d/o${E}]0;owned${E}"
printf 'sn,cpu_milli,memory_mib,gpu,model\nn-0,64000,262144,2,T4\n' > "$d/nodes.csv"
printf 'name,cpu_milli,memory_mib,num_gpu,gpu_milli\np-0,1000,1024,1,500\n' > "$d/pods.csv"
"$DRABENCH" replay --nodes "$d/nodes.csv" --pods "$d/pods.csv" --policy first-fit --emit "$x-emit" > /dev/null 2> "$d/e1.txt"
"$DRABENCH" report --no-plots -o "$x-rep" "$FIX/base-default.json" > "$d/o2.txt" 2> "$d/e2.txt"
"$DRABENCH" export --format perfdash -o "$x-pd" "$FIX/base-default.json" > "$d/o3.txt" 2> "$d/e3.txt"
"$DRABENCH" baseline bless --dir "$x-bl" "$FIX/base-default.json" > "$d/o4.txt" 2> "$d/e4.txt"
"$DRABENCH" run "$HT/small.yaml" -o "$x-run.json" > "$d/o5.txt" 2> "$d/e5.txt"
"$DRABENCH" gen "$HT/small.yaml" -o "$x-gen" > "$d/o6.txt" 2> "$d/e6.txt"
rc=0; "$DRABENCH" run "$HT/small.yaml" -q -o "$x-missing/r.json" --hgrm "$x-h" 2> "$d/e7.txt" || rc=$?
test "$rc" = 4
rc=0; "$DRABENCH" report --bogus "$x" 2> "$d/e8.txt" || rc=$?
test "$rc" = 2
for f in e1 e2 e3 e4 e5 e6 e7 e8 o5 o6; do
  ! grep -q "$E" "$d/$f.txt" || { echo "$f.txt has a raw ESC:"; cat -v "$d/$f.txt"; exit 1; }
done
grep -q 'wrote .*o\\x1b\]0;owned\\x1b-emit/replay.yaml' "$d/e1.txt"
grep -q 'wrote .*o\\x1b\]0;owned\\x1b-rep/index.html' "$d/e2.txt"
grep -q 'blessed 1 file(s) as .*o\\x1b\]0;owned\\x1b-bl/' "$d/e4.txt"
grep -q 'written .*o\\x1b\]0;owned\\x1b-run.json' "$d/o5.txt"
grep -q 'written: .*o\\x1b\]0;owned\\x1b-gen/manifests.yaml' "$d/o6.txt"
# stdout lines are the paths themselves for a pipe
test "$(cat "$d/o2.txt")" = "$x-rep/index.html"
grep -qF "$x-bl/" "$d/o4.txt"
if command -v script > /dev/null 2>&1; then
  script -qec "\"$DRABENCH\" report --no-plots -o \"$x-rep\" \"$FIX/base-default.json\" 2>/dev/null" /dev/null > "$d/tty.txt" || true
  grep -q 'o\\x1b\]0;owned\\x1b-rep/index.html' "$d/tty.txt"
  ! grep -q "$E" "$d/tty.txt"
fi
]=])

# 18. scripts/fuzz counts a finding from what libFuzzer reports writing, not from new files: the
#     same crash found again overwrote its artifact and was reported "exit 1 without an
#     artifact" (4) instead of a finding (3). A fake target (DRA_FUZZ_BIN) stands in for a
#     libFuzzer binary.
dra_harden3_test(d18_fuzz_refinding [=[
d="$HT/d18"; rm -rf "$d"; mkdir -p "$d/bin" "$d/bin2" "$d/bin3"
cat > "$d/bin/quantity_fuzzer" <<'F'
#!/bin/sh
for a; do case $a in -merge=1) exit 0 ;; -artifact_prefix=*) p=${a#-artifact_prefix=} ;; esac; done
echo "==1==ERROR: AddressSanitizer: heap-buffer-overflow (fake)"
printf x > "${p}crash-0123abcd"
echo "artifact_prefix='$p'; Test unit written to ${p}crash-0123abcd"
exit 1
F
cat > "$d/bin2/quantity_fuzzer" <<'F'
#!/bin/sh
echo "INFO: bad dictionary (fake)"
exit 1
F
cat > "$d/bin3/quantity_fuzzer" <<'F'
#!/bin/sh
for a; do case $a in -artifact_prefix=*) p=${a#-artifact_prefix=} ;; esac; done
printf x > "${p}slow-unit-77"
echo "Slowest unit: 12 s:"
echo "artifact_prefix='$p'; Test unit written to ${p}slow-unit-77"
exit 0
F
chmod +x "$d"/bin*/quantity_fuzzer
for i in 1 2; do
  rc=0; DRA_FUZZ_BIN="$d/bin" DRA_FUZZ_WORK="$d/w" scripts/fuzz --minutes 1 --no-merge quantity_fuzzer > "$d/out$i.txt" 2>&1 || rc=$?
  test "$rc" = 3 || { echo "run $i: exit $rc"; cat "$d/out$i.txt"; exit 1; }
  grep -q "FINDING crash-0123abcd ($d/w/fuzz-artifacts/quantity_fuzzer/crash-0123abcd)" "$d/out$i.txt"
done
rc=0; DRA_FUZZ_BIN="$d/bin2" DRA_FUZZ_WORK="$d/w" scripts/fuzz --minutes 1 --no-merge quantity_fuzzer > "$d/out3.txt" 2>&1 || rc=$?
test "$rc" = 4 && grep -q 'ERROR exit 1 without an artifact' "$d/out3.txt"
rc=0; DRA_FUZZ_BIN="$d/bin3" DRA_FUZZ_WORK="$d/w" scripts/fuzz --minutes 1 --no-merge quantity_fuzzer > "$d/out4.txt" 2>&1 || rc=$?
test "$rc" = 0 && grep -q '1 slow units noted' "$d/out4.txt"
]=])

# 21. alloc places a pod only where its allocated claims may be used (the scheduler's
#     DynamicResources Filter): imex-test1's deployment0-1 shares the channel claim its first
#     replica got in clique 1 and went to the next free node, in clique 2; now it goes to the
#     next free node of clique 1. The conformance cases real/nvidia-imex-test1-channel-*.yaml and
#     real/nvidia-gpu-test3-pod2-shared-claim-*.yaml hold the same at the allocator's level, and
#     explain --pod reports such nodes (it explained them as fitting).
dra_harden3_test(d21_allocated_claims_pin_node [=[
d="$HT/d21"; rm -rf "$d"; mkdir -p "$d"
R=../shared/real-manifests/nvidia-k8s-dra-driver-gpu
"$DRABENCH" alloc -f corpora/conformance/real/nvidia-imex-test1-channel-pins-clique.yaml \
    -f $R/quickstart/v1/imex-test1.yaml -f $R/resourceslices/imex-resourceslice.yaml \
    -f $R/helm/deviceclass-imex.rendered.yaml -f $R/helm/deviceclass-gpu.rendered.yaml > "$d/out.yaml" 2> "$d/err.txt"
grep -q '^deployment0-0: allocated on node-0$' "$d/err.txt"
grep -q '^deployment0-1: allocated on node-2$' "$d/err.txt" || { cat "$d/err.txt"; exit 1; }
grep -q '^deployment1-0: allocated on node-1$' "$d/err.txt"
grep -q '^deployment1-1: allocated on node-3$' "$d/err.txt"
# explain --pod says the same: the nodes an allocated claim of the pod rules out, before any search
cat > "$d/p2.yaml" <<'Y'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.nvidia.com}
status:
  allocation:
    devices:
      results:
      - {request: gpu, driver: gpu.nvidia.com, pool: node-0, device: gpu-0}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields:
        - {key: metadata.name, operator: In, values: [node-0]}
---
apiVersion: v1
kind: Pod
metadata: {name: p2, namespace: default}
spec:
  containers: [{name: c, image: x}]
  resourceClaims:
  - {name: g, resourceClaimName: shared}
Y
"$DRABENCH" explain -o json -f corpora/conformance/real/nvidia-imex-test1-channel-pins-clique.yaml \
    -f $R/helm/deviceclass-gpu.rendered.yaml -f "$d/p2.yaml" --pod default/p2 > "$d/ex.json"
jq -e '.fit_nodes == ["node-0"] and ([.groups[] | select(.kind == "node-selection") | .nodes[]] == ["node-1", "node-2", "node-3"])' "$d/ex.json" > /dev/null
"$DRABENCH" alloc --test corpora/conformance/real/nvidia-imex-test1-channel-pins-clique.yaml \
    corpora/conformance/real/nvidia-imex-test1-channel-same-clique.yaml \
    corpora/conformance/real/nvidia-gpu-test3-pod2-shared-claim-same-node.yaml \
    corpora/conformance/real/nvidia-gpu-test3-pod2-shared-claim-other-node.yaml > /dev/null
]=])

# 22. What alloc decides it also says: a pod whose claims are all allocated (gpu-test3's pod2
#     shares pod1's claim) gets its line and is counted; manifests without any node say so
#     instead of "unsatisfiable on every node tried"; a slice whose devices release 1.35+ does
#     not use (devices and sharedCounters in one slice) is named; alloc's own output fed back with
#     the template does not make the pod's claim a second time.
dra_harden3_test(d22_alloc_says_what_it_decides [=[
d="$HT/d22"; rm -rf "$d"; mkdir -p "$d"
N=../shared/real-manifests/nvidia-k8s-dra-driver-gpu
AWS=../shared/real-manifests/dranet/aws_eks_examples/gpu-efa/resourceslice-gpu.yaml
"$DRABENCH" alloc -f $AWS -f $N/helm/deviceclass-gpu.rendered.yaml -f $N/quickstart/v1/gpu-test3.yaml > /dev/null 2> "$d/e1.txt"
grep -q '^pod1: allocated on ip-192-168-153-160.ec2.internal$' "$d/e1.txt"
grep -q '^pod2: allocated on ip-192-168-153-160.ec2.internal (its claim was allocated already)$' "$d/e1.txt"
grep -q '^2 allocated, 0 unsatisfiable, 0 failed' "$d/e1.txt"
rc=0; "$DRABENCH" alloc -f $N/helm/deviceclass-gpu.rendered.yaml -f $N/quickstart/v1/gpu-test3.yaml > /dev/null 2> "$d/e2.txt" || rc=$?
test "$rc" = 1
grep -q 'no nodes: the manifests hold no Node' "$d/e2.txt"
grep -q '^pod1: not placed: no node to try' "$d/e2.txt"
! grep -q 'unsatisfiable on every node tried' "$d/e2.txt"
rc=0; "$DRABENCH" alloc -f $AWS -f $N/helm/deviceclass-gpu.rendered.yaml -f $N/quickstart/v1/gpu-test3.yaml --node nope > /dev/null 2> "$d/e3.txt" || rc=$?
test "$rc" = 2 && grep -q -- '--node nope: no such node' "$d/e3.txt"
"$DRABENCH" alloc -f $N/resourceslices/dgx-a100-dynamic-mig-combined.derived.yaml -f $N/helm/deviceclass-gpu.rendered.yaml \
    -f $N/quickstart/v1/gpu-test1.yaml > /dev/null 2> "$d/e4.txt"
grep -q 'note: ResourceSlice .* holds devices and sharedCounters: from release 1.35 on' "$d/e4.txt"
"$DRABENCH" alloc --release 1.34 -f $N/resourceslices/dgx-a100-dynamic-mig-combined.derived.yaml -f $N/helm/deviceclass-gpu.rendered.yaml \
    -f $N/quickstart/v1/gpu-test1.yaml > /dev/null 2> "$d/e5.txt"
! grep -q 'note: ResourceSlice' "$d/e5.txt"
R=../shared/real-manifests/dra-example-driver
C=../shared/real-manifests/k8s-website-examples/driver-install/deviceclass.yaml
"$DRABENCH" alloc -f $R/gpu-default.derived.yaml -f $C -f $R/basic-multiple-requests > "$d/o1.yaml" 2> /dev/null
"$DRABENCH" alloc -f $R/gpu-default.derived.yaml -f $C -f $R/basic-multiple-requests -f "$d/o1.yaml" > "$d/o2.yaml" 2> "$d/e6.txt"
test "$(grep -c '^kind: ResourceClaim$' "$d/o2.yaml")" = 1
grep -q '^pod0: allocated on .* (its claim was allocated already)$' "$d/e6.txt"
cmp "$d/o1.yaml" "$d/o2.yaml"
]=])

# releases.cmake - the release comparison command and the nightly suite's other profiles.
# scripts/compare-releases end to end on a small suite with the built drabench: one result
# file per release and scenario, a Markdown report per pair with the decisions across releases
# and the timing tables, and the README linking them. The suite's gang scenario carries
# "@1.36: --feature GangScheduling=true": the gate is in 1.36's run only (1.37 and 1.38-pre
# refuse it), the README lists it, and the reports show the gangs' decisions per shape and their
# PodGroup outcomes.
set(_cr_script [=[
B="$1"; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; cat "$d/log" "$d"/out/*.txt "$d"/out/README.md 2>/dev/null; exit 1; }
scripts/compare-releases --bin "$B" --repeat 2 --suite harness/tests/data/release-compare-smoke.txt --out "$d/out" 2>"$d/log" || fail "exit $?"
o="$d/out"
for r in 1.36 1.37 1.38-pre; do
    for s in unsat-storm default superpod-gangs; do test -s "$o/$r/$s.json" || fail "no $r/$s.json"; done
done
grep -q 'Decisions across inputs (release 1.36 vs 1.37)' "$o/compare-1.36-vs-1.37.md" || fail "1.36 vs 1.37 decisions"
grep -q 'Decisions across inputs (release 1.37 vs 1.38-pre)' "$o/compare-1.37-vs-1.38-pre.md" || fail "1.37 vs 1.38-pre decisions"
grep -q 'throughput.claims_per_s' "$o/compare-1.37-vs-1.38-pre.md" || fail "throughput"
grep -q 'compare-1.36-vs-1.37.md' "$o/README.md" || fail "README link"
grep -q '1.38-pre  kubernetes/kubernetes master' "$o/README.md" || fail "README profiles"
# the per-release option: 1.36's run only, listed in the README with its line
jq -e '.run.features.GangScheduling == true' "$o/1.36/superpod-gangs.json" >/dev/null || fail "1.36 without GangScheduling"
for r in 1.37 1.38-pre; do
    jq -e '.run.features.GangScheduling != true and .run.release == "'$r'"' "$o/$r/superpod-gangs.json" >/dev/null || fail "GangScheduling on under $r"
done
jq -e '.run.features.GangScheduling != true' "$o/1.36/default.json" >/dev/null || fail "GangScheduling on another line"
grep -qF '    line 5, superpod-gangs under 1.36: --feature GangScheduling=true' "$o/README.md" || fail "README per-release options"
grep -qF 'superpod-gangs under 1.36 (2 repetitions; line 5 adds --feature GangScheduling=true)' "$d/log" || fail "progress line"
grep -qF 'superpod-gangs under 1.37 (2 repetitions)' "$d/log" || fail "1.37 progress line"
# the gangs: decisions per shape and PodGroup outcomes, in both pairs, Markdown and text
for p in 1.36-vs-1.37 1.37-vs-1.38-pre; do
    grep -qE '^\| superpod-gangs \| train-8gpu \| [0-9]+ -> [0-9]+ \|' "$o/compare-$p.md" || fail "$p: gang shape decisions"
    grep -qE '^\| superpod-gangs \| infer-mig \|' "$o/compare-$p.md" || fail "$p: inference shape decisions"
    grep -q '^### PodGroups across inputs (release ' "$o/compare-$p.md" || fail "$p: PodGroups table"
    grep -qE '^\| superpod-gangs \| train-8gpu \| gang \(minCount 8\) \| [0-9]+ -> [0-9]+ \(\+0\) \| [0-9]+ -> [0-9]+ \(\+0\) \|' "$o/compare-$p.md" || fail "$p: PodGroups row"
    grep -qE '^  superpod-gangs train-8gpu policy gang \(minCount 8\): cycles [0-9]+ -> [0-9]+ \(\+0\), placed ' "$o/compare-$p.txt" || fail "$p: PodGroups text line"
done
]=])
add_test(NAME harness.compare_releases
         COMMAND sh -c "${_cr_script}" sh $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.compare_releases PROPERTIES LABELS "unit;harness;bench-smoke"
                     TIMEOUT 600 ENVIRONMENT "${DRA_TEST_ENV}")
# A malformed suite line is refused as FILE:LINE: reason (exit 2) before anything runs or is
# written: a section without its colon, an empty section, a release named twice on a line or
# unknown to drabench, a section before the scenario, an option the script sets itself; a run
# that refuses a line's per-release options (GangScheduling under 1.37) names the line too.
# --help prints the header comment (the suite format).
set(_crs_script [=[
B="$1"; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
bad() { # suite text, expected message after "suite.txt:"
    printf "$1" > "$d/suite.txt"
    rc=0; scripts/compare-releases --bin "$B" --repeat 1 --suite "$d/suite.txt" --out "$d/out" > "$d/log" 2>&1 || rc=$?
    [ "$rc" = 2 ] || { echo "FAIL: exit $rc for: $1"; cat "$d/log"; exit 1; }
    grep -qF "suite.txt:$2" "$d/log" || { echo "FAIL: want 'suite.txt:$2' for: $1"; cat "$d/log"; exit 1; }
    [ ! -e "$d/out" ] || { echo "FAIL: $d/out written for: $1"; exit 1; }
}
bad '# c\n\ndefault -n 3 @1.36 --feature GangScheduling=true\n' '3: @1.36 is not a release section: write @RELEASE: (with its colon, a word of its own)'
bad 'default -n 3 @1.36:--feature\n' '1: @1.36:--feature is not a release section'
bad 'default -n 3\ndefault2 -n 3 @1.36:\n' '2: section @1.36: has no options'
bad 'default @1.36: -n 3 @1.37: @1.38-pre: -n 4\n' '1: section @1.37: has no options'
bad 'default @1.36: -n 3 @1.36: -n 4\n' '1: release 1.36 has two sections on this line'
bad 'default @1.39: -n 3\n' '1: @1.39: names no release'
bad '@1.36: -n 3\n' '1: the line starts with @1.36:'
bad 'default @: -n 3\n' '1: @: is not a release section'
bad 'default -n 3 @1.37: --release 1.36\n' '1: --release is set by scripts/compare-releases itself'
bad 'default -n 3 --repeat=2\n' '1: --repeat=2 is set by scripts/compare-releases itself'
bad 'default -n 3 -o x.json\n' '1: -o is set by scripts/compare-releases itself'
# syntax right, refused by the run under 1.37 (after 1.36's runs): the line and the release
printf '# c\ndefault -n 3 -w 0 @1.37: --feature GangScheduling=true\n' > "$d/suite.txt"
rc=0; scripts/compare-releases --bin "$B" --repeat 1 --suite "$d/suite.txt" --out "$d/out" > "$d/log" 2>&1 || rc=$?
[ "$rc" = 2 ] || { echo "FAIL: exit $rc"; cat "$d/log"; exit 1; }
grep -qF "feature gate GangScheduling does not exist in release 1.37" "$d/log" || { cat "$d/log"; exit 1; }
grep -qF "suite.txt:2: drabench run refused default under release 1.37" "$d/log" || { cat "$d/log"; exit 1; }
! grep -q "default under 1.38-pre" "$d/log" || { cat "$d/log"; exit 1; }
# --help: the whole header comment (the suite format included), no code
scripts/compare-releases --help > "$d/help" || exit 1
grep -qF 'SCENARIO [RUN OPTION...] [@RELEASE: RUN OPTION...]...' "$d/help" || { cat "$d/help"; exit 1; }
tail -1 "$d/help" | grep -qF 'failed its invariant checks.' || { cat "$d/help"; exit 1; }
! grep -q 'set -uo' "$d/help" || { cat "$d/help"; exit 1; }
# a section of a release the pairs do not run is a note, not an error
printf 'default -n 3 -w 0 @1.35: --feature DRAAdminAccess=false\n' > "$d/suite.txt"
rc=0; scripts/compare-releases --bin "$B" --repeat 1 --pairs 1.36:1.37 --suite "$d/suite.txt" --out "$d/out2" > "$d/log" 2>&1 || rc=$?
[ "$rc" = 0 ] || { echo "FAIL: exit $rc"; cat "$d/log"; exit 1; }
grep -qF "note: $d/suite.txt:1: section @1.35: is not used" "$d/log" || { cat "$d/log"; exit 1; }
]=])
add_test(NAME harness.compare_releases_suite_errors
         COMMAND sh -c "${_crs_script}" sh $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.compare_releases_suite_errors PROPERTIES LABELS "unit;harness;cli"
                     TIMEOUT 300 ENVIRONMENT "${DRA_TEST_ENV}")
# corpora/nightly/<scenario>-<release>.yaml stay the built-in scenarios under another profile
add_test(NAME harness.nightly_profiles
         COMMAND sh harness/tests/nightly_profiles.sh
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.nightly_profiles PROPERTIES LABELS "unit;harness"
                     ENVIRONMENT "${DRA_TEST_ENV}")
# 1.37's API fields from JSON (harness/tests/data/releases/fields-1.37.json: compatibilityGroups
# on consumesCounters, derivedAttributes on a request and on a firstAvailable subrequest, a
# fractional validRange): valid under 1.37 and 1.38-pre, each field an error at its line and
# column under 1.36, shown by inspect (table and JSON)
set(_f137_script [=[
set -e
B="$1"; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT; F=harness/tests/data/releases/fields-1.37.json
"$B" validate --release 1.37 $F > "$d/v.txt" 2>&1
"$B" validate --release 1.38-pre $F > "$d/v.txt" 2>&1
set +e; "$B" validate --release 1.36 $F > "$d/v.txt" 2>&1; rc=$?; set -e; test $rc = 2
grep -qF "fields-1.37.json:8:14: error: ResourceSlice/n1-devices: spec.devices[0].consumesCounters[0]: compatibilityGroups: not a field in Kubernetes 1.36 (new in 1.37, feature gate DRADeviceCompatibilityGroups)" "$d/v.txt"
grep -qF "fields-1.37.json:17:40: error: ResourceClaim/pair: spec.devices.requests[1].firstAvailable[0]: derivedAttributes: not a field in Kubernetes 1.36 (new in 1.37, feature gate DRADerivedAttributes)" "$d/v.txt"
"$B" inspect $F > "$d/i.txt"
grep -qE "gpu-0 +consumes mem=1  compatibilityGroups=mig,shared" "$d/i.txt"
grep -qE "^pair +b/x +example.com/socket +device.attributes\['gpu.example.com'\].numa / 4" "$d/i.txt"
"$B" inspect -o json --devices $F > "$d/i.json"
jq -e '[.slices[] | select(.name == "n1-devices") | .device_list[].consumes_counters[0].compatibility_groups] == [["mig", "shared"], ["vgpu", "shared"]]' "$d/i.json" > /dev/null
jq -e '[.claims[0].derived_attributes[] | .request, .name] == ["a", "example.com/socket", "b/x", "example.com/socket"]' "$d/i.json" > /dev/null
]=])
add_test(NAME harness.fields_1_37
         COMMAND sh -c "${_f137_script}" sh $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.fields_1_37 PROPERTIES LABELS "unit;harness;cli" TIMEOUT 120
                     ENVIRONMENT "${DRA_TEST_ENV}")
# 1.38-pre is no release: summaries say what it follows; the result file names the profile
set(_rl_script [=[
set -e
B="$1"; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
"$B" run default -n 20 -w 0 -r 1 --release 1.38-pre -o "$d/r.json" > "$d/r.txt"
grep -qF "scenario    default (seed 1, first-fit, release 1.38-pre, master at 0c8a1b073dc3 + #141118, fast allocator)" "$d/r.txt"
jq -e '.run.release == "1.38-pre"' "$d/r.json" > /dev/null
"$B" run default -n 20 -w 0 -r 1 -o "$d/r.json" > "$d/r.txt"
grep -qF "scenario    default (seed 1, first-fit, release 1.37, fast allocator)" "$d/r.txt"
"$B" version | grep -qF "1.38-pre  kubernetes/kubernetes master at 0c8a1b073dc3 (after v1.38.0-alpha.2) plus #141118 (merged after it)"
]=])
add_test(NAME harness.release_label
         COMMAND sh -c "${_rl_script}" sh $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.release_label PROPERTIES LABELS "unit;harness;cli" TIMEOUT 120
                     ENVIRONMENT "${DRA_TEST_ENV}")
# One build timed under two releases (`drabench ab B B --args-a "--release 1.36" --args-b
# "--release 1.37"`, README "Comparing releases") is a comparison, not an A/A sitting: no A/A
# warning then; the same build with the same options still gets it.
set(_abrel_script [=[
B="$1"; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
"$B" ab "$B" "$B" default --run-args "-n 20 -w 0 -r 1 --invariants off" --args-a "--release 1.36" --args-b "--release 1.37" --rounds 1 --aa 1 --seed 1 -q > "$d/two.txt" 2>&1
[ $? = 5 ] || { cat "$d/two.txt"; exit 1; }
! grep -q "an A/A sitting" "$d/two.txt" || { cat "$d/two.txt"; exit 1; }
"$B" ab "$B" "$B" default --run-args "-n 20 -w 0 -r 1 --invariants off" --args-a "--release 1.37" --args-b "--release 1.37" --rounds 1 --aa 1 --seed 1 -q > "$d/same.txt" 2>&1
grep -q "same executable with the same environment and run options: an A/A sitting" "$d/same.txt" || { cat "$d/same.txt"; exit 1; }
]=])
add_test(NAME harness.ab_one_build_two_releases
         COMMAND sh -c "${_abrel_script}" sh $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.ab_one_build_two_releases PROPERTIES LABELS "unit;harness;cli"
                     TIMEOUT 120 ENVIRONMENT "${DRA_TEST_ENV}")

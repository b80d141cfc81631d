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

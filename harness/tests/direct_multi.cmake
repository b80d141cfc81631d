# harness/tests/direct_multi.cmake - the engine's CLAIMS direct answers (core/engine/direct_multi.c)
# on the scenarios made for them, under `drabench run --allocator both`: every decision equals the
# brute-force reference placement's (a difference is an invariant violation and fails the run),
# under every release profile (and every policy under 1.37), and the served line names the new paths (direct-all,
# direct-requests); pods of several claims (PodGroup claims, from 1.36 on) go through the group
# cycle, compared with the literal reference cycle.
set(_dm_script [=[
d="$1/direct-multi"
mkdir -p "$d"
for run in 1.34/first-fit 1.35/first-fit 1.36/first-fit 1.37/first-fit 1.37/best-fit 1.37/spread \
           1.37/random 1.38-pre/best-fit; do
  "$0" run corpora/engine/direct-multi.yaml -n 300 -w 0 --allocator both --release ${run%/*} \
    --policy ${run#*/} -o "$d/m.json" > "$d/m.txt" 2>&1 || { cat "$d/m.txt"; exit 1; }
  grep -E "^served .*direct-all [1-9][0-9]*, direct-requests [1-9][0-9]* " "$d/m.txt"
  grep -E "^both +300 decisions compared" "$d/m.txt"
  grep -E "^invariants +all: [0-9]+ checked, 0 violation" "$d/m.txt"
done
for run in 1.36/first-fit 1.37/best-fit 1.38-pre/first-fit; do
  "$0" run corpora/engine/direct-claims.yaml -n 300 -w 0 --allocator both --release ${run%/*} \
    --policy ${run#*/} -o "$d/c.json" > "$d/c.txt" 2>&1 || { cat "$d/c.txt"; exit 1; }
  grep -E "^both +[1-9][0-9]* group cycles compared" "$d/c.txt"
  grep -E "^invariants +all: [0-9]+ checked, 0 violation" "$d/c.txt"
done
]=])
add_test(NAME harness.engine.direct_multi_both
         COMMAND sh -ec "${_dm_script}" $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.engine.direct_multi_both PROPERTIES LABELS "harness;cli" TIMEOUT 600
                     ENVIRONMENT "${DRA_TEST_ENV}")

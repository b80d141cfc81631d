# gen/tests/reference.cmake - the profile reference is made from the code (harness/bench/profref.h):
# corpora/scenarios/PROFILES.md must equal `drabench gen --list --markdown` (regenerate it with
# that command after changing a profile, a class or a shape), and `gen --list` / `--list --json`
# carry what a scenario is written from (per profile the device classes with devices per node,
# attributes with kinds and examples, capacities, counter sets, MIG profiles; per shape its
# template's requests and constraints).
add_test(NAME gen.profiles_page
         COMMAND sh -c "\"$1\" gen --list --markdown > \"$2\" && diff -u corpora/scenarios/PROFILES.md \"$2\" || { echo 'corpora/scenarios/PROFILES.md is out of date: drabench gen --list --markdown > corpora/scenarios/PROFILES.md'; exit 1; }"
                 sh $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}/profiles-page.md
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(gen.profiles_page PROPERTIES LABELS "unit;gen;cli" TIMEOUT 120
                     ENVIRONMENT "${DRA_TEST_ENV}")
set(_gr_script [=[
set -e
B="$1"; d="$2"
"$B" gen --list > "$d/list.txt"
grep -q "^      class mig.nvidia.com: 200 devices per node (driver gpu.nvidia.com, consume shared counters)$" "$d/list.txt"
grep -q "^      MIG profiles 1g.10gb, 1g.5gb, 1g.5gb+me, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb (the GPU model's" "$d/list.txt"
grep -q "^      counter sets 8 (gpu-0-counter-set .. gpu-7-counter-set), each: copy-engines 7," "$d/list.txt"
grep -q "gpu.nvidia.com/cliqueID (string: 05327d5e" "$d/list.txt"
grep -q "^      requests     gpu: 2 of class gpu.nvidia.com; matchAttribute gpu.nvidia.com/cliqueID$" "$d/list.txt"
"$B" gen --list --json > "$d/list.json"
jq -e '[.profiles[] | select(.name == "dgx-h100") | .classes[] | .class, .devices] == ["gpu.nvidia.com", 8, "dranet.net", 8]' "$d/list.json" > /dev/null
jq -e '[.profiles[] | select(.name == "dgx-h100") | .classes[0].attributes[] | select(.name == "gpu.nvidia.com/productName") | .kind, .examples] == ["string", ["NVIDIA H100 80GB HBM3"]]' "$d/list.json" > /dev/null
jq -e '[.profiles[] | select(.name == "shared-gpu") | .classes[0] | .multi_allocatable, (.capacities | map(.name))] == [true, ["gpu.example.com/compute", "gpu.example.com/memory"]]' "$d/list.json" > /dev/null
jq -e '[.shapes[] | select(.name == "gpu-nic-aligned") | .template.requests[1].class, .template.constraints[0].matchAttribute] == ["dranet.net", "resource.kubernetes.io/pcieRoot"]' "$d/list.json" > /dev/null
jq -e '[.profiles[] | select(.name == "cpu-only") | .classes] == [[]]' "$d/list.json" > /dev/null
set +e
"$B" gen --list --json --markdown > /dev/null 2>&1; test $? = 2 || exit 1
"$B" gen --markdown default > /dev/null 2>&1; test $? = 2 || exit 1
]=])
add_test(NAME gen.profiles_list
         COMMAND sh -c "${_gr_script}" sh $<TARGET_FILE:drabench> ${PROJECT_BINARY_DIR}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(gen.profiles_list PROPERTIES LABELS "unit;gen;cli" TIMEOUT 120
                     ENVIRONMENT "${DRA_TEST_ENV}")

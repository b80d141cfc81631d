# CLI checks of `drabench cel --bench/--kernel` and `drabench version`.
set(_expr "device.attributes[\"gpu.nvidia.com\"].productName == \"NVIDIA H100 80GB HBM3\" && device.capacity[\"gpu.nvidia.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0")
foreach(k scalar auto)
  add_test(NAME harness.cli_cel_bench_${k}
           COMMAND drabench cel --kernel ${k} --bench 3000 -o json "${_expr}"
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.cli_cel_bench_${k} PROPERTIES LABELS "unit;harness;bench-smoke"
    TIMEOUT 120 ENVIRONMENT "${DRA_TEST_ENV}"
    PASS_REGULAR_EXPRESSION "\"lowerable\": true.*\"verified\": 3000, \"mismatches\": 0")
endforeach()
add_test(NAME harness.cli_cel_bad_kernel
         COMMAND ${DRA_EXPECT_EXIT} 2 $<TARGET_FILE:drabench> cel --kernel bogus --bench 10 "true")
set_tests_properties(harness.cli_cel_bad_kernel PROPERTIES LABELS "unit;harness" TIMEOUT 60
  ENVIRONMENT "${DRA_TEST_ENV}")
add_test(NAME harness.cli_version_json COMMAND drabench version --json)
set_tests_properties(harness.cli_version_json PROPERTIES LABELS "unit;harness" TIMEOUT 60
  ENVIRONMENT "${DRA_TEST_ENV}" PASS_REGULAR_EXPRESSION "\"selected\": \"(scalar|avx2|avx512)\"")
# The commit `drabench version` names is the source tree's at build time, not at configure time:
# after a commit, a rebuild must name the new one (a stale name mislabels every result file). The
# `-dirty` mark is left out of the comparison (the tree may be edited after the build); outside a
# git checkout both sides are "unknown".
add_test(NAME harness.cli_version_commit
         COMMAND sh -c "want=$(git -C \"$1\" describe --always 2>/dev/null) || want=unknown; got=$(\"$0\" version | sed -n '1s/^drabench [^ ]* (\\(.*\\))$/\\1/p'); got=\${got%-dirty}; [ \"$got\" = \"$want\" ] || { echo \"version names '$got', the tree is at '$want'\"; exit 1; }"
                 $<TARGET_FILE:drabench> ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.cli_version_commit PROPERTIES LABELS "unit;harness" TIMEOUT 60
  ENVIRONMENT "${DRA_TEST_ENV}")

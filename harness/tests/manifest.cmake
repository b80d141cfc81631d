# manifest.cmake - CLI tests of `drabench validate` / `drabench inspect` and the replay of the
# manifest fuzzer over ../shared/real-manifests (seeds taken from the shared data at test time,
# nothing copied into the repository). Included by dra_add_unit_tests(harness ...).
set(_rm ${DRA_SHARED_DIR}/real-manifests)

function(dra_manifest_cli_test name)
  cmake_parse_arguments(T "WILL_FAIL" "EXIT;REGEX;FAIL_REGEX" "ARGS" ${ARGN})
  if(T_WILL_FAIL)
    message(FATAL_ERROR "dra_manifest_cli_test(${name}): WILL_FAIL accepts any non-zero status; "
                        "name the exact one with EXIT <status>")
  endif()
  if(DEFINED T_EXIT)
    add_test(NAME harness.cli_manifest.${name}
             COMMAND ${DRA_EXPECT_EXIT} ${T_EXIT} $<TARGET_FILE:drabench> ${T_ARGS}
             WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  else()
    add_test(NAME harness.cli_manifest.${name} COMMAND $<TARGET_FILE:drabench> ${T_ARGS}
             WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  endif()
  set_tests_properties(harness.cli_manifest.${name} PROPERTIES LABELS "unit;harness;cli"
                       TIMEOUT 120 ENVIRONMENT "${DRA_TEST_ENV}")
  if(T_REGEX)
    set_tests_properties(harness.cli_manifest.${name} PROPERTIES PASS_REGULAR_EXPRESSION "${T_REGEX}")
  endif()
  if(T_FAIL_REGEX)
    set_tests_properties(harness.cli_manifest.${name} PROPERTIES FAIL_REGULAR_EXPRESSION "${T_FAIL_REGEX}")
  endif()
endfunction()

dra_manifest_cli_test(validate_help ARGS validate --help REGEX "^drabench validate - .*Exit status")
dra_manifest_cli_test(inspect_help ARGS inspect --help REGEX "^drabench inspect - .*Exit status")
dra_manifest_cli_test(validate_sample ARGS validate corpora/samples/sample-cluster.yaml
                      REGEX "validate: 1 file \\(0 invalid\\), 2 slices \\(3 devices\\).* 0 errors")
dra_manifest_cli_test(validate_good_file ARGS validate
                      ../shared/real-manifests/dranet/oci_oke_examples/BM.GPU.GB200-v3.4/resourceslice-gpu.yaml)
# invalid input exits 2 (the message names the fault)
dra_manifest_cli_test(validate_bad_exit ARGS validate
                      ../shared/real-manifests/k8s-enhancements-keps/KEP-4815.tpu-multihost-slices.yaml
                      EXIT 2)
dra_manifest_cli_test(validate_bad_message ARGS validate
                      ../shared/real-manifests/k8s-enhancements-keps/KEP-4815.tpu-multihost-slices.yaml
                      REGEX "KEP-4815.tpu-multihost-slices.yaml:[0-9]+:[0-9]+: error: ResourceSlice/device-slice: .*tpu-couner-set")
# A missing input is an environment error (4) today.
dra_manifest_cli_test(validate_missing_file ARGS validate no/such/file.yaml EXIT 2)
dra_manifest_cli_test(validate_usage ARGS validate --release 2.0 x.yaml EXIT 2)
dra_manifest_cli_test(inspect_gb200 ARGS inspect
                      ../shared/real-manifests/dranet/oci_oke_examples/BM.GPU.GB200-v3.4/resourceslice-gpu.yaml
                      REGEX "gpu-0.*productName.*NVIDIA GB200.*gpu-1.*gpu-2.*gpu-3")
dra_manifest_cli_test(inspect_json ARGS inspect -o json corpora/samples/sample-cluster.yaml
                      REGEX "\"devices\": 3")

# Exit status 2 exactly for invalid input (ctest cannot check a specific code directly).
add_test(NAME harness.cli_manifest.validate_exit_code
         COMMAND sh -c "\"$1\" validate -q \"$2\"; test $? -eq 2" sh $<TARGET_FILE:drabench>
                 ../shared/real-manifests/k8s-website-examples/resourceclaim.yaml
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.cli_manifest.validate_exit_code PROPERTIES LABELS "unit;harness;cli"
                     TIMEOUT 60 ENVIRONMENT "${DRA_TEST_ENV}")

# The whole real-manifest directory, each file on its own (the default): exit 2, and the files
# with errors are exactly the four INDEX.md marks UPSTREAM BUG / UPSTREAM ERRORS.
add_test(NAME harness.cli_manifest.validate_real_dir_four_bad
         COMMAND sh -c "out=$(\"$1\" validate -q ../shared/real-manifests 2>&1); rc=$?; \
test $rc -eq 2 || { echo \"exit $rc\"; exit 1; }; \
got=$(printf '%s\\n' \"$out\" | grep ': error: ' | cut -d: -f1 | sed 's|.*/real-manifests/||' | sort -u); \
want='dra-example-driver/device-taints-tolerations/device-taint-pod-noschedule/4-pod-not-scheduled.yaml
intel-resource-drivers/gpu/pod-inline-aligned-gpus.yaml
k8s-enhancements-keps/KEP-4815.tpu-multihost-slices.yaml
k8s-website-examples/resourceclaim.yaml'; \
test \"$got\" = \"$want\" || { printf 'files with errors:\\n%s\\n' \"$got\"; exit 1; }" sh $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# --cluster: one cluster, so names must be unique across files; -o json lists every file.
add_test(NAME harness.cli_manifest.validate_cluster_and_json
         COMMAND sh -c "\"$1\" validate -q --cluster ../shared/real-manifests 2>&1 | grep -q 'duplicate name' || exit 1; \
\"$1\" validate -o json ../shared/real-manifests > ${CMAKE_CURRENT_BINARY_DIR}/validate-real.json 2>/dev/null; test $? -eq 2 || exit 1; \
test $(grep -c '\"valid\": false' ${CMAKE_CURRENT_BINARY_DIR}/validate-real.json) -eq 4 || exit 1; \
test $(grep -c '\"valid\": true' ${CMAKE_CURRENT_BINARY_DIR}/validate-real.json) -ge 140 || exit 1; \
grep -q '\"invalid_files\": 4' ${CMAKE_CURRENT_BINARY_DIR}/validate-real.json" sh $<TARGET_FILE:drabench>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(harness.cli_manifest.validate_real_dir_four_bad
                     harness.cli_manifest.validate_cluster_and_json
                     PROPERTIES LABELS "unit;harness;cli" TIMEOUT 120 ENVIRONMENT "${DRA_TEST_ENV}")

# Replay the manifest fuzzer over every directory of the shared corpus (the replay driver reads
# directories non-recursively, so pass each one).
if(EXISTS ${PROJECT_SOURCE_DIR}/harness/fuzz/manifest_fuzzer.c AND EXISTS ${_rm})
  file(GLOB_RECURSE _rm_files LIST_DIRECTORIES false ${_rm}/*.yaml ${_rm}/*.json)
  set(_rm_dirs "")
  foreach(f IN LISTS _rm_files)
    get_filename_component(d ${f} DIRECTORY)
    list(APPEND _rm_dirs ${d})
  endforeach()
  list(REMOVE_DUPLICATES _rm_dirs)
  list(SORT _rm_dirs)
  add_test(NAME fuzz.manifest_fuzzer.real_manifests COMMAND manifest_fuzzer ${_rm_dirs}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(fuzz.manifest_fuzzer.real_manifests PROPERTIES LABELS "fuzz;regression"
                       TIMEOUT 600 ENVIRONMENT "${DRA_TEST_ENV}")
endif()

# Progress bar (forced: ctest's stderr is no terminal) and a bad --progress value.
dra_manifest_cli_test(validate_progress ARGS validate --progress always corpora/samples
                      REGEX "validate: files \\[#+\\] [0-9]+/[0-9]+")
dra_manifest_cli_test(validate_progress_bad ARGS validate --progress sometimes corpora/samples
                      EXIT 2)

# The reader's messages - file:line:col, Kind/name, field path, reason - on bad objects of every
# kind (harness/tests/data/reader-errors/*.yaml), compared whole with the expected output: exit 2
# and the same lines in the same order.
foreach(_re podgroup kinds shared)
  set(_red harness/tests/data/reader-errors)
  add_test(NAME harness.cli_manifest.reader_errors_${_re}
           COMMAND sh -c "out=$(\"$1\" validate \"$2\" 2>&1); rc=$?; printf '%s\\n' \"$out\" | diff -u \"$3\" - && test $rc -eq 2"
                   sh $<TARGET_FILE:drabench> ${_red}/${_re}.yaml ${_red}/${_re}.expected
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.cli_manifest.reader_errors_${_re} PROPERTIES
                       LABELS "unit;harness;cli" TIMEOUT 60 ENVIRONMENT "${DRA_TEST_ENV}")
endforeach()

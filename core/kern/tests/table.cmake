# core/kern per-kernel runs of test_kern: one ctest entry per instruction set (exit 77 = skipped
# on a CPU without it), plus the same binary under DRA_KERNEL to check the environment switch.
foreach(k scalar avx2 avx512)
  add_test(NAME core.kern.test_kern.${k} COMMAND core_kern_test_kern ${k}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(core.kern.test_kern.${k} PROPERTIES LABELS "unit;core" TIMEOUT 300
                       SKIP_RETURN_CODE 77 ENVIRONMENT "${DRA_TEST_ENV};DRA_KERNEL=${k}")
endforeach()

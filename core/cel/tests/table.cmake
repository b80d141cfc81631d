# Lowering bench-smoke: the target selector over 65,536 generated devices, lowered with the best
# kernel and with the scalar one, every row checked against the evaluator (exit 3 on a
# mismatch). The full measurement is the same command with a larger count:
# `drabench cel --bench 1000000 EXPR [--kernel K]`.
set(_dra_lower_target [[device.attributes["gpu.nvidia.com"].productName == "NVIDIA H100 80GB HBM3" && device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0]])
foreach(_k auto scalar)
  add_test(NAME core.cel.lower.bench_smoke.${_k}
           COMMAND drabench cel --bench 65536 --kernel ${_k} ${_dra_lower_target}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(core.cel.lower.bench_smoke.${_k} PROPERTIES LABELS "bench-smoke;core"
                       TIMEOUT 300 RUN_SERIAL TRUE ENVIRONMENT "${DRA_TEST_ENV}")
endforeach()

# harness/tests/layering.cmake - the layering of the sources, checked (harness/tests/layering_check.c):
# harness layers include only what they link (DRA_HARNESS_LAYERS / dra_hdeps_* in CMakeLists.txt),
# nothing loose at harness/'s root, no include cycle anywhere, no call cycle between object files
# of the static libraries, and the file order inside modules split into several files (DRA_FILE_ORDERS:
# a file references only files of a lower rank). harness.layering_selftest runs the check on a small
# broken tree.
add_executable(layering_check ${PROJECT_SOURCE_DIR}/harness/tests/layering_check.c)
set(_layer_args "")
foreach(l IN LISTS DRA_HARNESS_LAYERS)
  set(_below "")
  foreach(d IN LISTS dra_hdeps_${l})
    if(d MATCHES "^dra_(.*)$" AND CMAKE_MATCH_1 IN_LIST DRA_HARNESS_LAYERS)
      list(APPEND _below ${CMAKE_MATCH_1})
    endif()
  endforeach()
  string(JOIN "," _b ${_below})
  list(APPEND _layer_args "${l}=${_b}")
endforeach()
set(_libs "")
foreach(t IN LISTS DRA_CORE_LIBS DRA_HARNESS_LAYERS)
  if(NOT t MATCHES "^dra_")
    set(t dra_${t})
  endif()
  list(APPEND _libs $<TARGET_FILE:${t}>)
endforeach()
if(gen_srcs)
  list(APPEND _libs $<TARGET_FILE:dra_gen>)
endif()
# The manifest reader: the reading context below the per-kind readers (and their header), those below
# the document reader; per-kind readers never call each other or back into manifest_read.c.
# The engine (core/engine, engine_impl.h lists the files): the index, hazards, counters and direct
# answers call no other file; the answers of several claims / All call the direct answers; the
# summaries call the index and the counters (compatibility groups); plans, commit / release and
# placement call those below them, never each other; slice updates call all of them; set-up is on
# top.
set(DRA_FILE_ORDERS
  "harness/k8s/manifest_rctx<harness/k8s/manifest_kinds<harness/k8s/manifest_read_*<harness/k8s/manifest_read"
  "core/engine/index,core/engine/hazard,core/engine/counters,core/engine/direct<core/engine/direct_multi<core/engine/summary<core/engine/plan,core/engine/commit,core/engine/place<core/engine/update<core/engine/engine"
  "core/group/group<core/group/group_fast")
set(_order_args "")
foreach(o IN LISTS DRA_FILE_ORDERS)
  list(APPEND _order_args --order "${o}")
endforeach()
add_test(NAME harness.layering COMMAND layering_check ${PROJECT_SOURCE_DIR} ${_layer_args}
         ${_order_args} -- ${_libs})
set_tests_properties(harness.layering PROPERTIES LABELS "unit;harness" TIMEOUT 120
  ENVIRONMENT "${DRA_TEST_ENV}" PASS_REGULAR_EXPRESSION "layering: .* files, .*: ok")

# A tree with one fault of each kind: the check must name every one.
set(_fx ${PROJECT_BINARY_DIR}/layering-fixture)
file(WRITE ${_fx}/core/m/a.h "#include \"b.h\"\n")
file(WRITE ${_fx}/core/m/b.h "#include \"a.h\"\n")
file(WRITE ${_fx}/core/m/c.c "#include \"m/a.h\"\n")
file(WRITE ${_fx}/core/m/d.c "#include \"top.h\"\n")
file(WRITE ${_fx}/harness/lo/low.h "#include \"top.h\"\n")
file(WRITE ${_fx}/harness/lo/low.c "#include \"low.h\"\n")
file(WRITE ${_fx}/harness/lo/side.c "#include \"../../core/m/a.h\"\n")
file(WRITE ${_fx}/harness/hi/top.h "#include \"low.h\"\n")
file(WRITE ${_fx}/harness/loose.c "\n")
foreach(i RANGE 1 8)
  file(WRITE ${_fx}/gen/g${i}.c "#include \"m/a.h\"\n")
endforeach()
add_test(NAME harness.layering_selftest
         COMMAND ${DRA_EXPECT_EXIT} 1 $<TARGET_FILE:layering_check> ${_fx} lo= hi=lo)
set_tests_properties(harness.layering_selftest PROPERTIES LABELS "unit;harness" TIMEOUT 60
  ENVIRONMENT "${DRA_TEST_ENV}")
add_test(NAME harness.layering_selftest_messages COMMAND ${CMAKE_COMMAND} -E env
  ${CMAKE_COMMAND} -DCMD=$<TARGET_FILE:layering_check> -DFX=${_fx}
  -P ${PROJECT_SOURCE_DIR}/harness/tests/layering_selftest.cmk)
set_tests_properties(harness.layering_selftest_messages PROPERTIES LABELS "unit;harness" TIMEOUT 60
  ENVIRONMENT "${DRA_TEST_ENV}")

# Two objects calling each other: the call-cycle check must see them.
file(WRITE ${_fx}/calls/ping.c "void dra_fx_pong(int);\nvoid dra_fx_ping(int n);\nvoid dra_fx_ping(int n) { if (n) dra_fx_pong(n - 1); }\n")
file(WRITE ${_fx}/calls/pong.c "void dra_fx_ping(int);\nvoid dra_fx_pong(int n);\nvoid dra_fx_pong(int n) { if (n) dra_fx_ping(n - 1); }\n")
add_library(dra_layering_fixture STATIC ${_fx}/calls/ping.c ${_fx}/calls/pong.c)
add_test(NAME harness.layering_selftest_calls COMMAND ${CMAKE_COMMAND} -E env
  ${CMAKE_COMMAND} -DCMD=$<TARGET_FILE:layering_check> -DFX=${_fx}
  -DLIB=$<TARGET_FILE:dra_layering_fixture> -P ${PROJECT_SOURCE_DIR}/harness/tests/layering_selftest.cmk)
set_tests_properties(harness.layering_selftest_calls PROPERTIES LABELS "unit;harness" TIMEOUT 60
  ENVIRONMENT "${DRA_TEST_ENV}")

# A module split into files with an order (--order): a call back up, a call sideways between two
# files of one rank and an upward include must each be named, without any cycle among them.
file(WRITE ${_fx}/harness/ord/ord_top.h "int dra_fx_top_helper(int);\n")
file(WRITE ${_fx}/harness/ord/ord_base.h "#include \"ord_top.h\"\nint dra_fx_base(int);\n")
file(WRITE ${_fx}/harness/ord/ord_base.c "#include \"ord_base.h\"\nint dra_fx_base(int n) { return n; }\n")
file(WRITE ${_fx}/harness/ord/ord_kind_b.c "int dra_fx_base(int);\nint dra_fx_kind_b(int);\nint dra_fx_kind_b(int n) { return dra_fx_base(n); }\n")
file(WRITE ${_fx}/harness/ord/ord_kind_a.c "int dra_fx_base(int);\nint dra_fx_kind_b(int);\nint dra_fx_top_helper(int);\nint dra_fx_kind_a(int);\nint dra_fx_kind_a(int n) { return dra_fx_base(n) + dra_fx_kind_b(n) + dra_fx_top_helper(n); }\n")
file(WRITE ${_fx}/harness/ord/ord_top.c "int dra_fx_kind_b(int);\nint dra_fx_top_helper(int);\nint dra_fx_top_helper(int n) { return n; }\nint dra_fx_top(int);\nint dra_fx_top(int n) { return dra_fx_kind_b(n); }\n")
add_library(dra_layering_ord STATIC ${_fx}/harness/ord/ord_base.c ${_fx}/harness/ord/ord_kind_a.c
            ${_fx}/harness/ord/ord_kind_b.c ${_fx}/harness/ord/ord_top.c)
add_test(NAME harness.layering_selftest_order COMMAND ${CMAKE_COMMAND} -E env
  ${CMAKE_COMMAND} -DCMD=$<TARGET_FILE:layering_check> -DFX=${_fx}
  -DORDLIB=$<TARGET_FILE:dra_layering_ord> -P ${PROJECT_SOURCE_DIR}/harness/tests/layering_selftest.cmk)
set_tests_properties(harness.layering_selftest_order PROPERTIES LABELS "unit;harness" TIMEOUT 60
  ENVIRONMENT "${DRA_TEST_ENV}")

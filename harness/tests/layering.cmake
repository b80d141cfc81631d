# harness/tests/layering.cmake - the layering of the sources, checked (harness/tests/layering_check.c):
# harness layers include only what they link (DRA_HARNESS_LAYERS / dra_hdeps_* in CMakeLists.txt),
# nothing loose at harness/'s root, no include cycle anywhere, no call cycle between object files
# of the static libraries. harness.layering_selftest runs the check on a small broken tree.
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
add_test(NAME harness.layering COMMAND layering_check ${PROJECT_SOURCE_DIR} ${_layer_args} -- ${_libs})
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

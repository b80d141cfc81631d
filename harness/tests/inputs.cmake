# inputs.cmake - untrusted inputs from the command line. Included by dra_add_unit_tests(harness ...).
#  harness.cli_walk (walk_cli.sh): symbolic-link loops, nesting deeper than 32 and unreadable
#    directories are errors naming the path, exit 2 / 4, in validate, alloc -f, alloc --test, cel -f;
#  harness.cli_alloc_budget (alloc_budget.sh): the default step budget and --max-steps of
#    `alloc`, and pool gathering linear in slices;
#  harness.cli_alloc_schema (alloc_schema.sh): the strict AllocationTest schema of `alloc --test`;
#  harness.cli_validate_cel (validate_cel.sh): validate compiles and cost-checks CEL selectors.
foreach(_t walk alloc_budget alloc_schema validate_cel)
  string(REPLACE "walk" "walk_cli" _script "${_t}")
  add_test(NAME harness.cli_${_t} COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/${_script}.sh $<TARGET_FILE:drabench>
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.cli_${_t} PROPERTIES LABELS "unit;harness;cli" TIMEOUT 600
                       ENVIRONMENT "${DRA_TEST_ENV}")
endforeach()

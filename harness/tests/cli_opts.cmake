# cli_opts.cmake - option parsing of compare, report, export and baseline (getopt_long in argument
# order through dra_cli_getopt): --opt=value, options after operands and after compare's "--",
# "--" ending options in export, messages of bad options; and expect_exit.sh itself.
set(_o corpora/golden/compare)
set(_ob ${PROJECT_BINARY_DIR}/cli-opts)
file(MAKE_DIRECTORY ${_ob})

function(dra_opts_cli name want)
  cmake_parse_arguments(T "" "REGEX" "ARGS" ${ARGN})
  add_test(NAME harness.cli_opts.${name}
           COMMAND ${DRA_EXPECT_EXIT} ${want} $<TARGET_FILE:drabench> ${T_ARGS}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.cli_opts.${name} PROPERTIES LABELS "unit;harness;cli" TIMEOUT 60
                       ENVIRONMENT "${DRA_TEST_ENV}")
  if(T_REGEX)
    set_tests_properties(harness.cli_opts.${name} PROPERTIES PASS_REGULAR_EXPRESSION "${T_REGEX}")
  endif()
endfunction()

# Without the option the regression gates (exit 1), so each of these fails if the option is lost.
dra_opts_cli(compare_opt_after_split 0 ARGS compare ${_o}/base-default.json -- ${_o}/regress-default.json --threshold off)
dra_opts_cli(compare_opt_equals 0 ARGS compare --threshold=off ${_o}/base-default.json ${_o}/regress-default.json)
dra_opts_cli(compare_opt_between 0 ARGS compare ${_o}/base-default.json ${_o}/base-mig-inference.json -t off --
             ${_o}/regress-default.json ${_o}/regress-mig-inference.json)
dra_opts_cli(compare_unknown 2 ARGS compare --bogus ${_o}/base-default.json ${_o}/noise-default.json
             REGEX "drabench compare: unknown option '--bogus'\nTry 'drabench compare --help'.")
dra_opts_cli(compare_unknown_in_cluster 2 ARGS compare -qx ${_o}/base-default.json ${_o}/noise-default.json
             REGEX "drabench compare: unknown option '-x'")
dra_opts_cli(compare_needs_value 2 ARGS compare ${_o}/base-default.json ${_o}/noise-default.json --gate
             REGEX "drabench compare: option --gate needs a value")
dra_opts_cli(compare_second_split 2 ARGS compare ${_o}/base-default.json -- ${_o}/noise-default.json -- x
             REGEX "unknown option '--'")
dra_opts_cli(export_split_ends_options 2 ARGS export --format benchfmt -- --not-an-option
             REGEX "drabench export: --not-an-option: cannot open")
dra_opts_cli(export_equals 0 ARGS export -o - ${_o}/base-default.json --format=benchfmt
             REGEX "cpu: Fixture CPU")
dra_opts_cli(export_needs_value 2 ARGS export ${_o}/base-default.json -f
             REGEX "drabench export: option -f needs a value")
dra_opts_cli(report_opts 0 ARGS report --title=opts --no-plots ${_o}/base-default.json -o ${_ob}/report
             REGEX "wrote .*index.html")
dra_opts_cli(report_unknown 2 ARGS report --plots -o ${_ob}/report ${_o}/base-default.json
             REGEX "drabench report: unknown option '--plots'")
dra_opts_cli(baseline_opts 0 ARGS baseline bless ${_o}/base-default.json --dir=${_ob}/baseline --release=t
             --no-current -f REGEX "blessed 1 file")
dra_opts_cli(baseline_split 2 ARGS baseline bless -- ${_o}/base-default.json REGEX "unknown option '--'")

# expect_exit.sh must fail on a status other than the wanted one (checked by expecting its 1).
add_test(NAME harness.expect_exit_selftest
         COMMAND ${DRA_EXPECT_EXIT} 1 ${DRA_EXPECT_EXIT} 3 sh -c "exit 2")
set_tests_properties(harness.expect_exit_selftest PROPERTIES LABELS "unit;harness" TIMEOUT 60)

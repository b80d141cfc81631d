# harness/tests/probe.cmake - command-line tests of `drabench probe` (harness/bench/probe.h):
# the JSON's shape with --quick, usage errors naming the bad value (exit 2), nothing written when
# it fails (exit 4). Included by dra_add_unit_tests(harness ...); test_probe.c holds the unit tests.
set(_pb ${PROJECT_BINARY_DIR}/probe-tests)
file(MAKE_DIRECTORY ${_pb})

function(dra_probe_test name script)
  add_test(NAME harness.cli_probe.${name}
           COMMAND sh -c "${script}" sh $<TARGET_FILE:drabench> ${_pb}
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(harness.cli_probe.${name} PROPERTIES LABELS "unit;harness;cli"
                       TIMEOUT 300 ENVIRONMENT "${DRA_TEST_ENV}")
endfunction()

# --help: every option explained, an example, the exit statuses; exit 0.
dra_probe_test(help [=[
set -e
"$1" probe --help > "$2/help.txt"
for o in --pin --sizes --hint-size --pause --reps --quick --output --json --help Example 'Exit status'; do
  grep -q -e "$o" "$2/help.txt" || { echo "help lacks $o"; exit 1; }
done
"$1" --help | grep -q '^ *probe '
]=])

# --quick -o -: the JSON on stdout (the table on stderr), the documented shape: the sizes
# ascending, every latency and region positive, p90 >= p50, the eight K, both slopes numbers.
dra_probe_test(quick_json [=[
set -e
"$1" probe --quick -o - > "$2/q.json" 2> "$2/q.txt"
jq -e '.schema == "drabench-probe/v1" and .method.quick == true and .method.pin_cpu == null
  and ([.latency[].size_bytes] == [32768, 262144, 1048576])
  and all(.latency[]; .ns_per_load > 0 and .min_ns_per_load > 0 and .min_ns_per_load <= .ns_per_load
          and (.huge_bytes | type == "number") and (.advised | type == "boolean"))
  and .clock.p50_ns > 0 and .clock.p90_ns >= .clock.p50_ns and .clock.samples == 1001
  and (.clock.step_ns == null or (.clock.step_ns >= 1 and .clock.step_ns <= 100))
  and .method.pause_ns == 2000
  and .hints.buffer_bytes == 1048576
  and ([.hints.rows[].k] == [0, 4, 8, 12, 16, 24, 32, 48])
  and all(.hints.rows[]; .cold.p50_ns > 0 and .cold.p90_ns >= .cold.p50_ns and .cold.samples == 100
          and .warm.p50_ns > 0 and .warm.p90_ns >= .warm.p50_ns and .warm.samples == 100)
  and (.hints.cold_ns_per_line | type == "number") and (.hints.warm_ns_per_line | type == "number")
  and (.host.cpus > 0) and (.method.hint_instruction | length > 0)
  and (.host.load_start | type == "number") and (.host.load_end | type == "number")
  and .translation.buffer_bytes == 1048576 and .translation.far_bytes == 524288
  and (.translation.grain_bytes == null or .translation.grain_bytes == 4096
       or .translation.grain_bytes == 1048576)
  and ([.translation.load | keys_unsorted[]] == ["near", "far", "none"])
  and ([.translation.hint | keys_unsorted[]] == ["near", "far", "none"])
  and all(.translation.load[], .translation.hint[]; .samples == 100 and .p50_ns > 0
          and .p90_ns >= .p50_ns)
  and .translation.load_miss_ns == .translation.load.none.p50_ns - .translation.load.near.p50_ns
  and .translation.hint_miss_ns == .translation.hint.none.p50_ns - .translation.hint.near.p50_ns' "$2/q.json" > /dev/null
grep -q '^translation one cold line of the 1 MiB buffer' "$2/q.txt"
grep -q '^grain       ' "$2/q.txt"
grep -q '^headline    a hinted line of a 1 MiB buffer costs .* ns of a timed region here' "$2/q.txt"
grep -q '^clock       empty timed region' "$2/q.txt"
]=])

# --sizes (given out of order, with a duplicate) and --reps, --pin on the last CPU, --json FILE:
# the file written whole, the table on stdout; --hint-size: a hint buffer of its own.
dra_probe_test(options [=[
set -e
cpu=$(( $(getconf _NPROCESSORS_ONLN) - 1 ))
rm -f "$2/o.json"
"$1" probe --quick --pin $cpu --sizes 64K,4K,64K --reps 30 --json "$2/o.json" > "$2/o.txt"
jq -e --argjson cpu $cpu '.method.pin_cpu == $cpu and ([.latency[].size_bytes] == [4096, 65536])
  and .hints.buffer_bytes == 65536 and .method.hint_regions == 30 and .clock.samples == 30
  and all(.hints.rows[]; .cold.samples == 30)' "$2/o.json" > /dev/null
grep -q "pinned to CPU $cpu" "$2/o.txt"
grep -q "^written     $2/o.json" "$2/o.txt"
ls "$2" | grep -q 'o.json.tmp' && { echo "temporary file left"; exit 1; }
"$1" probe --quick --sizes 4K --hint-size 8K --reps 10 --pause 0 -o - 2> /dev/null |
  jq -e '.hints.buffer_bytes == 8192 and ([.latency[].size_bytes] == [4096]) and .method.pause_ns == 0
    and .translation.far_bytes == null and .translation.grain_bytes == null
    and .translation.load_miss_ns == null and .translation.load.near.samples == 0' > /dev/null
"$1" probe --quick --sizes 4K --hint-size 8K --reps 10 | grep -q '^translation not measured: the 8 KiB hint buffer is under 16 KiB'

]=])

# Usage errors: exit 2 and a message naming the bad value.
dra_probe_test(usage_errors [=[
exe=$1 dir=$2
bad() { # WANT ARGS...: exit 2, WANT on stderr, nothing on stdout
  want=$1; shift
  rc=0; "$exe" probe "$@" > "$dir/u.out" 2> "$dir/u.err" || rc=$?
  test $rc -eq 2 || { echo "probe $*: exit $rc, want 2"; cat "$dir/u.err"; exit 1; }
  grep -F -q -e "$want" "$dir/u.err" || { echo "probe $*: no \"$want\" in:"; cat "$dir/u.err"; exit 1; }
  test ! -s "$dir/u.out" || { echo "probe $*: wrote to stdout"; exit 1; }
}
bad "'12Q' is not a size" --quick --sizes 32K,12Q
bad "'1K' is below 4K" --quick --sizes 1K
bad "'5000' is not a multiple of 64" --quick --sizes 5000
bad "empty item" --quick --sizes 4K,,8K
bad "'65G' is not a size" --quick --sizes 65G
bad "unknown option '--frobnicate'" --frobnicate
bad "--pin: expected a CPU number below" --quick --pin 99999
bad "got 'x1'" --quick --pin x1
bad "--reps: expected a count from 1 to 10000000, got '0'" --quick --reps 0
bad "unexpected argument 'extra'" --quick extra
bad "needs a value" --sizes
bad "--hint-size: '3K' is below 4K" --quick --hint-size 3K
bad "--pause: expected nanoseconds from 0 to 10000000, got '1us'" --quick --pause 1us
bad "--hint-size: expected one size" --quick --hint-size 4K,8K
]=])

# Failures write nothing: an output in a missing directory is refused before measuring (exit 4);
# a buffer larger than half the memory is refused (exit 4); a write error is exit 4 with the
# reason.
dra_probe_test(env_errors [=[
rc=0; "$1" probe --quick -o /dev/full > /dev/null 2> "$2/e.err" || rc=$?
test $rc -eq 4 || { echo "/dev/full: exit $rc"; exit 1; }
grep -q 'No space left on device' "$2/e.err" || { cat "$2/e.err"; exit 1; }
rc=0; "$1" probe --quick -o "$2/no-such-dir/p.json" 2> "$2/e.err" || rc=$?
test $rc -eq 4 || { echo "exit $rc"; exit 1; }
grep -q 'no-such-dir' "$2/e.err" || { cat "$2/e.err"; exit 1; }
rc=0; "$1" probe --quick --sizes 64G -o "$2/big.json" 2> "$2/e.err" || rc=$?
mem=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
if [ "$mem" -lt 67108864 ]; then
  test $rc -eq 4 || { echo "64G: exit $rc"; exit 1; }
  grep -q "more than half of this machine's memory" "$2/e.err" || { cat "$2/e.err"; exit 1; }
  test ! -e "$2/big.json" || { echo "file written"; exit 1; }
fi
exit 0
]=])

# A mapping that fails mid-run (the address space limited below the largest buffer): exit 4 with
# the reason, and the file that was there is left as it was. Not with sanitizers (their shadow
# memory needs the address space ulimit -v takes away).
if(NOT DRA_SANITIZE)
  dra_probe_test(map_failure [=[
echo previous > "$2/keep.json"
rc=0; (ulimit -v 400000 && exec "$1" probe --quick --sizes 4K,1G -o "$2/keep.json") 2> "$2/m.err" || rc=$?
test $rc -eq 4 || { echo "exit $rc"; cat "$2/m.err"; exit 1; }
grep -q 'cannot map a 1 GiB buffer' "$2/m.err" || { cat "$2/m.err"; exit 1; }
test "$(cat "$2/keep.json")" = previous || { echo "file changed"; exit 1; }
ls "$2" | grep -q 'keep.json.tmp' && { echo "temporary file left"; exit 1; }
exit 0
]=])
endif()

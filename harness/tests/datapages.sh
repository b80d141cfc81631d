#!/bin/sh
# datapages.sh HUGE - `drabench run --data-pages` (harness/bench/datapages.h, harness/tests/datapages.cmake):
# with HUGE=ON (a build without sanitizers) and transparent huge pages not "never", a run records
# run.method.data_pages "2M" with bytes > 0 on huge pages (no more than resident), or "4K" and why;
# --data-pages 4k records "4K", 0 bytes and "turned off"; a build without it records "4K" and why;
# decisions are the same either way; -v and the summary say what the data got; a bad value is a
# usage error. The allocation hook (harness/bench/hugemem.h, not the default): with 2M and
# DRA_DATA_PAGES_HOOK=1 it served blocks whose pages are on 2 MiB pages
# (run.method.data_pages_hook_bytes / _huge) and held nothing at the end (-v); not installed by
# default, with --data-pages 4k, DRA_DATA_PAGES_HOOK=0 or a build without it. Needs $DRABENCH and jq; runs from the project root.
set -u
huge=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# sched-perf-500's engine and device table: a few MiB of heap, enough for 2 MiB pages
run() { "$DRABENCH" run sched-perf-500 -n 400 -w 20 -r 2 --invariants off "$@"; }

run -v -o "$T/2m.json" >"$T/2m.out" 2>"$T/2m.err" || fail "run (default data pages) exited $?"
DRA_DATA_PAGES_PREPARE=1 run -v -q -o "$T/pp.json" 2>"$T/pp.err" || fail "run (heap prepared) exited $?"
run -q --data-pages 4k -o "$T/4k.json" || fail "run --data-pages 4k exited $?"
DRA_DATA_PAGES_HOOK=0 run -v -q -o "$T/nh.json" 2>"$T/nh.err" || fail "run (no hook) exited $?"
DRA_DATA_PAGES_HOOK=1 run -v -q -o "$T/hk.json" 2>"$T/hk.err" || fail "run (the hook) exited $?"
DRA_DATA_PAGES_HOOK=1 run -q --data-pages 4k -o "$T/hk4.json" || fail "run (the hook, 4k) exited $?"
m() { jq -r ".run.method.$2" "$T/$1.json"; }
[ "$(m 4k data_pages)" = 4K ] || fail "--data-pages 4k recorded '$(m 4k data_pages)', not 4K"
[ "$(m 4k data_pages_bytes)" = 0 ] || fail "--data-pages 4k recorded $(m 4k data_pages_bytes) bytes"
case "$(m 4k data_pages_reason)" in "turned off (--data-pages 4k)") ;;
  *) fail "--data-pages 4k gave the reason '$(m 4k data_pages_reason)'" ;; esac
[ "$(jq -r .digest "$T/2m.json")" = "$(jq -r .digest "$T/4k.json")" ] ||
  fail "decisions differ between 2 MiB and 4 KiB data pages"
[ "$(jq -r .digest "$T/nh.json")" = "$(jq -r .digest "$T/4k.json")" ] ||
  fail "decisions differ between 2 MiB data pages without the allocation hook and 4 KiB ones"
[ "$(jq -r .digest "$T/hk.json")" = "$(jq -r .digest "$T/4k.json")" ] ||
  fail "decisions differ between 2 MiB data pages with the allocation hook and 4 KiB ones"
[ "$(m 4k data_pages_hook_bytes)" = null ] || fail "--data-pages 4k recorded hook bytes"
[ "$(m hk4 data_pages_hook_bytes)" = null ] || fail "--data-pages 4k with DRA_DATA_PAGES_HOOK=1 recorded hook bytes"
[ "$(m 2m data_pages_hook_bytes)" = null ] || fail "the default recorded hook bytes (the hook is not the default)"
grep -q "allocation hook" "$T/2m.err" && fail "the default installed the hook: $(cat "$T/2m.err")"
[ "$(m nh data_pages_hook_bytes)" = null ] || fail "DRA_DATA_PAGES_HOOK=0 recorded hook bytes"
grep -q "allocation hook" "$T/nh.err" && fail "DRA_DATA_PAGES_HOOK=0 installed the hook: $(cat "$T/nh.err")"
[ "$(jq -r .digest "$T/pp.json")" = "$(jq -r .digest "$T/4k.json")" ] ||
  fail "decisions differ between 2 MiB data pages with the heap prepared and 4 KiB ones"
[ "$(grep -c "data pages: $(m 2m data_pages) before repetition" "$T/2m.err")" = 2 ] ||
  fail "-v did not say before each of the 2 repetitions what the data got: $(cat "$T/2m.err")"
grep -q "^pages .*data $(m 2m data_pages) " "$T/2m.out" || fail "the summary has no data pages line: $(cat "$T/2m.out")"
"$DRABENCH" run default --data-pages 1g -q -o "$T/bad.json" 2>/dev/null
[ $? -eq 2 ] || fail "--data-pages 1g was not a usage error"

b=$(m 2m data_pages_bytes); r=$(m 2m data_pages_resident)
[ "$b" -le "$r" ] || fail "$b bytes on huge pages, more than the $r resident"
if [ "$huge" != ON ]; then
  [ "$(m 2m data_pages)" = 4K ] || fail "a build without DRA_DATA_HUGE recorded '$(m 2m data_pages)'"
  [ "$(m hk data_pages_hook_bytes)" = null ] || fail "a build without DRA_DATA_HUGE recorded hook bytes"
  case "$(m 2m data_pages_reason)" in *"not in this build"*) ;;
    *) fail "a build without DRA_DATA_HUGE gave the reason '$(m 2m data_pages_reason)'" ;; esac
  echo "ok (a build without DRA_DATA_HUGE: 4K, '$(m 2m data_pages_reason)')"
  exit 0
fi
thp=/sys/kernel/mm/transparent_hugepage/enabled
if [ ! -r "$thp" ] || grep -q '\[never\]' "$thp"; then
  [ "$(m 2m data_pages)" = 4K ] || fail "THP off but the run recorded '$(m 2m data_pages)'"
  echo "SKIP: transparent huge pages are off on this host ($thp: $(cat "$thp" 2>/dev/null)); the 4K fallback was checked, 2M was not"
  exit 77
fi
if [ "$(m 2m data_pages)" = 4K ]; then
  case "$(m 2m data_pages_reason)" in "the kernel gave no 2 MiB page"*)
    echo "SKIP: no free 2 MiB page on this host now ($(m 2m data_pages_reason)); the 4K fallback was checked, 2M was not"
    exit 77 ;; esac
fi
[ "$(m 2m data_pages)" = 2M ] ||
  fail "THP available ($(cat $thp)) but the run recorded '$(m 2m data_pages)': $(m 2m data_pages_reason)"
[ "$b" -gt 0 ] || fail "2M with $b bytes"
[ "$(m 2m data_pages_reason)" = null ] || fail "2M with a reason: $(m 2m data_pages_reason)"
# with DRA_DATA_PAGES_HOOK=1 the allocation hook served the big tables (the arenas' 1 MiB chunks
# at least), on 2 MiB pages from their first touch, and every block went back by the end
hb=$(m hk data_pages_hook_bytes); hh=$(m hk data_pages_hook_huge); kb=$(m hk data_pages_bytes)
[ "$hb" != null ] && [ "$hb" -ge 1048576 ] || fail "the allocation hook served '$hb' bytes"
[ "$hh" -gt 0 ] && [ "$hh" -le "$kb" ] || fail "the hook's region has '$hh' bytes on 2 MiB pages (of $kb)"
grep -q "allocation hook: [0-9]* blocks served, .*, 0 bytes still held at the end" "$T/hk.err" ||
  fail "the allocation hook still held blocks at the end, or -v did not say: $(cat "$T/hk.err")"
# most of the data the pass reads: at least half of the large mappings' resident bytes (the
# collapse); with the heap prepared at start (DRA_DATA_PAGES_PREPARE=1, -v says so) three quarters
[ $((b * 2)) -ge "$r" ] || fail "2M covers only $b of $r resident bytes"
grep -q "data pages: heap of [0-9]* MiB advised" "$T/pp.err" || fail "-v did not say the heap was advised: $(cat "$T/pp.err")"
pb=$(m pp data_pages_bytes); pr=$(m pp data_pages_resident)
[ "$(m pp data_pages)" = 2M ] && [ $((pb * 4)) -ge $((pr * 3)) ] ||
  fail "heap prepared: '$(m pp data_pages)', $pb of $pr bytes: $(m pp data_pages_reason)"
echo "ok: 2M, $b of $r resident bytes on 2 MiB pages (heap prepared: $pb of $pr); 4k: 4K; decisions equal"

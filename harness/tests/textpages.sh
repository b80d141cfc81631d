#!/bin/sh
# textpages.sh HUGE - `drabench run --text-pages` (harness/bench/textpages.h, harness/tests/textpages.cmake):
# with HUGE=ON (the build links for 2 MiB segments) and transparent huge pages not "never", a run
# records run.method.text_pages "2M" with the bytes it moved; --text-pages 4k records "4K" and why;
# a build without it (sanitizers) records "4K" and why; decisions are the same either way; a bad
# value is a usage error. Needs $DRABENCH and jq; runs from the project root.
set -u
huge=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run() { "$DRABENCH" run default -n 60 -w 5 -r 1 --invariants off -q "$@"; }

run -v -o "$T/2m.json" 2>"$T/2m.err" || fail "run (default text pages) exited $?"
run --text-pages 4k -o "$T/4k.json" || fail "run --text-pages 4k exited $?"
m() { jq -r ".run.method.$2" "$T/$1.json"; }
[ "$(m 4k text_pages)" = 4K ] || fail "--text-pages 4k recorded '$(m 4k text_pages)', not 4K"
[ "$(m 4k text_pages_bytes)" = 0 ] || fail "--text-pages 4k recorded $(m 4k text_pages_bytes) bytes"
case "$(m 4k text_pages_reason)" in *"--text-pages 4k"*) ;;
  *) fail "--text-pages 4k gave the reason '$(m 4k text_pages_reason)'" ;; esac
[ "$(jq -r .digest "$T/2m.json")" = "$(jq -r .digest "$T/4k.json")" ] ||
  fail "decisions differ between 2 MiB and 4 KiB text pages"
grep -q "text pages: $(m 2m text_pages)" "$T/2m.err" || fail "-v did not say what the text got: $(cat "$T/2m.err")"
"$DRABENCH" run default --text-pages 1g -q -o "$T/bad.json" 2>/dev/null
[ $? -eq 2 ] || fail "--text-pages 1g was not a usage error"

if [ "$huge" != ON ]; then
  [ "$(m 2m text_pages)" = 4K ] || fail "a build without DRA_TEXT_HUGE recorded '$(m 2m text_pages)'"
  case "$(m 2m text_pages_reason)" in *"not in this build"*) ;;
    *) fail "a build without DRA_TEXT_HUGE gave the reason '$(m 2m text_pages_reason)'" ;; esac
  echo "ok (a build without DRA_TEXT_HUGE: 4K, '$(m 2m text_pages_reason)')"
  exit 0
fi
thp=/sys/kernel/mm/transparent_hugepage/enabled
if [ ! -r "$thp" ] || grep -q '\[never\]' "$thp"; then
  [ "$(m 2m text_pages)" = 4K ] || fail "THP off but the run recorded '$(m 2m text_pages)'"
  echo "SKIP: transparent huge pages are off on this host ($thp: $(cat "$thp" 2>/dev/null)); the 4K fallback was checked, 2M was not"
  exit 77
fi
if [ "$(m 2m text_pages)" = 4K ]; then
  case "$(m 2m text_pages_reason)" in "the kernel gave no 2 MiB page"*)
    echo "SKIP: no free 2 MiB page on this host now ($(m 2m text_pages_reason)); the 4K fallback was checked, 2M was not"
    exit 77 ;; esac
fi
[ "$(m 2m text_pages)" = 2M ] ||
  fail "THP available ($(cat $thp)) but the run recorded '$(m 2m text_pages)': $(m 2m text_pages_reason)"
code=$(readelf -lW "$DRABENCH" 2>/dev/null | awk '$1 == "LOAD" && $8 == "E" { print $6 }')
[ -n "$code" ] && code=$(printf '%d' "$code")
[ "$(m 2m text_pages_bytes)" -gt 0 ] || fail "2M with $(m 2m text_pages_bytes) bytes"
if [ -n "$code" ]; then
  [ "$(m 2m text_pages_bytes)" -ge "$code" ] ||
    fail "2M covers $(m 2m text_pages_bytes) bytes, less than the $code bytes of code"
fi
echo "ok: 2M, $(m 2m text_pages_bytes) bytes; 4k: 4K; decisions equal"

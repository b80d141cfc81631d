#!/bin/sh
# nightly_profiles.sh - every corpora/nightly/<scenario>-<release>.yaml is corpora/scenarios/
# <scenario>.yaml with only metadata.name and spec.release changed (plus its two comment lines),
# so the nightly suite's runs under other profiles cannot drift from the built-in scenarios.
set -u
fail=0
n=0
for f in corpora/nightly/*.yaml; do
    [ -e "$f" ] || continue
    b=$(basename "$f" .yaml)
    rel=${b##*-1.}
    rel=1.$rel
    base=${b%-"$rel"}
    src=corpora/scenarios/$base.yaml
    if [ ! -r "$src" ]; then
        echo "nightly_profiles: $f: no $src" >&2
        fail=1
        continue
    fi
    want=$(sed -e "s/^  name: $base\$/  name: $base-$rel/" -e "s/^  release: \"1.37\"\$/  release: \"$rel\"/" "$src")
    got=$(sed -e '1,2{/^#/d}' "$f")
    if [ "$want" != "$got" ]; then
        echo "nightly_profiles: $f differs from $src beyond name and release:" >&2
        printf '%s\n' "$want" >"${TMPDIR:-/tmp}/np.$$.a"
        printf '%s\n' "$got" >"${TMPDIR:-/tmp}/np.$$.b"
        diff "${TMPDIR:-/tmp}/np.$$.a" "${TMPDIR:-/tmp}/np.$$.b" >&2
        rm -f "${TMPDIR:-/tmp}/np.$$.a" "${TMPDIR:-/tmp}/np.$$.b"
        fail=1
    fi
    n=$((n + 1))
done
[ $n -gt 0 ] || { echo "nightly_profiles: no files in corpora/nightly" >&2; exit 1; }
[ $fail -eq 0 ] && echo "nightly_profiles: $n file(s) ok"
exit $fail

#!/bin/sh
# walk_cli.sh DRABENCH - `validate`, `alloc -f`, `alloc --test` and `cel -f` on directory trees
# the walker must refuse: a symbolic-link loop (exit 2, the looping path named), directories
# nested deeper than 32 (exit 2) and an unreadable subdirectory (exit 4; as root the command runs
# as uid 65534 through setpriv, since root reads a mode-000 directory). Exit 0 when all hold.
set -u
bin=$1
root=$(mktemp -d "${TMPDIR:-/tmp}/drabench-walkcli-XXXXXX") || exit 1
chmod 755 "$root"
trap 'chmod -R u+rwx "$root" 2>/dev/null; rm -rf "$root"' EXIT
fail=0
sample=${DRA_SOURCE_DIR:-.}/corpora/samples/sample-cluster.yaml
cd "$root" || exit 1
mkdir -p l/a && ln -s .. l/a/back && cp "$sample" l/a/c.yaml
d=deep; for i in $(seq 1 33); do d=$d/d; done; mkdir -p "$d" && cp "$sample" "$d/c.yaml"
mkdir -p u/x && cp "$sample" u/x/c.yaml && cp "$sample" u/c.yaml && chmod 000 u/x

expect() { # expect CODE REGEX CMD...: exit code CODE, stdout or stderr matching REGEX
    want=$1 re=$2; shift 2
    "$@" >out.txt 2>err.txt; rc=$?
    if [ "$rc" -ne "$want" ] || ! cat out.txt err.txt | grep -qE "$re"; then
        echo "FAIL: $* -> exit $rc (want $want), output:"; cat out.txt err.txt; fail=1
    else
        echo "ok: $* -> $rc"
    fi
}
loop='l/a/back: (error: )?directory loop'
expect 2 "$loop" "$bin" validate l
expect 2 '"file": "l/a/back"' "$bin" validate -o json l
expect 2 "$loop" "$bin" alloc -f l
expect 2 "$loop" "$bin" alloc --test l
expect 2 "$loop" "$bin" cel -f l 'device.driver == "x"'
expect 2 'deep(/d)+: (error: )?directories nested deeper than 32' "$bin" validate deep
expect 2 'nested deeper than 32' "$bin" alloc -f deep
expect 2 'nested deeper than 32' "$bin" cel -f deep 'true'
if [ "$(id -u)" -eq 0 ]; then
    if command -v setpriv >/dev/null 2>&1; then
        as="setpriv --reuid=65534 --regid=65534 --clear-groups"
    else
        echo "skip unreadable: no setpriv to drop root"; as=""
    fi
else
    as="env"
fi
if [ -n "$as" ]; then
    unread='u/x: (error: )?cannot open directory: Permission denied'
    expect 4 "$unread" $as "$bin" validate u
    expect 4 "$unread" $as "$bin" alloc -f u
    expect 4 "$unread" $as "$bin" cel -f u 'true'
fi
exit $fail

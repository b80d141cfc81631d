#!/bin/sh
# expect_exit.sh STATUS COMMAND [ARG...] - run COMMAND (output passed through) and succeed only
# when it exits with exactly STATUS. For CLI tests of failures: ctest's WILL_FAIL accepts any
# non-zero status, so a crash or a wrong code would pass. Used through ${DRA_EXPECT_EXIT}.
want=$1
shift
"$@"
got=$?
if [ "$got" -ne "$want" ]; then
    echo "expect_exit: exit status $got, want $want: $*" >&2
    exit 1
fi
exit 0

#!/bin/sh
# boltrun: bad arguments give one clear line and exit status 2 (127 for a
# missing program), before anything is launched.
. "$(dirname "$0")/lib.sh"

bad() { # expected-status expected-line args...
    want=$1 line=$2
    shift 2
    run "$@"
    expect_rc "$want" "boltrun $*"
    [ "$(wc -l <"$T/err")" -eq 1 ] || fail "boltrun $*: expected exactly one line on stderr"
    expect_err_line "$line"
    [ ! -s "$T/out" ] || fail "boltrun $*: wrote to stdout"
}

bad 2 "boltrun: -np expects a positive integer, got 'abc'" -np abc hostname
bad 2 "boltrun: -np expects a positive integer, got '0'" -np 0 hostname
bad 2 "boltrun: unknown option '--foo' (see boltrun --help)" --foo hostname
bad 2 "boltrun: no program given (usage: boltrun -np N PROGRAM [ARGS...])" -np 2
bad 2 "boltrun: -np needs a value" -np
bad 2 "boltrun: --timeout expects a positive number of seconds, got 'soon'" --timeout soon hostname
bad 2 "boltrun: -x expects VAR or VAR=VALUE with VAR a variable name, got '9X'" -x 9X hostname
bad 127 "boltrun: cannot find program 'nosuch-program-$MARK' in PATH" --timeout 5 -np 2 "nosuch-program-$MARK"
bad 127 "boltrun: cannot find program './nosuch/prog': No such file or directory" --timeout 5 ./nosuch/prog
bad 126 "boltrun: cannot execute '/': it is a directory" --timeout 5 /
bad 2 "boltrun: --stdin expects a rank number or 'none', got 'all'" --stdin all hostname
bad 2 "boltrun: --stdin 2: the job has no such rank (-np 2: ranks 0 to 1)" --stdin 2 -np 2 hostname
bad 2 "boltrun: --stdin needs a value" -np 2 --stdin
bad 2 "boltrun: --calibration describes the links between hosts: it needs --host or --hostfile" --calibration cal true
bad 2 "boltrun: --calibration expects a file name" --calibration= true
bad 2 "boltrun: cannot read the calibration file $T/nosuch: No such file or directory" --host h1 --calibration "$T/nosuch" true
BOLT_KILL_GRACE=abc bad 2 "$(BOLT_KILL_GRACE=abc "$BOLTRUN" --timeout 5 true 2>&1 >/dev/null)" --timeout 5 true

run --version
expect_rc 0 "--version"
grep -q '^boltrun (Bolt) ' "$T/out" || fail "--version output"
run --help
expect_rc 0 "--help"
grep -q -- '--tag-output' "$T/out" || fail "--help output"
grep -q -- '--stdin none' "$T/out" || fail "--help lacks --stdin"
exit 0

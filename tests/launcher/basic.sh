#!/bin/sh
# boltrun: starts N ranks of any program with their environment; propagates
# failures with one line; exports -x variables.
. "$(dirname "$0")/lib.sh"

run --timeout 20 -np 4 hostname
expect_rc 0 "hostname"
[ "$(wc -l <"$T/out")" -eq 4 ] || fail "boltrun -np 4 hostname printed $(wc -l <"$T/out") lines"
[ ! -s "$T/err" ] || fail "stderr not empty"

# Every rank's environment.
run --timeout 20 -np 3 sh -c 'echo "$BOLT_RANK $BOLT_SIZE $BOLT_LOCAL_RANK $BOLT_LOCAL_SIZE ${#BOLT_JOB_SECRET} $BOLT_KVS_ADDR $BOLT_JOB_ID $BOLT_LAUNCHER_HOST"'
expect_rc 0 "env"
for r in 0 1 2; do
    grep -Eq "^$r 3 $r 3 64 127\.0\.0\.1:[0-9]+ [0-9]+\.[0-9a-f]+ .+\$" "$T/out" || fail "rank $r's environment"
done
[ "$(cut -d' ' -f6 "$T/out" | sort -u | wc -l)" -eq 1 ] || fail "ranks disagree on BOLT_KVS_ADDR"

# Program arguments pass untouched, options included.
run --timeout 20 -np 1 -- printf '%s|' -np 5 --help "a b" ''
expect_rc 0 "printf"
[ "$(cat "$T/out")" = "-np|5|--help|a b||" ] || fail "arguments were changed: $(cat "$T/out")"

# -x VAR=VAL sets, -x VAR passes boltrun's value.
FROM_BOLTRUN="outer value" run --timeout 20 -np 2 -x FROM_BOLTRUN -x SET_HERE=x=1 sh -c 'echo "$FROM_BOLTRUN/$SET_HERE"'
expect_rc 0 "-x"
[ "$(sort -u "$T/out")" = "outer value/x=1" ] || fail "-x values: $(cat "$T/out")"

# Rank 0 reads boltrun's stdin; the others read /dev/null.
echo "from stdin" | "$BOLTRUN" --timeout 20 -np 2 sh -c 'read l || l=EOF; echo "$BOLT_RANK:$l"' >"$T/out" 2>"$T/err"
grep -qx '0:from stdin' "$T/out" && grep -qx '1:EOF' "$T/out" || fail "stdin: $(cat "$T/out")"

# A failing rank: its status is boltrun's, with one line naming rank and host.
host=$(hostname)
run --timeout 20 -np 4 sh -c 'if [ "$BOLT_RANK" = 2 ]; then echo "rank 2 says bye" >&2; exit 3; fi; sleep 10'
expect_rc 3 "exit 3"
expect_err_line "boltrun: rank 2 on $host exited with status 3"
[ "$(grep -c '^boltrun:' "$T/err")" -eq 1 ] || fail "more than one boltrun line"
grep -n . "$T/err" | grep -q '^1:rank 2 says bye' || fail "the rank's last words should come first"

# A final line without newline gets one.
run --timeout 20 -np 1 printf 'no newline'
[ "$(cat "$T/out")" = "no newline" ] && [ "$(tail -c 1 "$T/out" | od -An -c | tr -d ' ')" = '\n' ] || fail "partial line"
exit 0

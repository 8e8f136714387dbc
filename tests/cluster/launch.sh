#!/bin/sh
# launch.sh — boltrun across the cluster's hosts: placement by slot and by
# node, hostfiles, arguments and -x values with quotes and spaces, stdout,
# stderr and stdin of remote ranks, exit statuses; nothing left behind.
. "$(dirname "$0")/lib.sh"
MARK="31.$$7"

# By slot (the default): ranks 0,1 on h1, 2,3 on h2, ...
run --host h1:2,h2:2,h3:2,h4:2 sh -c 'echo "$BOLT_RANK $(hostname) $BOLT_LOCAL_RANK/$BOLT_LOCAL_SIZE $BOLT_SIZE"'
expect_rc 0 "4 hosts by slot"
sort -n "$T/out" >"$T/sorted"
printf '%s\n' "0 h1 0/2 8" "1 h1 1/2 8" "2 h2 0/2 8" "3 h2 1/2 8" "4 h3 0/2 8" "5 h3 1/2 8" "6 h4 0/2 8" "7 h4 1/2 8" >"$T/want"
cmp -s "$T/sorted" "$T/want" || { diff "$T/want" "$T/sorted" >&2; fail "placement by slot"; }

# By node: round-robin over the hosts.
run --host h1:2,h2:2,h3:2,h4:2 --map-by node -np 6 sh -c 'echo "$BOLT_RANK $(hostname)"'
expect_rc 0 "by node"
sort -n "$T/out" >"$T/sorted"
printf '%s\n' "0 h1" "1 h2" "2 h3" "3 h4" "4 h1" "5 h2" >"$T/want"
cmp -s "$T/sorted" "$T/want" || { diff "$T/want" "$T/sorted" >&2; fail "placement by node"; }

# A hostfile in Open MPI's format.
printf '# test cluster\n\nh3 slots=1\nh4 slots=2   # two here\n' >"$T/hosts"
run --hostfile "$T/hosts" sh -c 'echo "$BOLT_RANK $(hostname)"'
expect_rc 0 "hostfile"
[ "$(sort -n "$T/out" | paste -sd, -)" = "0 h3,1 h4,2 h4" ] || fail "hostfile placement: $(cat "$T/out")"
printf 'h1 slots=2\nh2 slots=two\n' >"$T/bad"
run --hostfile "$T/bad" true
expect_rc 2 "bad hostfile"
grep -qxF "boltrun: $T/bad:2: slots= expects a positive integer, got 'two'" "$T/err" || fail "bad hostfile message"
run --host h1:2 -np 3 true
expect_rc 2 "too many ranks"

# Arguments and -x values arrive exactly, whatever quotes and spaces.
run --host h2 -x "V=a 'b' \"c\"  d \$HOME" sh -c 'printf "<%s>\n" "$@" "$V"' argv0 "a b" "it's" '"q"' '$HOME' '' ' x '
expect_rc 0 "arguments"
printf '%s\n' "<a b>" "<it's>" '<"q">' '<$HOME>' "<>" "< x >" "<a 'b' \"c\"  d \$HOME>" >"$T/want"
cmp -s "$T/out" "$T/want" || { diff "$T/want" "$T/out" >&2; fail "arguments or -x changed on the way"; }

# stdout and stderr apart, tagged; stdin to a remote rank.
printf 'line one\nline two\n' | "$BOLTRUN" --host h1,h2,h3 --tag-output --stdin 2 \
    sh -c 'if [ "$BOLT_RANK" = 2 ]; then cat; fi; echo "err of $BOLT_RANK" >&2' >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "stdio"
printf '%s\n' "[2] line one" "[2] line two" >"$T/want"
cmp -s "$T/out" "$T/want" || { diff "$T/want" "$T/out" >&2; fail "stdin/stdout of a remote rank"; }
[ "$(sort "$T/err" | paste -sd, -)" = "[0] err of 0,[1] err of 1,[2] err of 2" ] || fail "stderr: $(cat "$T/err")"

# Exit status: the first failing rank's, named with its host.
run --host h1:2,h2:2,h3:2,h4:2 sh -c '[ "$BOLT_RANK" = 5 ] && exit 3; sleep '"$MARK"
expect_rc 3 "a rank exits 3"
grep -qxF "boltrun: rank 5 on h3 exited with status 3" "$T/err" || fail "exit message"
no_leftovers "$MARK" 50
echo "launch: placement, hostfile, arguments, stdio, exit status OK"

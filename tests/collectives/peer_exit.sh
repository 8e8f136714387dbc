#!/bin/sh
# A rank that leaves without bolt_finalize in the middle of a job: every
# survivor's next collective returns BOLT_ERR_PEER (never a hang), for
# several all-reduce algorithms, blocking and nonblocking.
. "$(dirname "$0")/lib.sh"
cases_main='"2 rd" "3 ring" "4 rd" "4 mesh" "5 rabenseifner --large" "4 oneshot --large"'
cases_tcp='"4 rd" "3 ring --large"'
for tl in $TL_MAIN tcp; do
    [ $tl = tcp ] && [ $TL_MAIN != tcp ] && cases=$cases_tcp || cases=$cases_main
    eval "set -- $cases"
    for case in "$@"; do
        set -- $case
        np=$1 algo=$2 nb=${3:-}
        out=$(BOLT_TRANSPORTS=$tl "$BOLTRUN" --timeout 120 -np "$np" -x BOLT_ALLREDUCE_ALGO=$algo \
            "$T/coll_check" peer_exit $nb 2>&1); rc=$?
        seen=$(printf '%s\n' "$out" | grep -c 'saw: ')
        if [ $rc -eq 0 ] && [ "$seen" -eq $((np - 1)) ]; then
            echo "pass: BOLT_TRANSPORTS=$tl -np $np $algo $nb: $seen survivors got an error"
            passes=$((passes + 1))
        else
            echo "FAIL: BOLT_TRANSPORTS=$tl -np $np $algo $nb (exit $rc, $seen survivors saw it)"
            printf '%s\n' "$out" | tail -n 20
            fails=$((fails + 1))
        fi
    done
done
# a small blocking gather (no schedule) whose root waits for the dead rank:
# by the tree on 2 ranks, straight to the root on 4 (ranks crowd the cores)
for np in 2 4; do
    out=$("$BOLTRUN" --timeout 120 -np "$np" -x COLL_DEAD_GATHER=1 "$T/coll_check" peer_exit 2>&1); rc=$?
    seen=$(printf '%s\n' "$out" | grep -c 'saw: ')
    if [ $rc -eq 0 ] && [ "$seen" -eq $((np - 1)) ] && printf '%s\n' "$out" | grep -q 'rank 0 saw: .*rank'; then
        echo "pass: -np $np gather: the root got an error"
        passes=$((passes + 1))
    else
        echo "FAIL: -np $np gather (exit $rc, $seen survivors)"
        printf '%s\n' "$out" | tail -n 20
        fails=$((fails + 1))
    fi
done
finish

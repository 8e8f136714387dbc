#!/bin/sh
# A rank that leaves without bolt_finalize in the middle of a job: every
# survivor's next collective returns BOLT_ERR_PEER (never a hang), for
# several all-reduce algorithms, blocking and nonblocking; and a small
# gather's root, the one rank that waits for the dead one.
. "$(dirname "$0")/lib.sh"
# judge LABEL NP RC OUT [PATTERN]: the job ended, every survivor reported,
# and (when given) PATTERN is in what they printed
judge() {
    seen=$(printf '%s\n' "$4" | grep -c 'saw: ')
    if [ "$3" -eq 0 ] && [ "$seen" -eq $(($2 - 1)) ] && { [ -z "${5:-}" ] || printf '%s\n' "$4" | grep -q "$5"; }; then
        echo "pass: $1: $seen survivors reported"
        passes=$((passes + 1))
    else
        echo "FAIL: $1 (exit $3, $seen survivors reported)"
        printf '%s\n' "$4" | tail -n 20
        fails=$((fails + 1))
    fi
}
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
        judge "BOLT_TRANSPORTS=$tl -np $np $algo $nb" "$np" $rc "$out"
    done
done
# a small blocking gather (no schedule) whose root waits for the dead rank:
# by the tree on 2 ranks, straight to the root on 4 (ranks crowd the cores)
for np in 2 4; do
    out=$("$BOLTRUN" --timeout 120 -np "$np" -x COLL_DEAD_GATHER=1 "$T/coll_check" peer_exit 2>&1); rc=$?
    judge "-np $np gather, the root hears of the dead rank" "$np" $rc "$out" 'rank 0 saw: .*rank'
done
finish

#!/bin/sh
# 16 MiB: all-reduce by every algorithm (on 2, 3 or 4 ranks; auto also over
# TCP alone) and broadcast by the pipelined algorithms.
. "$(dirname "$0")/lib.sh"
for case in "2 auto" "4 auto" "4 ring" "3 rabenseifner" "4 mesh" "2 rd" "3 oneshot"; do
    set -- $case
    run "$1" -x BOLT_ALLREDUCE_ALGO=$2 "$T/coll_check" allreduce --huge
done
run 3 -x BOLT_BCAST_ALGO=scatter_allgather "$T/coll_check" data --huge
run 4 -x BOLT_BCAST_ALGO=chain "$T/coll_check" data --huge
run_tcp 4 "$T/coll_check" allreduce --huge
finish

#!/bin/sh
# 16 MiB all-reduce (every algorithm) and broadcast on 2 and 4 ranks.
. "$(dirname "$0")/lib.sh"
for algo in auto ring rabenseifner mesh rd oneshot; do
    for np in 2 4; do
        run "$np" -x BOLT_ALLREDUCE_ALGO=$algo "$T/coll_check" allreduce --huge
    done
done
run 4 -x BOLT_BCAST_ALGO=chain "$T/coll_check" data --huge
run 3 -x BOLT_BCAST_ALGO=scatter_allgather "$T/coll_check" data --huge
finish

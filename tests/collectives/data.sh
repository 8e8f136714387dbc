#!/bin/sh
# Data movement: each broadcast and all-gather algorithm, gather(v),
# scatter(v), allgatherv, alltoall(v), barrier, in place and not; 1 MiB + 3
# on up to 4 ranks.
. "$(dirname "$0")/lib.sh"
set -- "auto auto" "binomial ring" "chain rd" "scatter_allgather bruck"
for pair in "$@"; do
    bc=${pair% *}; ag=${pair#* }
    for np in $NPS; do
        big=; [ "$np" -le 4 ] && big=--large
        run "$np" -x BOLT_BCAST_ALGO=$bc -x BOLT_ALLGATHER_ALGO=$ag "$T/coll_check" data $big
    done
done
finish

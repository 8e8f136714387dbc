#!/bin/sh
# Each all-reduce algorithm (forced with BOLT_ALLREDUCE_ALGO) on 1..8 ranks:
# exact results, in place, non-commutative op, bitwise identity across ranks
# and runs; 1 MiB + 3 elements on up to 5 ranks.
. "$(dirname "$0")/lib.sh"
for algo in auto rd ring rabenseifner oneshot mesh; do
    for np in $NPS; do
        big=; [ "$np" -le 5 ] && big=--large
        run "$np" -x BOLT_ALLREDUCE_ALGO=$algo "$T/coll_check" allreduce $big
    done
done
finish

#!/bin/sh
# Every op x type (allreduce, reduce, scan, exscan, reduce-scatter) and a
# non-commutative user op, small sizes, on 1..8 ranks (8 on 2 cores is oversubscribed).
. "$(dirname "$0")/lib.sh"
run 1 "$T/coll_check" local
for np in $NPS; do run "$np" "$T/coll_check" reduce; done
finish

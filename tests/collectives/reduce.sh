#!/bin/sh
# Every op x type (allreduce, reduce, scan, exscan, reduce-scatter), a
# non-commutative user op, and nonblocking collectives in flight together
# with user traffic, on 1..8 ranks (8 on 2 cores is oversubscribed).
. "$(dirname "$0")/lib.sh"
for np in $NPS; do run "$np" "$T/coll_check" local,reduce,nonblocking; done
run_tcp 3 "$T/coll_check" reduce,nonblocking
run_tcp 8 "$T/coll_check" reduce,nonblocking
finish

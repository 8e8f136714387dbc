#!/bin/sh
# Nonblocking collectives in flight together, with user point-to-point and a
# blocking collective between them, on split and duplicated communicators.
. "$(dirname "$0")/lib.sh"
for np in $NPS; do run "$np" "$T/coll_check" nonblocking; done
run 3 -x BOLT_ALLREDUCE_ALGO=ring "$T/coll_check" nonblocking --large
run 4 -x BOLT_ALLREDUCE_ALGO=rabenseifner -x BOLT_BCAST_ALGO=chain "$T/coll_check" nonblocking
finish

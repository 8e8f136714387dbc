#!/bin/sh
# Each algorithm, forced by its setting, on 1..8 ranks: all-reduce (sizes 0,
# 1, 7, 1 KiB, in place, non-commutative op, bitwise identity across ranks
# and runs) and data movement (bcast, gather(v), scatter(v), allgather(v),
# alltoall(v)); 1 MiB + 3 elements on 2 and 3 ranks. Each line pairs an
# all-reduce, a broadcast and an all-gather algorithm.
. "$(dirname "$0")/lib.sh"
for v in "auto auto auto" "rd binomial ring" "ring chain rd" \
         "rabenseifner scatter_allgather bruck" "oneshot flat bruck" "mesh chain direct"; do
    set -- $v
    env="-x BOLT_ALLREDUCE_ALGO=$1 -x BOLT_BCAST_ALGO=$2 -x BOLT_ALLGATHER_ALGO=$3"
    for np in $NPS; do
        # one rank runs no algorithm at all: once is enough
        [ "$np" -eq 1 ] && [ "$1" != auto ] && continue
        big=; [ "$np" -le 3 ] && big=--large
        run "$np" $env "$T/coll_check" allreduce,data $big
    done
    run_tcp 4 $env "$T/coll_check" allreduce,data
done
# 17 ranks: more than the v-variants keep their byte counts for without
# malloc (COLL_VB_INLINE)
run 17 "$T/coll_check" data
# the linear barrier (fan-in to rank 0, release in rank order), forced, on
# every rank count, blocking and nonblocking (the data suite's barriers)
for np in $NPS; do
    [ "$np" -eq 1 ] && continue
    run "$np" -x BOLT_BARRIER_ALGO=linear "$T/coll_check" data,nonblocking
done
run_tcp 3 -x BOLT_BARRIER_ALGO=linear "$T/coll_check" data
# a flat broadcast tree where receivers can read the root's buffer
# themselves (shm single-copy: Linux; the model also needs two cores to share
# when ranks outnumber them), never where the root would copy every message
# (TCP on one host, shm without single-copy), nor on 3 ranks (binomial is
# flat there); every rank picks the same
cores=$("$TOP_BUILDDIR/bolt-info" --topology | sed -n 's/^usable here : \([0-9]*\) core.*/\1/p')
case $TL_MAIN in
shm*)
    if [ "$(uname -s)" = Linux ] && [ "${cores:-1}" -ge 2 ]; then
        run 4 "$T/coll_check" choice "bcast:16777216=flat"
    fi
    run 4 -x BOLT_SHM_CMA=off "$T/coll_check" choice "bcast:65536!=flat,bcast:16777216!=flat"
    # ranks crowding 2 cores: through shared memory a message costs no
    # system call, and one-shot's single step (fewer waits for a core-mate)
    # wins at small sizes on 4 ranks, not on 8 (56 messages against 24)
    if [ "${cores:-1}" -eq 2 ]; then
        run 4 "$T/coll_check" choice "allreduce:4=oneshot,allreduce:1024=oneshot,allreduce:4096=rd,allreduce:65536=mesh"
        run 8 "$T/coll_check" choice "allreduce:4=rd"
        # and a barrier by rank 0 (2 (n - 1) messages in two steps) beats
        # dissemination's n log2 n, from 3 ranks on
        run 3 "$T/coll_check" choice "barrier:0=linear"
        run 4 "$T/coll_check" choice "barrier:0=linear"
        run 8 "$T/coll_check" choice "barrier:0=linear"
        # large scans along a chain: n - 1 messages and reductions, not
        # n log2 n - (n - 1) (no idle core: the work sets the time)
        run 4 "$T/coll_check" choice "scan:16384=rd,scan:16388=linear,exscan:1048576=linear"
        run 8 "$T/coll_check" choice "scan:65536=linear"
        # gather and scatter straight to and from the root (no forwarder
        # waits for a core), the tree where each rank has one
        run 4 "$T/coll_check" choice "gather:4=linear,scatter:262144=linear"
        run 2 "$T/coll_check" choice "gather:4=binomial,scatter:262144=binomial"
    fi
    ;;
esac
over_tcp 4 "$T/coll_check" choice "bcast:65536!=flat,bcast:16777216=chain"
# a tree forwards whole buffers, beyond a rank's share of the cache from
# memory; a chain forwards segments: 4 ranks on 2 cores (a 1 MiB share each)
# over TCP broadcast by chain from a little above 1 MiB
if [ "${cores:-1}" -eq 2 ]; then
    over_tcp 4 "$T/coll_check" choice "bcast:786432=binomial,bcast:1572864=chain"
    over_tcp 4 -x BOLT_COLL_CACHE=0 "$T/coll_check" choice "bcast:2097152=binomial"
    # over sockets each message is system calls: recursive doubling
    over_tcp 4 "$T/coll_check" choice "allreduce:4=rd,allreduce:1024=rd"
    # there the root's 2 (n - 1) system calls outweigh the saved messages
    over_tcp 4 "$T/coll_check" choice "barrier:0=dissemination"
fi
run 3 "$T/coll_check" choice "bcast:4!=flat,bcast:16777216!=flat"
# a core per rank: dissemination (log2 n steps, no rank serving the others)
run 2 "$T/coll_check" choice "barrier:0=dissemination,scan:1048576=rd"
# 2-rank mesh all-reduce: a chunk beyond the cache share (made small in the
# first run) is folded into the result as it comes, read piece by piece; a
# smaller one lands whole (both ends copying) and is folded after, as does
# any chunk when the receiver does not read the sender itself (TCP; shm
# without single-copy)
run 2 -x BOLT_ALLREDUCE_ALGO=mesh -x BOLT_COLL_CACHE=64K "$T/coll_check" allreduce --large
run 2 -x BOLT_ALLREDUCE_ALGO=mesh "$T/coll_check" allreduce --large
run_tcp 2 -x BOLT_ALLREDUCE_ALGO=mesh "$T/coll_check" allreduce --large
run 2 -x BOLT_ALLREDUCE_ALGO=mesh -x BOLT_SHM_CMA=0 "$T/coll_check" allreduce --large
# more ranks: where a rank's n - 1 copies of its chunk outgrow its share of
# the cache (made small here), each is folded in as it comes, one peer per
# round (commutative ops; the rest reduce after all landed); in place, and
# reduce-scatter, which shares the code
run 5 -x BOLT_ALLREDUCE_ALGO=mesh -x BOLT_COLL_CACHE=64K "$T/coll_check" allreduce --large
run_tcp 3 -x BOLT_ALLREDUCE_ALGO=mesh -x BOLT_COLL_CACHE=64K "$T/coll_check" allreduce --large
run 4 -x BOLT_ALLREDUCE_ALGO=mesh -x BOLT_COLL_CACHE=64K -x BOLT_SHM_CMA=0 "$T/coll_check" allreduce --large
# nonblocking ones on the pipelined algorithms, large
run 2 -x BOLT_ALLREDUCE_ALGO=mesh "$T/coll_check" nonblocking --large
run 3 -x BOLT_ALLREDUCE_ALGO=ring -x BOLT_BCAST_ALGO=chain "$T/coll_check" nonblocking --large
run 4 -x BOLT_ALLREDUCE_ALGO=rabenseifner -x BOLT_BCAST_ALGO=scatter_allgather \
    "$T/coll_check" nonblocking --large
run 5 -x BOLT_BCAST_ALGO=flat "$T/coll_check" nonblocking --large
finish

#!/bin/sh
# A root broadcasting in a loop: every value arrives, and the ranks behind
# it do not pile up what it sent ahead (bcast_flood.c), on 2 and 3 ranks;
# and large ones on 4. Small reduces, scans and scatters in a loop, a rank
# sleeping now and then (small_flood.c), on 2, 3 and 5 ranks (5 on 2 cores).
# Large reductions in a loop without fresh pages (scratch_reuse.c).
. "$(dirname "$0")/lib.sh"
for np in 2 3; do run "$np" "$T/bcast_flood"; done
# 64 KiB flat broadcasts on 4 ranks: through the root's shared slots on one
# host (shm) while one is free, by rendezvous while the receivers are behind
run 4 -x BOLT_BCAST_ALGO=flat "$T/bcast_flood" 3000 65536
for np in 2 3 5; do run "$np" "$T/small_flood"; done
# Large reductions in a loop fault no fresh pages once warmed up (their
# scratch buffers are kept), on 2 ranks and on 4 crowding 2 cores.
for np in 2 4; do run "$np" "$T/scratch_reuse"; done
finish

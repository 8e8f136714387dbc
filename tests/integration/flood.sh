#!/bin/sh
# p2p_flood: every rank floods every other past the transports' queues, on
# 2 to 4 ranks and 7 (more ranks than cores), and over shared memory with its
# large messages read single-copy (the default) and staged (BOLT_SHM_CMA=0).
# A frame lost from a send queue stalls it: the program then fails by itself.
. "$(dirname "$0")/lib.sh"
for np in 2 3 4 7; do run "$np" "$T/p2p_flood"; done
TRANSPORTS_UNDER_TEST=shm,tcp # staging is shared memory's alone
for np in 3 4; do BOLT_SHM_CMA=0 run "$np" "$T/p2p_flood"; done
finish

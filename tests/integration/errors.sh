#!/bin/sh
# p2p_errors through boltrun with 1, 2, 3, 4 and 7 ranks (more ranks than cores).
. "$(dirname "$0")/lib.sh"
for np in $NPS; do run "$np" "$T/p2p_errors"; done
for np in 1 2 4; do run "$np" "$T/finalized_peer"; done
finish

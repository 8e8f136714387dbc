#!/bin/sh
# p2p_pingpong through boltrun with 1, 2, 3, 4 and 7 ranks (more ranks than cores);
# p2p_overlap: a sender computing between isend and wait does not hold up its receiver.
. "$(dirname "$0")/lib.sh"
for np in $NPS; do run "$np" "$T/p2p_pingpong"; done
run 2 "$T/p2p_overlap"
finish

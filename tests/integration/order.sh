#!/bin/sh
# p2p_order through boltrun with 1, 2, 3, 4 and 7 ranks (more ranks than cores).
. "$(dirname "$0")/lib.sh"
for np in $NPS; do run "$np" "$T/p2p_order"; done
finish

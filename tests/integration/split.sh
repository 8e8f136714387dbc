#!/bin/sh
# comm_split through boltrun with 1, 2, 3, 4 and 7 ranks (more ranks than cores).
. "$(dirname "$0")/lib.sh"
for np in $NPS; do run "$np" "$T/comm_split"; done
finish

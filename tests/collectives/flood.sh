#!/bin/sh
# A root broadcasting in a loop: every value arrives, and the ranks behind
# it do not pile up what it sent ahead (bcast_flood.c), on 2 and 3 ranks.
. "$(dirname "$0")/lib.sh"
for np in 2 3; do run "$np" "$T/bcast_flood"; done
finish

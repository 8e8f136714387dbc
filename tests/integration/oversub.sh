#!/bin/sh
# More ranks than cores (8 ranks; this machine has 2): waits sleep in poll()
# instead of spinning, and every message must still wake its receiver at
# once, over shared memory and over TCP alike.
. "$(dirname "$0")/lib.sh"
for p in p2p_pingpong p2p_anysource p2p_order p2p_many; do run 8 "$T/$p"; done
# Lost wake-ups would cost 20 ms each (the engine's poll cap): the average
# small round trip of 4 pairs sharing the cores must stay under 2 ms.
run 8 "$T/p2p_wakeups" 2
finish

#!/bin/sh
# The same traffic through the TCP transport's other paths: the portable
# poll() event loop, one connection per peer, large messages striped over
# several connections, and waits that never spin (as when ranks outnumber
# cores).
. "$(dirname "$0")/lib.sh"
BOLT_TCP_EVLOOP=poll run 3 "$T/p2p_pingpong"
BOLT_TCP_CONNS=1 run 3 "$T/p2p_pingpong"
BOLT_TCP_EVLOOP=epoll run 2 "$T/p2p_many"
BOLT_TCP_CONNS=3 BOLT_TCP_STRIPE_MIN=100000 run 4 "$T/p2p_pingpong"
BOLT_TCP_CONNS=2 BOLT_TCP_STRIPE_MIN=1 run 3 "$T/p2p_order"
BOLT_SPIN_COUNT=0 run 4 "$T/p2p_many"
BOLT_TCP_EAGER_LIMIT=0 run 3 "$T/p2p_anysource"
BOLT_TCP_EAGER_LIMIT=1M run 2 "$T/p2p_pingpong"
finish

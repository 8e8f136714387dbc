#!/bin/sh
. /work/main/tests/cluster/lib.sh
"$BOLTRUN" --timeout 120 --host "$SLHOSTS" -np $SLNP -x BOLT_TRANSPORTS=shm,tcp -x LD_LIBRARY_PATH=/work/main/_build/release/.libs /tmp/sl/sl $SLN
echo "rc=$?"

#!/bin/sh
# MPI_ERRORS_ARE_FATAL: an invalid call ends the whole job promptly with one
# message naming the call, the rank and the cause (a few lines, not a flood); a call before MPI_Init is
# refused with a message, not a crash.
. "$TOP_SRCDIR/tests/integration/lib.sh"
P="$TOP_BUILDDIR/tests/mpi/mpi_fatal"

expect_fatal() { # NP MODE PATTERN [BOLT_TRANSPORTS]
    start=$(date +%s)
    out=$(env ${BOLT_RMA_SHARED:+BOLT_RMA_SHARED=$BOLT_RMA_SHARED} ${BOLT_KILL_GRACE:+BOLT_KILL_GRACE=$BOLT_KILL_GRACE} ${4:+BOLT_TRANSPORTS=$4} "$BOLTRUN" --timeout 60 -np "$1" "$P" "$2" 2>&1)
    rc=$?
    took=$(( $(date +%s) - start ))
    if [ $rc -eq 0 ] || ! printf '%s\n' "$out" | grep -q "$3" || printf '%s\n' "$out" | grep -q survived \
       || [ "$took" -gt 20 ] || [ "$(printf '%s\n' "$out" | wc -l)" -gt 20 ]; then
        echo "FAIL: $2 with $1 ranks (exit $rc, ${took}s), wanted /$3/:"; printf '%s\n' "$out" | tail -n 15
        fails=$((fails + 1))
    else
        echo "pass: $2 with $1 ranks ended the job in ${took}s: $(printf '%s\n' "$out" | grep "$3" | head -n 1)"
        passes=$((passes + 1))
    fi
}
expect_fatal 3 rank "rank 2 on .*MPI_Send: rank 6 is out of range.*MPI_ERR_RANK"
expect_fatal 2 comm "rank 1 on .*MPI_Send: the communicator is MPI_COMM_NULL"
expect_fatal 2 type "rank 1 on .*MPI_Send: datatype handle 12345 is not a live datatype"
expect_fatal 2 unsupported "rank 1 on .*MPI_Comm_spawn: dynamic process management is not supported by Bolt (see README: MPI support)"
expect_fatal 2 rma-range "rank 1 on .*MPI_Put: bytes 4..8 are outside rank 0's window of 4 bytes.*MPI_ERR_RMA_RANGE"
# A rank dies holding a lock others wait for: shared memory, kernel copies
# and messages (BOLT_RMA_SHARED=0) alike end the job with its death.
expect_fatal 3 rma-dead "rank 2 on .* was killed by signal 9"
BOLT_RMA_SHARED=0 expect_fatal 3 rma-dead "rank 2 on .* was killed by signal 9"
BOLT_RMA_SHARED=0 expect_fatal 3 rma-dead "rank 2 on .* was killed by signal 9" tcp
# The others ignore SIGTERM and go on until the launcher's SIGKILL: the
# target side of their window, its receive failing for the dead peer, says
# so once (after a grace, past which it ends the job itself), not once per
# poll.
BOLT_KILL_GRACE=2 BOLT_RMA_SHARED=0 expect_fatal 3 rma-dead-held "rank 2 on .* was killed by signal 9" tcp
BOLT_KILL_GRACE=6 BOLT_RMA_SHARED=0 expect_fatal 3 rma-dead-held \
    "rank [01] on .*MPI one-sided progress (the window's target side): .*peer rank 2 on .* is gone" tcp
unset BOLT_RMA_SHARED BOLT_KILL_GRACE
# An MPI_Init that fails ends the job with its cause, as in other MPIs; the
# program must not carry on without MPI. Here no transport can reach the
# peers: BOLT_TRANSPORTS names only a transport with nothing behind it.
expect_fatal 2 init "MPI_Init: rank . on .*BOLT_TRANSPORTS='nonesuch'" nonesuch
expect_fatal 2 init-thread "MPI_Init_thread: rank . on .*BOLT_TRANSPORTS='nonesuch'" nonesuch

out=$("$P" before-init 2>&1)
if [ $? -eq 0 ] && printf '%s\n' "$out" | grep -q "MPI_Send: called before MPI_Init"; then
    echo "pass: a call before MPI_Init is refused with a message"; passes=$((passes + 1))
else
    echo "FAIL: a call before MPI_Init: $out"; fails=$((fails + 1))
fi
finish

#!/bin/sh
# boltrun forwards its stdin to one rank through a pipe (--stdin RANK, default
# 0; --stdin none): the data arrives intact, from a file or a slow producer,
# the other ranks see EOF at once, the buffering is bounded, and a rank that
# does not read its stdin neither hangs nor kills boltrun.
. "$(dirname "$0")/lib.sh"

# 1 MiB of known content: 131072 lines of 8 bytes.
awk 'BEGIN { for (i = 0; i < 131072; i++) printf "%07d\n", i }' >"$T/in"
[ "$(wc -c <"$T/in")" -eq 1048576 ] || fail "test input is not 1 MiB"
want=$(cksum <"$T/in")

# Rank 0 checksums its stdin; the others must see EOF (cat ends at once).
prog='if [ "$BOLT_RANK" = "$1" ]; then echo "sum $(cksum)"; else cat; echo "rank $BOLT_RANK: EOF"; fi'
"$BOLTRUN" --timeout 30 -np 3 sh -c "$prog" sh 0 <"$T/in" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "1 MiB from a file"
grep -qxF "sum $want" "$T/out" || fail "rank 0 did not get the file intact"
grep -qx 'rank 1: EOF' "$T/out" && grep -qx 'rank 2: EOF' "$T/out" || fail "ranks 1 and 2 did not see EOF"
[ "$(wc -l <"$T/out")" -eq 3 ] || fail "stdin reached a rank other than 0"
[ ! -s "$T/err" ] || fail "stderr not empty"

# A slow producer writing in pieces of various sizes (one larger than boltrun's
# 64 KiB buffer), and a reader slower still at first. The producer waits, after
# its first piece, for ranks 1 and 2 to have seen EOF: they must not wait for
# boltrun's stdin to end.
produce() { # pause
    i=0
    for n in 1 4095 4096 70000 200000 7 300000 12; do
        i=$((i + 1))
        head -c "$n" /dev/zero | tr '\000' "$((i % 10))"
        if [ "$1" != 0 ]; then
            if [ "$i" = 1 ]; then
                k=0
                until [ -e "$T/eof1" ] && [ -e "$T/eof2" ]; do
                    k=$((k + 1))
                    [ "$k" -lt 100 ] || { echo late >"$T/late"; break; }
                    sleep 0.1
                done
            fi
            sleep "$1"
        fi
    done
}
want=$(produce 0 | cksum)
[ "$(produce 0 | wc -c)" -eq 578211 ] || fail "the test producer is broken"
rm -f "$T/eof1" "$T/eof2" "$T/late"
prog='if [ "$BOLT_RANK" = 0 ]; then sleep 1; echo "sum $(cksum)"; else cat; touch "$1/eof$BOLT_RANK"; fi'
produce 0.1 | "$BOLTRUN" --timeout 30 -np 3 sh -c "$prog" sh "$T" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "slow producer"
grep -qxF "sum $want" "$T/out" || fail "rank 0 did not get the slow producer's data intact"
[ ! -e "$T/late" ] || fail "ranks 1 and 2 did not see EOF while boltrun's stdin was still open"

# --stdin 2 sends it to rank 2; ranks 0 and 1 see EOF.
want=$(cksum <"$T/in")
prog='if [ "$BOLT_RANK" = "$1" ]; then echo "sum $(cksum)"; else cat; echo "rank $BOLT_RANK: EOF"; fi'
"$BOLTRUN" --timeout 30 -np 3 --stdin 2 sh -c "$prog" sh 2 <"$T/in" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "--stdin 2"
grep -qxF "sum $want" "$T/out" || fail "--stdin 2: rank 2 did not get the data intact"
grep -qx 'rank 0: EOF' "$T/out" && grep -qx 'rank 1: EOF' "$T/out" || fail "--stdin 2: ranks 0 and 1 did not see EOF"

# --stdin none: every rank sees EOF, and boltrun leaves its stdin unread.
printf 'one\ntwo\n' | {
    "$BOLTRUN" --timeout 30 -np 3 --stdin none sh -c 'echo "$BOLT_RANK:$(cat)."' >"$T/out" 2>"$T/err"
    echo "rc $?" >>"$T/out"
    cat >"$T/rest"
}
grep -qx 'rc 0' "$T/out" || fail "--stdin none: exit status"
[ "$(grep -c '^[012]:\.$' "$T/out")" -eq 3 ] || fail "--stdin none: a rank did not see EOF at once"
[ "$(cat "$T/rest")" = "$(printf 'one\ntwo')" ] || fail "--stdin none: boltrun consumed its stdin"

# A closed stdin, or /dev/null: rank 0 sees EOF at once.
"$BOLTRUN" --timeout 30 -np 2 sh -c 'echo "$BOLT_RANK:$(cat)."' <&- >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "closed stdin"
[ "$(grep -c '^[01]:\.$' "$T/out")" -eq 2 ] || fail "closed stdin: a rank did not see EOF"
[ ! -s "$T/err" ] || fail "closed stdin: stderr not empty"
run --timeout 30 -np 2 sh -c 'echo "$BOLT_RANK:$(cat)."'
expect_rc 0 "stdin /dev/null"
[ "$(grep -c '^[01]:\.$' "$T/out")" -eq 2 ] || fail "stdin /dev/null: a rank did not see EOF"

# Rank 0 ends without reading while the producer never stops: boltrun drops
# the data (EPIPE), is not killed by SIGPIPE, and buffers a bounded amount: 4
# MB written to it are not all taken while rank 0 sleeps.
(head -c 4000000 /dev/zero; touch "$T/all_taken") |
    "$BOLTRUN" --timeout 30 -np 2 sh -c 'sleep 1; [ ! -e "$1/all_taken" ] || echo unbounded' sh "$T" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "rank 0 not reading"
[ ! -s "$T/out" ] || fail "boltrun read all of its stdin into memory"
[ ! -s "$T/err" ] || fail "rank 0 not reading: stderr not empty"
yes | "$BOLTRUN" --timeout 30 -np 2 sh -c 'if [ "$BOLT_RANK" = 0 ]; then exec 0<&-; sleep 0.5; fi; echo done' >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "rank 0 closing its stdin under an endless producer"
[ "$(grep -c '^done$' "$T/out")" -eq 2 ] || fail "ranks did not finish"
exit 0

#!/bin/sh
# tp_tcp.sh — tensor parallel (boltrun -np N bolt-llm) over TCP alone on one
# host (BOLT_TRANSPORTS=tcp: the ranks' all-reduces and all-gathers go
# through sockets, not shared memory, as between hosts without RDMA). Every
# rank must say it wired TCP connections and none may attach shared memory
# (BOLT_LOG_LEVEL=3). tp_check on 2 and 3 ranks (3: a rank without a
# key/value head in the 2-head model) for a stories15M-shaped F32 model and
# a tiny-llama Q8_0 one: the logits after a 16-token prompt and after each
# of 16 greedy tokens within tp.sh's tolerances of one rank's, every rank
# holding rank 0's. Then bolt-llm as a user runs it: on 2 and 3 ranks the
# same greedy text as one rank, and on 2 the same sampled text with one
# seed (tiny-llama: untied output weights, so its text is not the prompt's
# last word repeated, as a tied random model's is), each rank's layout and
# the collectives' time reported; a rank that fails ends the job with the
# lost rank named, no hang.
. "$(dirname "$0")/lib.sh"
RUN="$TOP_BUILDDIR/boltrun"
CHECK="$TOP_BUILDDIR/tests/inference/tp_check"
[ -x "$CHECK" ] || { echo "SKIP: tp_check is not built"; exit 77; }
TCP="-x BOLT_TRANSPORTS=tcp -x BOLT_LOG_LEVEL=3"

# tcp_only NP WHAT: every rank wired TCP connections, none attached shm
tcp_only() {
    n=$(grep -c "^bolt\[[0-9]*\] debug: tcp: wired [0-9]* lower and [0-9]* higher connection" "$T/err")
    [ "$n" -eq "$1" ] || fail "$2: $n of $1 ranks wired TCP connections"
    ! grep -q "shm: attached" "$T/err" || fail "$2: a rank attached shared memory under BOLT_TRANSPORTS=tcp"
}

mk s15-F32 llama-spm stories15M F32 || finish
mk tl-Q8_0 llama-spm tiny-llama Q8_0 || finish
for spec in "s15-F32 0.001" "tl-Q8_0 0.03"; do
    set -- $spec
    for np in 2 3; do
        "$RUN" -np $np $TCP "$CHECK" "$T/$1.gguf" "$2" 16 >"$T/out" 2>"$T/err" </dev/null ||
            fail "tp_check $1 on $np ranks over tcp: exit $?"
        grep -q "on $np ranks (1 stage): .* 17 greedy tokens compared, .* 0 failures$" "$T/out" ||
            fail "tp_check $1 on $np ranks over tcp: no result line"
        tcp_only $np "tp_check $1 on $np ranks"
        sed 's/$/ [tcp]/' "$T/out"
    done
done

# bolt-llm: one rank's text (greedy, then sampled with one seed)
P="Once upon a time, in a land far away"
M="$T/tl-Q8_0.gguf"
llm -m "$M" -p "$P" -n 16 --temp 0 -t 1 --ignore-eos
[ "$rc" -eq 0 ] || fail "one rank: exit $rc"
cp "$T/out" "$T/one"
for np in 2 3; do
    "$RUN" -np $np $TCP "$LLM" -m "$M" -p "$P" -n 16 --temp 0 -t 1 --ignore-eos >"$T/out" 2>"$T/err" </dev/null ||
        fail "bolt-llm on $np ranks over tcp: exit $?"
    cmp -s "$T/out" "$T/one" || fail "bolt-llm on $np ranks over tcp: not the text of one rank"
    tcp_only $np "bolt-llm on $np ranks"
    [ "$(grep -c "tensor parallel, rank [0-9] of $np" "$T/err")" -eq $np ] || fail "bolt-llm on $np ranks over tcp: no layout of each rank"
    grep -q "tensor parallel over $np ranks: collectives .* ms per token (.*) on rank 0, .* on rank [0-9], the most; .* KB a token" \
        "$T/err" || fail "bolt-llm on $np ranks over tcp: no time in the collectives reported"
    echo "bolt-llm on $np ranks over tcp: the text of one rank"
done
llm -m "$M" -p "$P" -n 16 --seed 5 --temp 0.9 --ignore-eos
[ "$rc" -eq 0 ] || fail "one rank, sampling: exit $rc"
cp "$T/out" "$T/one"
"$RUN" -np 2 $TCP "$LLM" -m "$M" -p "$P" -n 16 --seed 5 --temp 0.9 --ignore-eos >"$T/out" 2>"$T/err" </dev/null ||
    fail "sampling on 2 ranks over tcp: exit $?"
cmp -s "$T/out" "$T/one" || fail "sampling on 2 ranks over tcp: not the text of one rank with the same seed"
tcp_only 2 "sampling on 2 ranks"
echo "bolt-llm on 2 ranks over tcp, sampling: the text of one rank"

# a rank that fails (its context is too short for the prompt): over TCP too
# the job ends with both ranks' messages, not a hang
rank1_fails "$M" "a failed rank over tcp" "tensor parallel, rank 0 of 2: a collective between the ranks failed: .*rank 1" \
    "-x BOLT_TRANSPORTS=tcp" ""

# pipeline parallel over TCP, a rank without the model (another directory,
# the path relative) sent its part by rank 0 (--share-model): the text of
# one rank
homes "$M"
llm -m "$M" -p "$P" -n 16 --temp 0 -t 1 --ignore-eos
cp "$T/out" "$T/one"
"$RUN" -np 2 $TCP -x AWAY=1 "$T/away.sh" "$LLM" -m model.gguf -p "$P" -n 16 --temp 0 -t 1 --ignore-eos --pp 2 --share-model \
    >"$T/out" 2>"$T/err" </dev/null || fail "--pp 2 --share-model over tcp: exit $?"
cmp -s "$T/out" "$T/one" || fail "--pp 2 --share-model over tcp: not the text of one rank"
grep -q "rank 1: received .* MiB in .*, every chunk's CRC-32 checked" "$T/err" || fail "--share-model over tcp: rank 1 received nothing"
tcp_only 2 "--pp 2 --share-model"
echo "bolt-llm in 2 stages over tcp, rank 1 sent its part: the text of one rank"
finish

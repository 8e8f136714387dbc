#!/bin/sh
# Tensor parallel (boltrun -np N bolt-llm): every rank a slice of each layer
# (key/value heads, hidden units, vocabulary rows), one all-reduce after the
# attention and one after the MLP. On 2, 3 and 4 ranks (4 is more ranks than
# heads' units for some models: a rank with no heads), for llama, qwen2
# (biases), qwen3 (QK norm) and a GQA model with a 128k vocabulary, in F32,
# Q8_0 and Q4_K_M: the logits after a 16-token prompt and after each of 24
# greedy tokens within a stated tolerance of one rank's, every rank holding
# rank 0's logits, the same greedy tokens (but ties within rounding); then
# bolt-llm as a user runs it: the same text as one rank, the layout
# reported; a mixture of experts split both ways (whole experts a rank, a
# slice of every expert a rank) held to one rank the same way; pipeline
# parallel (--pp) and both together (2 x 2) the same way; each rank's
# memory about 1 / N of the model's.
. "$(dirname "$0")/lib.sh"
RUN="$TOP_BUILDDIR/boltrun"
CHECK="$TOP_BUILDDIR/tests/inference/tp_check"
[ -x "$CHECK" ] || { echo "SKIP: tp_check is not built"; exit 77; }

# tolerance: the logits' relative RMS difference, as reference.sh holds
# Bolt to llama.cpp: the products' partial sums are added in another order
# (F32: 1e-3), and in the quantized types one activation then rounded the
# other way moves the logits by about 1% from there on (3e-2)
for spec in "s15 llama-spm stories15M" "tq3 qwen2 tiny-qwen3" "q2 qwen2 qwen2-small" "l3 llama-bpe llama3-small"; do
    set -- $spec
    for t in F32 Q8_0 Q4_K_M; do
        mk "$1-$t" "$2" "$3" "$t" || continue
        tol=0.03
        [ "$t" = F32 ] && tol=0.001
        for np in 2 3 4; do
            "$RUN" -np $np "$CHECK" "$T/$1-$t.gguf" $tol 24 >"$T/out" 2>"$T/err" ||
                fail "tp_check $3 $t on $np ranks"
            cat "$T/out"
        done
        [ "$1" = s15 ] || rm -f "$T/$1-$t.gguf"
    done
done

# balanced splits (tp_check's ranks report as their times what they hold
# times 1 + 2 x rank, so that every split must move toward rank 0 however
# busy the machine): the logits
# and greedy tokens of one rank as above, every rank of a group the same
# boundaries, none past its margin; 2, 3 and 4 ranks (hidden units in
# blocks of 32 and of 1, the vocabulary), a stage of each of 2 x 2; the
# mixture of experts below (its vocabulary only)
for spec in "s15-F32 0.001 2" "s15-Q8_0 0.03 3" "s15-F32 0.001 4" "s15-Q4_K_M 0.03 2"; do
    set -- $spec
    TP_CHECK_BALANCE="0.25 2" "$RUN" -np $3 -x TP_CHECK_BALANCE "$CHECK" "$T/$1.gguf" $2 32 >"$T/out" 2>"$T/err" ||
        { cat "$T/err"; fail "tp_check $1 on $3 ranks, balanced"; }
    cat "$T/out"
done
TP_CHECK_BALANCE="0.25 2" "$RUN" -np 4 -x TP_CHECK_BALANCE "$CHECK" "$T/s15-Q8_0.gguf" 0.03 32 expert 2 >"$T/out" 2>"$T/err" ||
    { cat "$T/err"; fail "tp_check stories15M Q8_0 on 2 x 2 ranks, balanced"; }
cat "$T/out"

# bolt-llm: the text of one rank on two and three, the layout on stderr (on
# an untied model: random weights on a tied one repeat the prompt's last
# word, whatever the ranks compute)
P="Once upon a time, in a land far away"
mk tl-F32 llama-spm tiny-llama F32 || finish
mk tl-Q8_0 llama-spm tiny-llama Q8_0 || finish
llm -m "$T/tl-F32.gguf" -p "$P" -n 24 --temp 0 -t 1 --ignore-eos
[ "$rc" -eq 0 ] || fail "one rank: exit $rc"
cp "$T/out" "$T/one"
for np in 2 3; do
    "$RUN" -np $np "$LLM" -m "$T/tl-F32.gguf" -p "$P" -n 24 --temp 0 -t 1 --ignore-eos >"$T/out" 2>"$T/err" </dev/null ||
        fail "bolt-llm on $np ranks: exit $?"
    cmp -s "$T/out" "$T/one" || fail "bolt-llm on $np ranks: not the text of one rank"
    [ "$(grep -c "tensor parallel, rank [0-9] of $np" "$T/err")" -eq $np ] || fail "bolt-llm on $np ranks: no layout of each rank"
    grep -q "  eval time = .* / *23 runs" "$T/err" || fail "bolt-llm on $np ranks: no generation speed"
    grep -q "a token's MLP products took [0-9.]*-[0-9.]* ms on the ranks (rank [0-9] the fastest, rank [0-9] the slowest" \
        "$T/err" || fail "bolt-llm on $np ranks: no time of each rank's MLP products reported"
    grep -q "tensor parallel over $np ranks: collectives .* ms per token (.*) on rank 0, .* on rank [0-9], the most; .* KB a token" \
        "$T/err" || fail "bolt-llm on $np ranks: no time in the collectives reported"
    # the collectives' own time: every call of the run (23 tokens decoded
    # through 2 layers, two all-reduces each, and 24 tokens picked by a
    # MAXLOC: 116), each no longer than rank 0's, so at most its sum
    own=$(sed -n "s/.*tensor parallel over $np ranks: the collectives' own time \([0-9.]*\) ms per token (.*; \([0-9]*\) calls,.*/\1 \2/p" "$T/err")
    all=$(sed -n "s/.*tensor parallel over $np ranks: collectives \([0-9.]*\) ms per token.*/\1/p" "$T/err")
    [ -n "$own" ] && [ -n "$all" ] && awk -v o="${own% *}" -v n="${own#* }" -v a="$all" 'BEGIN { exit !(o >= 0 && o <= a && n >= 116) }' ||
        fail "bolt-llm on $np ranks: the collectives' own time ('$own') is not within rank 0's ('$all') or misses calls"
done
# the collectives' own time, as bolt-llm sums it, on known times
for np in 1 3; do
    "$RUN" -np $np "$TOP_BUILDDIR/tests/inference/coll_times_check" >"$T/out" 2>&1 </dev/null ||
        { cat "$T/out"; fail "coll_times_check on $np ranks"; }
done
# sampled text: one seed, the same tokens on every rank (rank 0's text, one rank's)
llm -m "$T/tl-Q8_0.gguf" -p "$P" -n 24 --seed 5 --temp 0.9 --ignore-eos
cp "$T/out" "$T/one"
"$RUN" -np 2 "$LLM" -m "$T/tl-Q8_0.gguf" -p "$P" -n 24 --seed 5 --temp 0.9 --ignore-eos >"$T/out" 2>"$T/err" </dev/null ||
    fail "sampling on 2 ranks: exit $?"
cmp -s "$T/out" "$T/one" || fail "sampling on 2 ranks: not the text of one rank with the same seed"
# balanced splits as a user runs them, the splits moved (BOLT_LLM_TP_SKEW: each
# rank reports its times 1 + 2 x its rank times what they were): greedy (each
# rank the best of its vocabulary rows as they are after each move, then
# MAXLOC) and sampled (the logits gathered by the moved rows) text the same
# as one rank's, on 2 and 3 ranks
llm -m "$T/tl-Q8_0.gguf" -p "$P" -n 40 --temp 0 -t 1 --ignore-eos
cp "$T/out" "$T/one-greedy"
llm -m "$T/tl-Q8_0.gguf" -p "$P" -n 40 --seed 5 --temp 0.9 -t 1 --ignore-eos
cp "$T/out" "$T/one-sampled"
for np in 2 3; do
    for how in "greedy --temp 0" "sampled --seed 5 --temp 0.9"; do
        set -- $how
        BOLT_LLM_TP_SKEW=2 "$RUN" -np $np -x BOLT_LLM_TP_SKEW "$LLM" -m "$T/tl-Q8_0.gguf" -p "$P" -n 40 -t 1 --ignore-eos \
            --tp-balance 0.25 "$2" "$3" ${4:+"$4"} ${5:+"$5"} >"$T/out" 2>"$T/err" </dev/null || fail "balanced, $1, on $np ranks: exit $?"
        cmp -s "$T/out" "$T/one-$1" || fail "balanced, $1, on $np ranks: not the text of one rank"
        grep -q "the vocabulary's split (--tp-balance 0.25) moved [1-9][0-9]* times*: " "$T/err" ||
            { cat "$T/err"; fail "balanced, $1, on $np ranks: the vocabulary's split did not move"; }
    done
done

# a rank that fails (its context is too short for the prompt) ends the job
# with both ranks' messages, not a hang
rank1_fails "$T/s15-F32.gguf" "a failed rank" "tensor parallel, rank 0 of 2: a collective between the ranks failed: .*rank 1" "" ""

# every rank reads the model at the same path: a rank whose host lacks it
# (here: rank 1 in another directory, the path relative) fails the job with
# a message naming it; with --share-model rank 0 sends it the part it needs
# (the same text as one rank), also to a whole pipeline stage
homes "$T/tl-F32.gguf"
llm -m "$T/home/model.gguf" -p "$P" -n 16 --temp 0 -t 1 --ignore-eos
cp "$T/out" "$T/one"
timeout 120 "$RUN" -np 2 -x AWAY=1 "$T/away.sh" "$LLM" -m model.gguf -p "$P" -n 16 --temp 0 -t 1 --ignore-eos \
    >"$T/out" 2>"$T/err" </dev/null
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "a rank without the model: exit $rc (124: a hang)"
grep -q "rank 1 on .*: model.gguf: No such file or directory: every rank reads the model at the same path" "$T/err" ||
    fail "a rank without the model: no message of its own"
grep -q "1 rank (rank 1 the first) cannot read the model rank 0 has" "$T/err" || fail "a rank without the model: rank 0 says nothing"
for a in "2 1 1" "4 2 2,3"; do
    set -- $a
    AWAY=$(echo $3 | tr , ' ') timeout 120 "$RUN" -np $1 -x AWAY "$T/away.sh" "$LLM" -m model.gguf -p "$P" -n 16 --temp 0 \
        -t 1 --ignore-eos --pp $2 --share-model >"$T/out" 2>"$T/err" </dev/null || fail "--share-model on $1 ranks: exit $?"
    cmp -s "$T/out" "$T/one" || fail "--share-model on $1 ranks in $2 stages: not the text of one rank"
    [ "$(grep -c "rank [0-9]: received .* MiB in .*, every chunk's CRC-32 checked" "$T/err")" -eq $(echo $3 | tr , '\n' | wc -l) ] ||
        fail "--share-model on $1 ranks in $2 stages: not every rank without the model received its part"
done
rm -rf "$T/home" "$T/away"

# pipeline parallel (--pp K): the layers split between K stages, each of
# np / K ranks in tensor parallel; the same logits and greedy tokens as one
# rank (the prompt goes through the stages in pieces)
for spec in "s15-F32 0.001" "s15-Q4_K_M 0.03"; do
    set -- $spec
    for a in "2 2" "3 3" "4 2"; do
        set -- $1 $2 $a
        "$RUN" -np $3 "$CHECK" "$T/$1.gguf" $2 24 expert $4 >"$T/out" 2>"$T/err" ||
            fail "tp_check $1 on $3 ranks in $4 stages"
        cat "$T/out"
    done
done
llm -m "$T/tl-F32.gguf" -p "$P" -n 24 --temp 0 -t 1 --ignore-eos
cp "$T/out" "$T/one"
for a in "2 2" "4 2"; do
    set -- $a
    "$RUN" -np $1 "$LLM" -m "$T/tl-F32.gguf" -p "$P" -n 24 --temp 0 -t 1 --ignore-eos --pp $2 >"$T/out" 2>"$T/err" </dev/null ||
        fail "bolt-llm on $1 ranks in $2 stages: exit $?"
    cmp -s "$T/out" "$T/one" || fail "bolt-llm on $1 ranks in $2 stages: not the text of one rank"
    grep -q "pipeline stage 1 of 2, rank $(($1 - 1)) on .*: layers 1-1 of 2 and the output" "$T/err" ||
        fail "bolt-llm on $1 ranks in $2 stages: no layout of the last stage"
    grep -q "pipeline parallel, 2 stages of $(($1 / 2)) ranks*: the stream and collectives .* ms per token" "$T/err" ||
        fail "bolt-llm on $1 ranks in $2 stages: no time passing the stream reported"
done
"$RUN" -np 2 "$LLM" -m "$T/s15-F32.gguf" -p "$P" -n 4 --pp 3 >"$T/out" 2>"$T/err" </dev/null && fail "--pp 3 on 2 ranks ran"
grep -q "pp 3 does not divide the job's 2 ranks" "$T/err" || fail "no clear error for --pp 3 on 2 ranks"
# a stage that fails ends the job with a message naming the pipeline, not a hang
rank1_fails "$T/s15-F32.gguf" "a failed stage" "pipeline parallel, stage 0 of 2: passing the stream between the stages failed" "" \
    "--pp 2"

# memory: a rank holds its shard (its own copy of its parts, the file's
# pages let go as it copies), not the model. On N ranks (tensor, pipeline or
# both) each rank's weights but the margins of its balanced splits are at
# most 1.1 / N of the model's, the margins at most 1/8 of the rest (with
# --tp-balance 0.125, of the MLP and the output only), and its resident
# memory at most 1 / N of one rank's that reads the whole model in, plus
# the margins, plus 32 MiB (the runtime, the libraries, the scratch: about
# 20 here); with --tp-balance 0 (the default), no margins
mk s110 llama-spm stories110M Q8_0 || finish
llm -m "$T/s110.gguf" -p "$P" -n 8 --temp 0 -t 1 --ignore-eos --no-mmap
[ "$rc" -eq 0 ] || fail "stories110M on one rank: exit $rc"
one=$(sed -n 's/.*memory, rank 0 on .*: \([0-9.]*\) MiB resident, weights \([0-9.]*\) MiB (the model.s, read in).*/\1 \2/p' "$T/err")
[ -n "$one" ] || fail "one rank: no memory reported"
echo "one rank: $one MiB resident and weights"
for a in "2 1 0.125" "4 1 0.125" "2 2 0.125" "4 2 0.125" "2 1 0" "4 2 0"; do
    set -- $a
    "$RUN" -np $1 "$LLM" -m "$T/s110.gguf" -p "$P" -n 8 --temp 0 -t 1 --ignore-eos --pp $2 --tp-balance $3 >"$T/out" 2>"$T/err" \
        </dev/null || fail "stories110M on $1 ranks in $2 stages, --tp-balance $3: exit $?"
    [ "$(grep -c "memory, rank [0-9] on .*MiB resident, weights .* MiB (its own shard.*), KV cache" "$T/err")" -eq $1 ] ||
        fail "stories110M on $1 ranks in $2 stages: no memory of each rank reported"
    margins=$(grep -c "margins to balance" "$T/err")
    if [ "$3" = 0 ] || [ $1 = $2 ]; then # no margins, or no tensor parallel in a stage
        [ "$margins" -eq 0 ] || fail "stories110M on $1 ranks in $2 stages, --tp-balance 0: margins held"
    else
        [ "$margins" -eq $1 ] || fail "stories110M on $1 ranks in $2 stages: no margins to balance reported by every rank"
    fi
    case "${BOLT_TEST_CFLAGS:-}" in *-fsanitize=*) san=1 ;; *) san=0 ;; esac
    sed -n 's/.*memory, rank \([0-9]\) on .*: \([0-9.]*\) MiB resident, weights \([0-9.]*\) MiB (its own shard\(, \([0-9.]*\) MiB of it margins to balance\)*).*/\1 \2 \3 \5/p' "$T/err" |
        awk -v n=$1 -v one="$one" -v san=$san -v bal=$3 '
            BEGIN { split(one, o, " ") }
            { m = $4 + 0; w = $3 - m
              print "  rank " $1 ": " $2 " MiB resident, weights " $3 " MiB, margins " m " MiB"
              if (w > 1.1 * o[2] / n) { print "FAIL: rank " $1 "'"'"'s weights but its margins " w " MiB, more than 1.1 / " n " of " o[2]; bad = 1 }
              if (m > bal * w + 0.1) { print "FAIL: rank " $1 "'"'"'s margins " m " MiB, more than " bal " of its " w; bad = 1 }
              if (!san && $2 > o[1] / n + m + 32) { print "FAIL: rank " $1 " resident " $2 " MiB, more than " o[1] " / " n " + " m " + 32"; bad = 1 } }
            END { exit bad }' || fail "stories110M on $1 ranks in $2 stages: a rank holds more than its shard"
done
rm -f "$T/s110.gguf"

# a mixture of experts: whole experts a rank (the default) and a slice of
# every expert a rank, on 2 and 3 ranks (16 experts, 4 of them a token: 3
# ranks hold 5, 5 and 6; slices of 256 hidden units in blocks of 32)
mk moe qwen2 qwen3moe-small Q8_0 || finish
for split in expert slice; do
    for np in 2 3; do
        "$RUN" -np $np "$CHECK" "$T/moe.gguf" 0.03 24 $split >"$T/out" 2>"$T/err" ||
            fail "tp_check qwen3moe-small Q8_0 on $np ranks, experts split by $split"
        cat "$T/out"
    done
done
TP_CHECK_BALANCE="0.25 2" "$RUN" -np 3 -x TP_CHECK_BALANCE "$CHECK" "$T/moe.gguf" 0.03 32 >"$T/out" 2>"$T/err" ||
    { cat "$T/err"; fail "tp_check qwen3moe-small Q8_0 on 3 ranks, balanced"; }
cat "$T/out"
grep -q "vocabulary rows split moved" "$T/out" || fail "qwen3moe-small on 3 ranks, balanced: the vocabulary's split not reported"
! grep -q "hidden units split" "$T/out" || fail "qwen3moe-small on 3 ranks, balanced: a split of hidden units reported"

"$RUN" -np 4 "$CHECK" "$T/moe.gguf" 0.03 24 expert 2 >"$T/out" 2>"$T/err" ||
    fail "tp_check qwen3moe-small Q8_0 on 4 ranks in 2 stages"
cat "$T/out"
llm -m "$T/moe.gguf" -p "$P" -n 16 --temp 0 -t 1 --ignore-eos
cp "$T/out" "$T/one"
for split in expert slice; do
    "$RUN" -np 2 "$LLM" -m "$T/moe.gguf" -p "$P" -n 16 --temp 0 -t 1 --ignore-eos --moe-split $split >"$T/out" 2>"$T/err" \
        </dev/null || fail "bolt-llm, a mixture of experts on 2 ranks by $split: exit $?"
    cmp -s "$T/out" "$T/one" || fail "bolt-llm, a mixture of experts on 2 ranks by $split: not the text of one rank"
done
grep -q "rank 1 of 2 on .*: key/value heads 2-3 of 4, experts 0-15 of 16, their hidden units 128-255 of 256" "$T/err" ||
    fail "bolt-llm, experts by slice: no layout of rank 1's slice"
"$RUN" -np 2 "$LLM" -m "$T/moe.gguf" -p "$P" --moe-split halves >"$T/out" 2>"$T/err" </dev/null &&
    fail "bolt-llm --moe-split halves ran"
grep -q "moe-split expects expert or slice, got 'halves'" "$T/err" || fail "no clear error for --moe-split halves"
finish

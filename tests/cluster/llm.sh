#!/bin/sh
# llm.sh — tensor parallel inference (boltrun -np N bolt-llm) across the four
# hosts over TCP (the mesh cables; shm between two ranks of one host):
# tests/inference/tp_check with a rank a host (a stories15M-shaped F32
# model, its 6 heads split 2,2,1,1) and two a host (a tiny-llama Q8_0 one:
# 8 ranks for 2 key/value heads, six ranks without one), the logits after a
# 16-token prompt and after each of 16 greedy tokens within tp.sh's
# tolerances of one rank's, every rank holding rank 0's; every host must
# have sent its part over its cables. Then bolt-llm as a user runs it: on 4
# and on 8 ranks the greedy text of one rank, each rank's layout on its own
# host reported, and on 4 the sampled text of one rank with the same seed.
here=$(cd "$(dirname "$0")" && pwd)
B=${TOP_BUILDDIR:-$(dirname "${BOLTRUN:-.}")}
LLM=$B/bolt-llm MK=$B/bolt-llm-mkmodel CHECK=$B/tests/inference/tp_check
[ -x "$LLM" ] || { echo "SKIP: bolt-llm is not built (configure found no PCRE2)"; exit 77; }
[ -x "$CHECK" ] || { echo "SKIP: tests/inference/tp_check is not built"; exit 77; }
# test data as tests/inference/lib.sh finds it: set but incomplete fails
TD=${BOLT_TESTDATA:-$here/../../_testdata}
if [ ! -d "$TD/llama.cpp/models" ]; then
    [ -n "${BOLT_TESTDATA:-}" ] && { echo "FAIL: BOLT_TESTDATA=$BOLT_TESTDATA holds no llama.cpp/models (run scripts/testdata)"; exit 1; }
    echo "SKIP: no test data (run scripts/testdata, or set BOLT_TESTDATA)"
    exit 77
fi
. "$here/lib.sh"

mk() { # NAME SHAPE TYPE
    "$MK" --vocab "$TD/llama.cpp/models/ggml-vocab-llama-spm.gguf" --shape "$2" --type "$3" -o "$T/$1.gguf" \
        >"$T/out" 2>"$T/err" || fail "bolt-llm-mkmodel $2 $3"
}
# bytes host I sent over its cables
sent() {
    s=0
    for j in $(seq 1 "$CL_K"); do
        [ "$j" = "$1" ] && continue
        set -- "$1" $(cluster_bytes "$1" "$j")
        s=$((s + $2))
    done
    echo $s
}
TCP="-x BOLT_TRANSPORTS=shm,tcp"
HOSTS2=h1:2,h2:2,h3:2,h4:2

mk s15-F32 stories15M F32
mk tl-Q8_0 tiny-llama Q8_0
# tp_check NP HOSTS MODEL TOL WHAT
tp_check() {
    for i in 1 2 3 4; do eval "s$i=\$(sent $i)"; done
    run --host "$2" -np "$1" $TCP "$CHECK" "$T/$3.gguf" "$4" 16
    expect_rc 0 "tp_check $3, $5"
    grep -q "on $1 ranks (1 stage): .* 17 greedy tokens compared, .* 0 failures$" "$T/out" || fail "tp_check $3, $5: no result line"
    for i in 1 2 3 4; do
        d=$(( $(sent $i) - $(eval "echo \$s$i") ))
        # each host's ranks send their part of every all-reduce and all-gather
        [ "$d" -gt 100000 ] || fail "tp_check $3, $5: h$i sent only $d bytes over its cables"
    done
    echo "llm: $(cat "$T/out") ($5)"
}
tp_check 4 "$CL_HOSTS" s15-F32 0.001 "a rank a host"
tp_check 8 "$HOSTS2" tl-Q8_0 0.03 "two ranks a host"

# bolt-llm: the text of one rank (run here, outside the cluster)
P="Once upon a time, in a land far away"
M=$T/tl-Q8_0.gguf
one() {
    "$LLM" -m "$M" -p "$P" -n 16 -t 1 --ignore-eos "$@" >"$T/one" 2>"$T/err" </dev/null || fail "one rank: exit $?"
}
# llm NP HOSTS WHAT ARGS...
llm() {
    np=$1 hosts=$2 what=$3; shift 3
    run --host "$hosts" -np "$np" $TCP "$LLM" -m "$M" -p "$P" -n 16 -t 1 --ignore-eos "$@"
    expect_rc 0 "bolt-llm on $np ranks, $what"
    cmp -s "$T/out" "$T/one" || fail "bolt-llm on $np ranks, $what: not the text of one rank"
    for r in $(seq 0 $((np - 1))); do
        grep -q "tensor parallel, rank $r of $np on h$((r * 4 / np + 1)):" "$T/err" ||
            fail "bolt-llm on $np ranks, $what: rank $r does not report its layout on h$((r * 4 / np + 1))"
    done
    grep -q "tensor parallel over $np ranks: collectives .* ms per token" "$T/err" ||
        fail "bolt-llm on $np ranks, $what: no time in the collectives reported"
    echo "llm: bolt-llm on $np ranks, $what: the text of one rank"
}
one --temp 0
llm 4 "$CL_HOSTS" "a rank a host" --temp 0
llm 8 "$HOSTS2" "two ranks a host" --temp 0
one --seed 5 --temp 0.9
llm 4 "$CL_HOSTS" "a rank a host, sampling" --seed 5 --temp 0.9

# pipeline parallel with tensor parallel across the hosts: 2 stages of 2
# ranks, a rank a host (the stream from h1 and h2 to h3 and h4 over cables)
run --host "$CL_HOSTS" -np 4 $TCP "$CHECK" "$M" 0.03 16 expert 2
expect_rc 0 "tp_check, 2 stages of 2 ranks"
grep -q "on 4 ranks (2 stages): .* 17 greedy tokens compared, .* 0 failures$" "$T/out" ||
    fail "tp_check, 2 stages of 2 ranks: no result line"
echo "llm: $(cat "$T/out") (2 stages of 2 ranks, a rank a host)"
one --temp 0
run --host "$CL_HOSTS" -np 4 $TCP "$LLM" -m "$M" -p "$P" -n 16 -t 1 --ignore-eos --temp 0 --pp 2
expect_rc 0 "bolt-llm in 2 stages of 2 ranks"
cmp -s "$T/out" "$T/one" || fail "bolt-llm in 2 stages of 2 ranks: not the text of one rank"
grep -q "pipeline stage 1 of 2, rank 3 on h4: layers" "$T/err" || fail "bolt-llm in 2 stages of 2 ranks: no layout of rank 3 on h4"
echo "llm: bolt-llm in 2 stages of 2 ranks, a rank a host: the text of one rank"

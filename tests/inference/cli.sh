#!/bin/sh
# bolt-llm from the command line, as a user runs it: llama.cpp's options,
# the same text for the same seed (and for any thread count when greedy), a
# split model giving what the whole one gives, a model read into memory
# (--no-mmap) what the mapped one gives, the speeds reported, and a
# clear message for every bad option, file or limit.
. "$(dirname "$0")/lib.sh"
mk tiny llama-spm tiny-llama Q8_0 || finish
P="Once upon a time"

llm --help
[ "$rc" -eq 0 ] && grep -q -- "--repeat-penalty" "$T/out" || fail "--help"

# greedy: the same text on 1 and 2 threads, twice, with each KV cache type
llm -m "$T/tiny.gguf" -p "$P" -n 24 --temp 0 -t 1
[ "$rc" -eq 0 ] || fail "greedy run: exit $rc"
cp "$T/out" "$T/greedy1"
grep -q "^$P" "$T/greedy1" || fail "the prompt is not printed first"
grep -q "prompt eval time = .* tokens per second" "$T/err" || fail "no prompt speed"
grep -q "  eval time = .* / *23 runs" "$T/err" || fail "no generation speed over 23 runs"
llm -m "$T/tiny.gguf" -p "$P" -n 24 --temp 0 -t 2
cmp -s "$T/out" "$T/greedy1" || fail "greedy text differs between 1 and 2 threads"
for kv in f32 q8_0; do
    llm -m "$T/tiny.gguf" -p "$P" -n 8 --temp 0 -ctk $kv
    [ "$rc" -eq 0 ] || fail "-ctk $kv: exit $rc"
done

# sampling: a seed gives the same text; another seed another text
llm -m "$T/tiny.gguf" -p "$P" -n 32 --seed 7 --temp 1.0 --top-k 0 --top-p 1 --min-p 0
cp "$T/out" "$T/s7"
llm -m "$T/tiny.gguf" -p "$P" -n 32 --seed 7 --temp 1.0 --top-k 0 --top-p 1 --min-p 0
cmp -s "$T/out" "$T/s7" || fail "seed 7 gave two texts"
llm -m "$T/tiny.gguf" -p "$P" -n 32 --seed 8 --temp 1.0 --top-k 0 --top-p 1 --min-p 0
cmp -s "$T/out" "$T/s7" && fail "seeds 7 and 8 gave the same 32 tokens"
llm -m "$T/tiny.gguf" -p "$P" -n 16 --seed 3 --repeat-penalty 1.3 --top-k 5 --top-p 0.9 --min-p 0.1
[ "$rc" -eq 0 ] || fail "samplers: exit $rc"

# the prompt from a file, -n 0, no prompt shown
printf '%s' "$P" >"$T/prompt.txt"
llm -m "$T/tiny.gguf" -f "$T/prompt.txt" -n 24 --temp 0 -t 1
cmp -s "$T/out" "$T/greedy1" || fail "-f gives another text than -p"
llm -m "$T/tiny.gguf" -p "$P" -n 0
[ "$rc" -eq 0 ] && [ "$(cat "$T/out")" = "$P" ] || fail "-n 0 should print the prompt alone: '$(cat "$T/out")'"
llm -m "$T/tiny.gguf" -p "$P" -n 24 --temp 0 -t 1 --no-display-prompt
[ "$(cat "$T/out")" = "$(cat "$T/greedy1" | cut -c$((${#P} + 1))-)" ] || fail "--no-display-prompt"

# a split model reads as the whole one
mk split llama-spm tiny-llama Q8_0 "--split 3" || finish
[ -f "$T/split-00003-of-00003.gguf" ] || fail "no third part"
llm -m "$T/split-00001-of-00003.gguf" -p "$P" -n 24 --temp 0 -t 1
cmp -s "$T/out" "$T/greedy1" || fail "the split model gives another text"
llm -m "$T/split-00002-of-00003.gguf" -p "$P"
grep -q "part 2 of 3" "$T/err" || fail "opening part 2 is not explained"

# --no-mmap: the model read into memory gives the mapped model's text, whole or split
llm -m "$T/tiny.gguf" -p "$P" -n 24 --temp 0 -t 1 --no-mmap
[ "$rc" -eq 0 ] && cmp -s "$T/out" "$T/greedy1" || fail "--no-mmap gives another text (exit $rc)"
llm -m "$T/split-00001-of-00003.gguf" -p "$P" -n 24 --temp 0 -t 2 --no-mmap
cmp -s "$T/out" "$T/greedy1" || fail "--no-mmap on the split model gives another text"

# limits and mistakes, each with its message
llm -m "$T/tiny.gguf" -p "$P" -n 100 -c 16 --temp 0
[ "$rc" -eq 0 ] && grep -q "context of 16 tokens is full" "$T/err" || fail "a full context is not reported"
check() { # WANT-IN-STDERR WANT-EXIT ARGS...
    want=$1 code=$2; shift 2
    llm "$@"
    [ "$rc" -eq "$code" ] && grep -q -- "$want" "$T/err" || fail "bolt-llm $*: exit $rc, stderr lacks '$want'"
}
check "-m MODEL.gguf is required" 2 -p "$P"
check "unknown option '--frobnicate'" 2 -m "$T/tiny.gguf" --frobnicate 3
check "-t expects an integer" 2 -m "$T/tiny.gguf" -t many
check "--top-p expects a number from 0 to 1" 2 -m "$T/tiny.gguf" --top-p 2
check "-ctk expects f16, f32 or q8_0" 2 -m "$T/tiny.gguf" -ctk q4_0
check "--tp-balance expects a number from 0 to 0.49" 2 -m "$T/tiny.gguf" --tp-balance 0.6
check "--tp-balance expects a number from 0 to 0.49" 2 -m "$T/tiny.gguf" --tp-balance much
check "give -p or -f, not both" 2 -m "$T/tiny.gguf" -p a -f b
check "no-such.gguf: cannot open" 1 -m "$T/no-such.gguf" -p "$P"
check "no-such.gguf: cannot open" 1 -m "$T/no-such.gguf" -p "$P" --no-mmap
printf 'not a model' >"$T/junk.gguf"
check "junk.gguf: .*too short\|junk.gguf: not a GGUF" 1 -m "$T/junk.gguf" -p "$P"
head -c 4000 "$T/tiny.gguf" >"$T/cut.gguf"
check "cut.gguf: " 1 -m "$T/cut.gguf" -p "$P" --no-mmap
check "cannot read the prompt file" 1 -m "$T/tiny.gguf" -f "$T/no-such.txt"
# a vocabulary alone is no model: its missing tensors are named
check "tensor 'token_embd.weight' is missing\|key 'llama.embedding_length' is missing" 1 -m "$VOCABS/ggml-vocab-llama-spm.gguf" -p "$P"

# under boltrun too (one rank)
if [ -x "${BOLTRUN:-}" ]; then
    "$BOLTRUN" -np 1 "$LLM" -m "$T/tiny.gguf" -p "$P" -n 24 --temp 0 -t 1 >"$T/out" 2>"$T/err"
    cmp -s "$T/out" "$T/greedy1" || fail "under boltrun the text differs"
fi
echo "pass: bolt-llm options, determinism, split models, messages"
finish

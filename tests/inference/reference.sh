#!/bin/sh
# bolt-llm's engine against llama.cpp's (its prebuilt libllama, from the
# test data) on the same GGUF files: every architecture (llama with both
# tokenizers, qwen2, qwen3, qwen3moe) in every weight type, the same prompt:
#   - the same prompt tokens;
#   - the last prompt token's logits within a tolerance per type (relative
#     RMS difference; both quantize activations, each in its own order);
#   - the same 32 greedy tokens at F32 and F16 (where both compute in
#     floats); other types may part after a near tie, so only their logits
#     are held to a bound.
. "$(dirname "$0")/lib.sh"
[ -d "$TD/bins" ] || { echo "SKIP: no prebuilt llama.cpp for this platform in $TD"; exit 77; }
CC=${BOLT_TEST_CC:-cc}
$CC -O1 -I"$TD/llama.cpp/include" -I"$TD/llama.cpp/ggml/include" "${TOP_SRCDIR:-$TOP_BUILDDIR/..}/tests/inference/ref_llama.c" \
    -o "$T/ref_llama" "$TD/bins/libllama.v0.4.0.so" "$TD/bins/libggml.v0.4.0.so" "$TD/bins/libggml-base.so" \
    -Wl,-rpath,"$TD/bins" >"$T/cc.err" 2>&1 || { cat "$T/cc.err"; fail "cannot build the reference driver"; finish; }
P="The quick brown fox jumps over the lazy dog, and then"
# Relative RMS difference of the logits allowed, and how far below the
# reference's top logit Bolt's top one may sit (a near tie: a rounding can
# flip it). Quantized models match llama.cpp's logits almost bit for bit,
# but one activation rounded the other way (each engine's exp differs in
# the last bit) moves the logits by about 1% from there on.
tol() {
    case $1 in
        F32 | F16) echo "0.001 0" ;; BF16) echo "0.005 0" ;; *) echo "0.03 0.02" ;;
    esac
}
for spec in "tiny-llama llama-spm" "tiny-llama llama-bpe" "qwen2-small qwen2" "tiny-qwen3 qwen2" "qwen3moe-small qwen2"; do
    set -- $spec
    for ty in F32 F16 BF16 Q8_0 Q4_0 Q4_K_M Q5_K_M; do
        mk m "$2" "$1" "$ty" || continue
        "$T/ref_llama" "$TD/bins" "$T/m.gguf" "$P" 32 2 "$T/ref.bin" >"$T/ref.out" 2>"$T/ref.err" ||
            { cat "$T/ref.err"; fail "$1/$2 $ty: llama.cpp failed"; continue; }
        "$TOP_BUILDDIR/tests/inference/bolt_dump" "$T/m.gguf" "$P" 32 2 "$T/bolt.bin" >"$T/bolt.out" 2>"$T/err" ||
            { fail "$1/$2 $ty: bolt failed"; continue; }
        what="$1/$2 $ty" before=$fails
        [ "$(sed -n 1p "$T/ref.out")" = "$(sed -n 1p "$T/bolt.out")" ] ||
            fail "$what: prompt tokens differ: $(sed -n 1p "$T/ref.out") | $(sed -n 1p "$T/bolt.out")"
        if cmp=$("$TOP_BUILDDIR/tests/inference/logits_cmp" "$T/ref.bin" "$T/bolt.bin" $(tol "$ty")); then
            :
        else
            fail "$what: logits: $cmp"
        fi
        same=same
        [ "$(sed -n 2p "$T/ref.out")" = "$(sed -n 2p "$T/bolt.out")" ] || same=different
        case $ty in F32 | F16)
            [ $same = same ] || fail "$what: greedy tokens differ: $(sed -n 2p "$T/ref.out") | $(sed -n 2p "$T/bolt.out")" ;;
        esac
        [ "$fails" -eq "$before" ] && echo "pass: $what: tokens same, logits $cmp, 32 greedy tokens $same"
        rm -f "$T/m.gguf"
    done
done
finish

#!/bin/sh
# The tokenizers against llama.cpp's test vectors (every case of
# ggml-vocab-*.gguf.inp must give the ids of its .out line, as llama.cpp's
# own test tokenizes): SentencePiece (llama-spm, phi-3) and byte-level BPE
# (llama-bpe, qwen2, gpt-2), whose tokens must also decode back to the text.
. "$(dirname "$0")/lib.sh"
for v in llama-spm phi-3 llama-bpe qwen2 gpt-2; do
    if "$TOP_BUILDDIR/tests/inference/tokvec" "$VOCABS/ggml-vocab-$v.gguf" >"$T/out" 2>&1; then
        tail -n 1 "$T/out"
    else
        fail "tokenizer $v: $(tail -n 1 "$T/out")"
        head -n 20 "$T/out"
    fi
done
# a vocabulary whose pre-tokenizer is not supported is refused by name
"$TOP_BUILDDIR/tests/inference/tokvec" "$VOCABS/ggml-vocab-falcon.gguf" >"$T/out" 2>&1
grep -q "tokenizer.ggml.pre' is 'falcon'" "$T/out" || fail "an unknown pre-tokenizer is not named: $(cat "$T/out")"
finish

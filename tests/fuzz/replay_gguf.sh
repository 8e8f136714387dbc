#!/bin/sh
# replay_gguf.sh — the GGUF fuzz target over its corpus (tests/fuzz/corpus_gguf:
# valid files with every value type, nested arrays, tensors of several types;
# cuts of them, damaged counts, offsets and types, and what a fuzzer found):
# each is read or refused, never a crash.
dir=$(cd "$(dirname "$0")" && pwd)
exec "${TOP_BUILDDIR:-.}/tests/fuzz/fuzz_gguf_replay" "$dir"/corpus_gguf/*

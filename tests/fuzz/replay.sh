#!/bin/sh
# replay.sh — the fuzz target over its corpus (tests/fuzz/corpus): every input
# of garbage, truncated frames and wrong secrets is refused without a crash.
# With a libFuzzer build (make fuzz-kvs-wire), the same target explores further.
dir=$(cd "$(dirname "$0")" && pwd)
exec "${TOP_BUILDDIR:-.}/tests/fuzz/fuzz_kvs_wire_replay" "$dir"/corpus/*

#!/bin/sh
# replay_hpl_dat.sh — the HPL.dat fuzz target over its corpus
# (tests/fuzz/corpus_hpl_dat: valid files, truncated ones, garbage, huge
# counts and numbers): each is read or refused, never a crash.
dir=$(cd "$(dirname "$0")" && pwd)
exec "${TOP_BUILDDIR:-.}/tests/fuzz/fuzz_hpl_dat_replay" "$dir"/corpus_hpl_dat/*

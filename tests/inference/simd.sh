#!/bin/sh
# The kernels' tests on each instruction set this CPU has: the SIMD paths
# chosen at run time (AVX-512 here where present), capped to AVX2 with the
# 256-bit VNNI (where the CPU has it), to AVX2, and the portable scalar path
# (INF_SIMD, read once by the type registry).
t="${TOP_BUILDDIR:-.}/tests/inference/check_types"
[ -x "$t" ] || { echo "SKIP: check_types is not built (no Check)"; exit 77; }
for cap in "" avx-vnni avx2 scalar; do
    INF_SIMD=$cap "$t" || { echo "FAIL: kernels with INF_SIMD='$cap'"; exit 1; }
    echo "pass: kernels with INF_SIMD='${cap:-best}'"
done

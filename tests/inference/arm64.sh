#!/bin/sh
# tests/inference/arm64.sh SRCDIR (`make check-arm64`) — the engine's kernels
# on 64-bit ARM, Apple silicon's instruction set, from an x86-64 host: the
# kernel tests (check_types: every type's NEON dot products, quantizers,
# attention kernels and matrix products against the scalar path) built with
# aarch64-linux-gnu-gcc, static, and run under qemu-aarch64 (-cpu max), once
# for the baseline ARMv8.0 (NEON alone) and once for ARMv8.2 with the
# dot-product instructions (as on every Apple M-series CPU); first
# kernel_names must show NEON's kernels chosen for every weight type.
# scripts/deps installs the cross compiler, qemu-user and Check's arm64
# build (Debian multiarch); on an ARM host `make check` runs them natively.
set -u
src=${1:?usage: tests/inference/arm64.sh SRCDIR}
case $(uname -m) in
    aarch64 | arm64) echo "SKIP: this is an ARM host: make check runs the NEON kernels natively"; exit 77 ;;
esac
CC=${BOLT_ARM64_CC:-aarch64-linux-gnu-gcc}
for tool in "$CC" qemu-aarch64; do
    command -v "$tool" >/dev/null || { echo "SKIP: no $tool (scripts/deps installs it on Debian)"; exit 77; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/bolt-arm64.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
fails=0
# the kernels, the matrix product and what the tests reach of the rest; no
# BLAS (the prompt's SGEMM path is the BLAS's own), the POSIX memory seam
srcs=""
for f in "$src"/inference/types/*.c; do
    case $f in */f32_sgemm.c) ;; *) srcs="$srcs $f" ;; esac
done
srcs="$srcs $src/inference/matmul.c $src/inference/pool.c $src/inference/gguf.c $src/inference/err.c $src/inference/mem_posix.c"
for march in armv8-a armv8.2-a+dotprod; do
    flags="-O2 -std=gnu11 -Wall -Wextra -Werror -march=$march -I$src"
    # shellcheck disable=SC2086
    if ! "$CC" $flags -static -o "$T/names" "$src/tests/inference/kernel_names.c" $srcs -lm -lpthread >"$T/cc.log" 2>&1 ||
        ! "$CC" $flags -static -o "$T/check_types" "$src/tests/inference/check_types.c" $srcs -lcheck -lsubunit -lm \
            -lpthread >>"$T/cc.log" 2>&1; then
        cat "$T/cc.log"
        echo "FAIL: $march: the kernels do not build for ARM"
        fails=$((fails + 1))
        continue
    fi
    qemu-aarch64 -cpu max "$T/names" >"$T/names.out" 2>&1 || { cat "$T/names.out"; echo "FAIL: $march: kernel_names"; fails=$((fails + 1)); continue; }
    for ty in F32 F16 BF16 Q8_0 Q4_0 Q4_K Q5_K Q6_K; do
        grep -q "^$ty neon" "$T/names.out" ||
            { echo "FAIL: $march: $ty's kernels are not NEON's: $(grep "^$ty " "$T/names.out")"; fails=$((fails + 1)); }
    done
    echo "$march: $(tr '\n' ',' <"$T/names.out" | sed 's/,$//;s/,/, /g')"
    if CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-900} qemu-aarch64 -cpu max "$T/check_types" >"$T/check.out" 2>&1; then
        echo "pass: kernels on ARM ($march): $(grep -E '^[0-9]+%' "$T/check.out")"
    else
        tail -n 30 "$T/check.out"
        echo "FAIL: kernels on ARM ($march)"
        fails=$((fails + 1))
    fi
done
[ $fails -eq 0 ] && echo "PASS: check-arm64" || echo "FAIL: check-arm64: $fails failures"
[ $fails -eq 0 ]

#!/bin/sh
# What a run gives a user besides HPL's report: -N alone (no HPL.dat: the
# grid chosen for the job), --auto (N from memory, P x Q, NB from a DGEMM
# probe, each choice said with its reason), the report in the file HPL.dat
# names, the phase breakdown, the progress line, CSV and JSON records.
. "$(dirname "$0")/lib.sh"

hpl 2 -N 150 --nb 16
{ [ "$rc" -eq 0 ] && grep -q '^WR11C2R4 *150 *16 *1 *2 ' "$T/out" && [ "$(counts)" = "1 0 0" ]; } ||
    fail "-N 150 on 2 ranks: exit $rc (expected one WR11C2R4 test on 1 x 2, PASSED)"

dat "$T/HPL.dat" p=2 q=2 n=90
hpl 2 --dat HPL.dat -P 1 -Q 2
{ [ "$rc" -eq 0 ] && grep -q '^WR.* 90 *8 *1 *2 ' "$T/out"; } ||
    fail "-P 1 -Q 2 in place of HPL.dat's 2 x 2 on 2 ranks: exit $rc"

hpl 2 --auto=0.0004 --no-progress
if [ "$rc" -ne 0 ] || [ "$(counts)" != "1 0 0" ] ||
    ! grep -q '^- auto: P x Q = 1 x 2, the most square grid of 2 ranks with P <= Q$' "$T/err" ||
    ! grep -q '^- auto: NB = [0-9]*, the smallest within 3% of the best DGEMM rate' "$T/err" ||
    ! grep -q '^- auto: N = [0-9]*, 0.04% of the memory host .* can give each of its 2 ranks' "$T/err"; then
    fail "--auto: exit $rc, counts $(counts)"
else
    n=$(sed -n 's/^- auto: N = \([0-9]*\),.*/\1/p' "$T/err")
    nb=$(sed -n 's/^- auto: NB = \([0-9]*\),.*/\1/p' "$T/err")
    [ $((n % nb)) -eq 0 ] || fail "--auto: N = $n is not a multiple of NB = $nb"
    grep -q "^W[RC].* $n *$nb *1 *2 " "$T/out" || fail "--auto: the test did not run with N = $n, NB = $nb"
    echo "pass: --auto chose N = $n, NB = $nb, 1 x 2"
fi

dat "$T/HPL.dat" out=report.txt dev=8 n="100 130" bcast="1 6" p=1 q=2
hpl 2 --dat HPL.dat --phases --progress --csv r.csv --json r.json
if [ "$rc" -ne 0 ] || [ -s "$T/out" ] || ! grep -q 'PASSED$' "$T/report.txt"; then
    fail "output file: exit $rc, stdout should be empty and report.txt hold the report"
else
    cp "$T/report.txt" "$T/out"
    [ "$(counts)" = "4 0 0" ] || fail "report.txt: counts $(counts), expected 4 0 0"
    grep -q '^BCAST  :  1ringM     Bolt $' "$T/out" || fail "the header lists BCAST 1ringM and Bolt"
    [ "$(grep -c '^Max aggregated wall time bcast' "$T/out")" -eq 4 ] || fail "--phases: one block per test"
    grep -q '^Column=[0-9]\{9\} Fraction= *[0-9.]*% Gflops=' "$T/err" || fail "--progress: no progress line"
    [ "$(head -n 1 "$T/r.csv")" = "tv,n,nb,p,q,time_s,gflops,resid,status,rfact_s,mxswp_s,bcast_s,laswp_s,update_s,solve_s" ] ||
        fail "CSV header"
    [ "$(grep -c ',PASSED,' "$T/r.csv")" -eq 4 ] || fail "CSV: 4 PASSED rows expected"
    grep -q '^WR16C2R4,130,8,1,2,' "$T/r.csv" || fail "CSV: the row of WR16C2R4 N=130"
    if [ -x "$TOP_BUILDDIR/tests/hpl_port/json_check" ]; then
        "$TOP_BUILDDIR/tests/hpl_port/json_check" "$T/r.json" 4 >"$T/jc" 2>&1 || fail "JSON: $(cat "$T/jc")"
    fi
    echo "pass: report file, phases, progress, CSV and JSON records"
fi
# The BLAS runs kernels of this CPU's generation: an OpenBLAS older than the
# CPU falls back to SSE3 ones (Prescott), which bolt-hpl must not accept
# unless told to (blas/kernels.h).
if grep -q '^flags.* avx2 .*' /proc/cpuinfo 2>/dev/null && grep -q '^flags.* fma ' /proc/cpuinfo; then
    (unset OPENBLAS_CORETYPE; hpl 1 -N 64 --nb 16)
    line=$(grep -o 'BLAS: OpenBLAS.*' "$T/out" || true)
    if [ -z "$line" ]; then
        echo "pass: the BLAS is not OpenBLAS (no kernel choice to check)"
    elif echo "$line" | grep -qiE ' (Prescott|Core2|Penryn|Dunnington|Nehalem|Atom|Sandybridge|Barcelona|Opteron[^ ]*|Bulldozer|Piledriver|Bobcat|Katmai|Coppermine|Northwood|Banias|Athlon|unknown) MAX'; then
        fail "OpenBLAS runs pre-AVX2 kernels on an AVX2 CPU: $line"
    else
        echo "pass: OpenBLAS runs kernels of this CPU's generation (${line#*NO_AFFINITY })"
    fi
fi

finish

# lib.sh — shared by bolt-hpl's tests (sourced): the programs, a scratch
# folder, an HPL.dat writer, and failing loudly with the output.
set -u
: "${BOLTRUN:?BOLTRUN must point at the boltrun binary (make check sets it)}"
: "${TOP_BUILDDIR:?TOP_BUILDDIR must be set (make check sets it)}"
HPL="$TOP_BUILDDIR/bolt-hpl"
if [ ! -x "$HPL" ]; then
    echo "SKIP: bolt-hpl is not built (configure found no BLAS)"
    exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/bolt-hpl-test.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export OPENBLAS_NUM_THREADS=1 BOLT_KILL_GRACE=1
fails=0

fail() {
    echo "FAIL: $*"
    for f in "$T"/out "$T"/err; do
        [ -s "$f" ] && { echo "--- $f"; tail -n 25 "$f"; }
    done
    fails=$((fails + 1))
}

# dat FILE key=value... — an HPL.dat of HPL's 31 lines; each list key takes a
# space-separated list and the count line before it is written from it.
# Keys (defaults): out (HPL.out) dev (6) n (67) nb (8) pmap (0) p (1) q (1)
# thr (16.0) pfact (2) nbmin (4) ndiv (2) rfact (1) bcast (1) depth (1)
# swap (2) swthr (64) l1 (0) u (0) equil (1) align (8)
dat() {
    f=$1; shift
    out=HPL.out dev=6 n=67 nb=8 pmap=0 p=1 q=1 thr=16.0 pfact=2 nbmin=4 ndiv=2 rfact=1 bcast=1 depth=1
    swap=2 swthr=64 l1=0 u=0 equil=1 align=8
    for kv in "$@"; do eval "${kv%%=*}=\"${kv#*=}\""; done
    cnt() { set -- $1; echo $#; }
    cat >"$f" <<DAT
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
$out      output file name (if any)
$dev            device out (6=stdout,7=stderr,file)
$(cnt "$n")            # of problems sizes (N)
$n        Ns
$(cnt "$nb")            # of NBs
$nb          NBs
$pmap            PMAP process mapping (0=Row-,1=Column-major)
$(cnt "$p")            # of process grids (P x Q)
$p            Ps
$q            Qs
$thr         threshold
$(cnt "$pfact")            # of panel fact
$pfact        PFACTs (0=left, 1=Crout, 2=Right)
$(cnt "$nbmin")            # of recursive stopping criterium
$nbmin          NBMINs (>= 1)
$(cnt "$ndiv")            # of panels in recursion
$ndiv          NDIVs
$(cnt "$rfact")            # of recursive panel fact.
$rfact        RFACTs (0=left, 1=Crout, 2=Right)
$(cnt "$bcast")            # of broadcast
$bcast       BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM,6=Bolt)
$(cnt "$depth")            # of lookahead depth
$depth        DEPTHs (>=0)
$swap            SWAP (0=bin-exch,1=long,2=mix)
$swthr           swapping threshold
$l1            L1 in (0=transposed,1=no-transposed) form
$u            U  in (0=transposed,1=no-transposed) form
$equil            Equilibration (0=no,1=yes)
$align            memory alignment in double (> 0)
DAT
}

# hpl NP ARGS... — boltrun -np NP bolt-hpl ARGS in $T, output in $T/out and
# $T/err, exit status in $rc.
hpl() {
    np=$1; shift
    (cd "$T" && "$BOLTRUN" --timeout "${HPL_TIMEOUT:-600}" -np "$np" "$HPL" "$@" >"$T/out" 2>"$T/err" </dev/null)
    rc=$?
}

# The closing counts of HPL's report: passed failed skipped.
counts() {
    p=$(sed -n 's/^ *\([0-9]*\) tests completed and passed residual checks,$/\1/p' "$T/out")
    f=$(sed -n 's/^ *\([0-9]*\) tests completed and failed residual checks,$/\1/p' "$T/out")
    s=$(sed -n 's/^ *\([0-9]*\) tests skipped because of illegal input values\.$/\1/p' "$T/out")
    echo "${p:-?} ${f:-?} ${s:-?}"
}

finish() {
    [ "$fails" -eq 0 ] && echo "all passed" && exit 0
    echo "$fails failed"
    exit 1
}

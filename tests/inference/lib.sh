# lib.sh — shared by the inference tests (sourced): the programs, the test
# data (scripts/testdata: llama.cpp's vocabularies and test vectors, its
# prebuilt libraries), a scratch folder, failing loudly.
set -u
: "${TOP_BUILDDIR:?TOP_BUILDDIR must be set (make check sets it)}"
LLM="$TOP_BUILDDIR/bolt-llm"
MK="$TOP_BUILDDIR/bolt-llm-mkmodel"
if [ ! -x "$LLM" ]; then
    echo "SKIP: bolt-llm is not built (configure found no PCRE2)"
    exit 77
fi
# The data: $BOLT_TESTDATA (scripts/test fetches it and sets it), or the
# source tree's _testdata. Set but incomplete is a failure, not a skip.
TD=${BOLT_TESTDATA:-${TOP_SRCDIR:-$TOP_BUILDDIR/..}/_testdata}
if [ ! -d "$TD/llama.cpp/models" ]; then
    if [ -n "${BOLT_TESTDATA:-}" ]; then
        echo "FAIL: BOLT_TESTDATA=$BOLT_TESTDATA holds no llama.cpp/models (run scripts/testdata)"
        exit 1
    fi
    echo "SKIP: no test data (run scripts/testdata, or set BOLT_TESTDATA)"
    exit 77
fi
VOCABS="$TD/llama.cpp/models"
T=$(mktemp -d "${TMPDIR:-/tmp}/bolt-llm-test.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
fails=0

fail() {
    echo "FAIL: $*"
    for f in "$T"/out "$T"/err; do
        [ -s "$f" ] && { echo "--- $f"; tail -n 15 "$f"; }
    done
    fails=$((fails + 1))
}

# mk NAME VOCAB SHAPE TYPE [ARGS] — a random model in $T/NAME.gguf
mk() {
    "$MK" --vocab "$VOCABS/ggml-vocab-$2.gguf" --shape "$3" --type "$4" -o "$T/$1.gguf" ${5:-} >"$T/mk.err" 2>&1 ||
        { cat "$T/mk.err"; fail "bolt-llm-mkmodel $2 $3 $4"; return 1; }
}

# llm ARGS... — bolt-llm, output in $T/out and $T/err, status in $rc
llm() {
    "$LLM" "$@" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
}

finish() {
    [ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
    exit 0
}

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

# rank1_fails MODEL WHAT RANK0_SAYS "BOLTRUN OPTIONS" "BOLT-LLM OPTIONS" —
# two ranks, rank 1's context too short for the prompt: the job must end
# (no hang) with rank 1's message and rank 0's matching RANK0_SAYS
rank1_fails() {
    cat >"$T/onefail.sh" <<EOS
#!/bin/sh
if [ "\${BOLT_RANK:-0}" = 1 ]; then exec "$LLM" -m "$1" -p "$P" -n 8 -c 4 $5; fi
exec "$LLM" -m "$1" -p "$P" -n 64 --temp 0 -t 1 $5
EOS
    chmod +x "$T/onefail.sh"
    # shellcheck disable=SC2086
    timeout 120 "$RUN" -np 2 $4 "$T/onefail.sh" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
    [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "$2: exit $rc (124: a hang)"
    grep -q "the prompt is longer than the context of 4 tokens" "$T/err" || fail "$2: no message of its own"
    grep -q "$3" "$T/err" || fail "$2: rank 0 does not say what broke"
}

# homes MODEL — $T/home/model.gguf, a copy of MODEL, and $T/away.sh, which
# runs its command in $T/away (no model there) on the ranks listed in $AWAY
# and in $T/home on the others: a host without the model, by a relative path
homes() {
    mkdir -p "$T/home" "$T/away"
    cp "$1" "$T/home/model.gguf"
    cat >"$T/away.sh" <<EOS
#!/bin/sh
case " \$AWAY " in *" \${BOLT_RANK:-0} "*) cd "$T/away" ;; *) cd "$T/home" ;; esac
exec "\$@"
EOS
    chmod +x "$T/away.sh"
}

/*
 * tokvec.c — the tokenizers against llama.cpp's own test vectors: for each
 * vocab-only GGUF given (ggml-vocab-*.gguf from node-llama-cpp's copy of
 * llama.cpp), every case of its .inp file (cases end with a line
 * "__ggml_vocab_test__") must give exactly the token ids of the matching
 * line of its .out file, tokenized as llama.cpp's test does (no BOS, special
 * tokens not parsed). A byte-level BPE's tokens must also decode back to
 * the text. Prints each mismatch; exits 1 on any.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inference/gguf.h"
#include "inference/vocab.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b)
        b[n] = 0;
    *len = (size_t)n;
    return b;
}

static int one(const char *path)
{
    char err[512], ip[1024], op[1024];
    gguf_t *g = NULL;
    inf_vocab_t *v;
    if (gguf_open(path, &g, err, sizeof err) || inf_vocab_load(g, path, &v, err, sizeof err)) {
        printf("FAIL: %s\n", err);
        gguf_close(g);
        return 1;
    }
    snprintf(ip, sizeof ip, "%s.inp", path);
    snprintf(op, sizeof op, "%s.out", path);
    size_t il, ol;
    char *in = slurp(ip, &il), *out = slurp(op, &ol);
    if (!in || !out) {
        printf("FAIL: %s: no .inp/.out beside it\n", path);
        free(in);
        free(out);
        inf_vocab_free(v);
        gguf_close(g);
        return 1;
    }
    const char *sep = "\n__ggml_vocab_test__\n";
    int cases = 0, bad = 0;
    char *pos = in, *line = out;
    int32_t *toks = malloc(65536 * sizeof *toks);
    char *back = malloc(1 << 20);
    while (pos < in + il) {
        char *next = strstr(pos, sep);
        size_t len = next ? (size_t)(next - pos) : (size_t)(in + il - pos);
        char *eol = strchr(line, '\n');
        if (!eol && !*line)
            break;
        if (eol)
            *eol = 0;
        int want[4096], nw = 0;
        for (char *t = strtok(line, " \t\r"); t && nw < 4096; t = strtok(NULL, " \t\r"))
            want[nw++] = atoi(t);
        int n = inf_tokenize(v, pos, len, 0, 0, toks, 65536);
        int same = n == nw;
        for (int i = 0; same && i < n; i++)
            same = toks[i] == want[i];
        if (!same) {
            bad++;
            printf("  %s case %d '%.*s': got", path, cases, (int)(len > 60 ? 60 : len), pos);
            for (int i = 0; i < n && i < 24; i++)
                printf(" %d", toks[i]);
            printf(" | want");
            for (int i = 0; i < nw && i < 24; i++)
                printf(" %d", want[i]);
            printf("\n");
        } else if (v->type == INF_VOCAB_BPE) {
            size_t m = 0;
            for (int i = 0; i < n; i++) {
                int k = inf_token_piece(v, toks[i], 0, back + m, (int)((1 << 20) - m));
                m += k > 0 ? (size_t)k : 0;
            }
            if (m != len || memcmp(back, pos, len)) {
                bad++;
                printf("  %s case %d: decodes to '%.*s'\n", path, cases, (int)(m > 60 ? 60 : m), back);
            }
        }
        cases++;
        line = eol ? eol + 1 : line + strlen(line);
        if (!next)
            break;
        pos = next + strlen(sep);
    }
    printf("%s: %s: %d cases, %d wrong (%s, pre '%s')\n", bad ? "FAIL" : "PASS", path, cases, bad,
           v->type == INF_VOCAB_SPM ? "spm" : "bpe", v->pre_name);
    free(toks);
    free(back);
    free(in);
    free(out);
    inf_vocab_free(v);
    gguf_close(g);
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    int rc = 0;
    for (int i = 1; i < argc; i++)
        rc |= one(argv[i]);
    return rc;
}

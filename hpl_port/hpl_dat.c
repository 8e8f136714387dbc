/*
 * hpl_dat.c — HPL.dat, HPL's 31-line input: every error names the file, the
 * line and what was expected, and nothing the file says sizes an allocation
 * (lists are bounded by HPL's own 20).
 *
 * Lines 1-2 are free text; on every other line only the leading tokens count
 * (the rest is a comment): one value, or as many as the line before says.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpl_port/hpl.h"

#define DAT_LINES 31
#define DAT_MAX_BYTES (1 << 20)
#define TOKEN_MAX 64

typedef struct dat {
    const char *text;
    size_t len;
    const char *fname;
    const char *line[DAT_LINES + 1]; /* 1-based */
    size_t llen[DAT_LINES + 1];
    int nlines;
    char *err;
    size_t errlen;
} dat_t;

static int dat_err(dat_t *d, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int dat_err(dat_t *d, int line, const char *fmt, ...)
{
    size_t n = (size_t)(line > 0 ? snprintf(d->err, d->errlen, "%s:%d: ", d->fname, line)
                                 : snprintf(d->err, d->errlen, "%s: ", d->fname));
    if (n < d->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->err + n, d->errlen - n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Token i (0-based) of a line into tok; 0 if the line has fewer. */
static int dat_token(const dat_t *d, int line, int i, char *tok, size_t toklen)
{
    const char *s = d->line[line], *e = s + d->llen[line];
    for (int k = 0;; k++) {
        while (s < e && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f'))
            s++;
        if (s == e)
            return 0;
        const char *t = s;
        while (s < e && !(*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f'))
            s++;
        if (k == i) {
            size_t n = (size_t)(s - t);
            if (n >= toklen)
                n = toklen - 1;
            memcpy(tok, t, n);
            tok[n] = 0;
            /* a NUL inside the token ends it early: it is not a number then */
            if (memchr(t, 0, (size_t)(s - t)))
                tok[0] = '\x01';
            return 1;
        }
    }
}

static void printable(const char *tok, char *out, size_t len)
{
    size_t j = 0;
    for (size_t i = 0; tok[i] && j + 5 < len; i++) {
        unsigned char c = (unsigned char)tok[i];
        if (c >= 0x20 && c < 0x7f)
            out[j++] = (char)c;
        else
            j += (size_t)snprintf(out + j, len - j, "\\x%02x", c);
    }
    out[j] = 0;
}

/* Integer token i of line (what: the meaning, for the message), in [lo, hi]. */
static int dat_int(dat_t *d, int line, int i, const char *what, long lo, long hi, int *out)
{
    char tok[TOKEN_MAX], shown[4 * TOKEN_MAX];
    if (!dat_token(d, line, i, tok, sizeof tok))
        return i == 0 ? dat_err(d, line, "expected %s, found an empty line", what)
                      : dat_err(d, line, "expected %s as value %d, found only %d", what, i + 1, i);
    char *end;
    errno = 0;
    long v = strtol(tok, &end, 10);
    printable(tok, shown, sizeof shown);
    if (end == tok || *end || errno)
        return dat_err(d, line, "expected %s, found '%s' (not an integer)", what, shown);
    if (v < lo || v > hi) {
        if (hi == INT_MAX)
            return dat_err(d, line, "expected %s of at least %ld, found %ld", what, lo, v);
        return dat_err(d, line, "expected %s from %ld to %ld, found %ld", what, lo, hi, v);
    }
    *out = (int)v;
    return 0;
}

/* Whether a token reads as an integer (not whether it is in range). */
static int is_integer(const char *tok)
{
    char *end;
    errno = 0;
    (void)strtol(tok, &end, 10);
    return end != tok && !*end;
}

/* Token i of a list of `count` on line: missing, or a word where a number
 * should be after i numbers, is "the count is larger than the list". */
static int dat_list_short(dat_t *d, int line, int i, int count, const char *what, int count_line)
{
    char tok[TOKEN_MAX], shown[4 * TOKEN_MAX];
    if (!dat_token(d, line, i, tok, sizeof tok))
        return dat_err(d, line, "expected %d %s (line %d says %d), found %d", count, what, count_line,
                       count, i);
    if (i > 0 && !is_integer(tok)) {
        printable(tok, shown, sizeof shown);
        return dat_err(d, line, "expected %d %s (line %d says %d), found %d, then '%s'", count, what,
                       count_line, count, i, shown);
    }
    return 0;
}

/* A count line (n values follow on the next line) and its list. */
static int dat_list(dat_t *d, int line, const char *what, long lo, long hi, int *count, int *v)
{
    char cwhat[128];
    snprintf(cwhat, sizeof cwhat, "the number of %s", what);
    if (dat_int(d, line, 0, cwhat, 1, HPL_MAX_PARAM, count))
        return -1;
    for (int i = 0; i < *count; i++)
        if (dat_list_short(d, line + 1, i, *count, what, line) || dat_int(d, line + 1, i, what, lo, hi, &v[i]))
            return -1;
    return 0;
}

static int dat_split(dat_t *d)
{
    const char *s = d->text, *e = s + d->len;
    d->nlines = 0;
    while (s < e && d->nlines < DAT_LINES) {
        const char *nl = memchr(s, '\n', (size_t)(e - s));
        const char *le = nl ? nl : e;
        d->nlines++;
        d->line[d->nlines] = s;
        d->llen[d->nlines] = (size_t)(le - s);
        s = nl ? nl + 1 : e;
    }
    return d->nlines;
}

static const char *const line_meaning[DAT_LINES + 1] = {
    "", "a title", "a title", "the output file name", "the output device (6 stdout, 7 stderr, else a file)",
    "the number of problem sizes (N)", "the problem sizes (Ns)", "the number of block sizes (NBs)",
    "the block sizes (NBs)", "the process mapping (PMAP: 0 row-major, 1 column-major)",
    "the number of process grids (P x Q)", "the process rows (Ps)", "the process columns (Qs)",
    "the residual threshold", "the number of panel factorisations (PFACTs)",
    "the PFACTs (0 left, 1 Crout, 2 right)", "the number of recursive stopping criteria (NBMINs)",
    "the NBMINs", "the number of panels in recursion (NDIVs)", "the NDIVs",
    "the number of recursive panel factorisations (RFACTs)", "the RFACTs (0 left, 1 Crout, 2 right)",
    "the number of broadcasts (BCASTs)", "the BCASTs (0 1ring, 1 1ringM, 2 2ring, 3 2ringM, 4 long, 5 longM, 6 Bolt)",
    "the number of look-ahead depths (DEPTHs)", "the DEPTHs", "the swap algorithm (SWAP: 0 bin-exch, 1 long, 2 mix)",
    "the swapping threshold", "the form of L1 (0 transposed, 1 no-transposed)",
    "the form of U (0 transposed, 1 no-transposed)", "equilibration (0 no, 1 yes)",
    "the memory alignment in doubles"};

int hpl_dat_parse(const char *text, size_t len, const char *fname, int nranks, hpl_input_t *in,
                  char *err, size_t errlen)
{
    dat_t d = {.text = text, .len = len, .fname = fname, .err = err, .errlen = errlen};
    memset(in, 0, sizeof *in);
    if (len > DAT_MAX_BYTES)
        return dat_err(&d, 0, "%zu bytes is not an HPL.dat (at most %d lines of text are read)", len,
                       DAT_LINES);
    int n = dat_split(&d);
    if (n < DAT_LINES)
        return dat_err(&d, 0, "the file ends after %d line%s; line %d should hold %s (HPL.dat has %d lines)",
                       n, n == 1 ? "" : "s", n + 1, line_meaning[n + 1], DAT_LINES);
    char tok[TOKEN_MAX];
    if (!dat_token(&d, 3, 0, tok, sizeof tok))
        return dat_err(&d, 3, "expected %s, found an empty line", line_meaning[3]);
    snprintf(in->outname, sizeof in->outname, "%s", tok);
    if (dat_int(&d, 4, 0, line_meaning[4], INT_MIN, INT_MAX, &in->device))
        return -1;
    if (dat_list(&d, 5, "problem sizes (N)", 0, INT_MAX, &in->nn, in->n) ||
        dat_list(&d, 7, "block sizes (NB)", 1, INT_MAX, &in->nnb, in->nb) ||
        dat_int(&d, 9, 0, line_meaning[9], 0, 1, &in->pmap) ||
        dat_list(&d, 10, "process grids (P x Q)", 1, INT_MAX, &in->ngrid, in->p))
        return -1;
    /* the Qs follow the Ps' count */
    for (int i = 0; i < in->ngrid; i++)
        if (dat_list_short(&d, 12, i, in->ngrid, "process columns (Q)", 10) ||
            dat_int(&d, 12, i, "process columns (Q)", 1, INT_MAX, &in->q[i]))
            return -1;
    for (int i = 0; nranks > 0 && i < in->ngrid; i++)
        if ((long)in->p[i] * in->q[i] > nranks)
            return dat_err(&d, 11, "grid %d is %d x %d (lines 11-12): it needs %ld ranks, the job has %d "
                           "(run with more ranks or a smaller grid)",
                           i + 1, in->p[i], in->q[i], (long)in->p[i] * in->q[i], nranks);
    if (!dat_token(&d, 13, 0, tok, sizeof tok))
        return dat_err(&d, 13, "expected %s, found an empty line", line_meaning[13]);
    char *end;
    in->threshold = strtod(tok, &end);
    if (end == tok || *end || isnan(in->threshold)) {
        char shown[4 * TOKEN_MAX];
        printable(tok, shown, sizeof shown);
        return dat_err(&d, 13, "expected %s, found '%s' (not a number)", line_meaning[13], shown);
    }
    if (dat_list(&d, 14, "panel factorisations (PFACT)", 0, 2, &in->npfact, in->pfact) ||
        dat_list(&d, 16, "recursive stopping criteria (NBMIN)", 1, INT_MAX, &in->nnbmin, in->nbmin) ||
        dat_list(&d, 18, "panels in recursion (NDIV)", 2, INT_MAX, &in->nndiv, in->ndiv) ||
        dat_list(&d, 20, "recursive panel factorisations (RFACT)", 0, 2, &in->nrfact, in->rfact) ||
        dat_list(&d, 22, "broadcasts (BCAST)", 0, HPL_BCAST_COUNT - 1, &in->nbcast, in->bcast) ||
        dat_list(&d, 24, "look-ahead depths (DEPTH)", 0, 64, &in->ndepth, in->depth) ||
        dat_int(&d, 26, 0, line_meaning[26], 0, 2, &in->swap) ||
        dat_int(&d, 27, 0, line_meaning[27], 0, INT_MAX, &in->swap_threshold) ||
        dat_int(&d, 28, 0, line_meaning[28], 0, 1, &in->l1_notrans) ||
        dat_int(&d, 29, 0, line_meaning[29], 0, 1, &in->u_notrans) ||
        dat_int(&d, 30, 0, line_meaning[30], 0, 1, &in->equil) ||
        dat_int(&d, 31, 0, line_meaning[31], 1, 1 << 20, &in->align))
        return -1;
    return 0;
}

int hpl_dat_read(const char *path, int nranks, hpl_input_t *in, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open it: %s (HPL's input; or give -N, --nb, -P, -Q, or --auto)",
                 path, strerror(errno));
        return -1;
    }
    /* one byte past the limit tells a too-large file from one at the limit */
    char *buf = malloc(DAT_MAX_BYTES + 1);
    size_t len = buf ? fread(buf, 1, DAT_MAX_BYTES + 1, f) : 0;
    int bad = !buf || ferror(f);
    fclose(f);
    int rc;
    if (bad) {
        snprintf(err, errlen, "%s: cannot read it", path);
        rc = -1;
    } else {
        rc = hpl_dat_parse(buf, len, path, nranks, in, err, errlen);
    }
    free(buf);
    return rc;
}

void hpl_input_defaults(hpl_input_t *in)
{
    /* the values of HPL's sample HPL.dat, with the variants this port runs fastest */
    memset(in, 0, sizeof *in);
    snprintf(in->outname, sizeof in->outname, "HPL.out");
    in->device = 6;
    in->nn = 1;
    in->n[0] = 1000;
    in->nnb = 1;
    in->nb[0] = 192;
    in->pmap = 0;
    in->ngrid = 1;
    in->p[0] = in->q[0] = 1;
    in->threshold = 16.0;
    in->npfact = 1;
    in->pfact[0] = HPL_FACT_RIGHT;
    in->nnbmin = 1;
    in->nbmin[0] = 4;
    in->nndiv = 1;
    in->ndiv[0] = 2;
    in->nrfact = 1;
    in->rfact[0] = HPL_FACT_CROUT;
    in->nbcast = 1;
    in->bcast[0] = HPL_BCAST_1RINGM;
    in->ndepth = 1;
    in->depth[0] = 1;
    in->swap = HPL_SWAP_MIX;
    in->swap_threshold = 64;
    /* no-transposed U is where the port copies least: with one process row
     * U stays in A, and the swaps write U's rows contiguously */
    in->l1_notrans = 1;
    in->u_notrans = 1;
    in->equil = 1;
    in->align = 8;
}

/*
 * tok_bpe.c — byte-level BPE: the pre-tokenizer named by tokenizer.ggml.pre
 * splits the text with its regular expressions (PCRE2, Unicode classes; the
 * text between matches is kept as pieces too), each piece's bytes become
 * GPT-2's printable characters, and adjacent symbols merge by rank (lowest
 * first, ties leftmost) until no pair is in the merge list.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inference/pairq.h"
#include "inference/vocab.h"

#define MAX_RES 4

struct inf_bpe_pre {
    int n;
    pcre2_code *re[MAX_RES];
    pcre2_match_data *md[MAX_RES];
};

/* The pre-tokenizers' expressions (from the models' tokenizer.json files). */
static const char *const re_llama3[] = {
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    NULL};
static const char *const re_qwen2[] = {
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    NULL};
static const char *const re_gpt2[] = {"'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)", NULL};
static const char *const re_default[] = {"[\\p{P}\\$\\+<=>\\^~\\|]+",
                                         "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
                                         "\\p{N}+", "[0-9][0-9][0-9]", NULL};

/* Llama 3's tokenizer takes a word that is a token whole, and its models
 * start with BOS unless the file says otherwise. */
static const struct {
    const char *name;
    const char *const *re;
    int ignore_merges, add_bos;
} pres[] = {
    {"llama-bpe", re_llama3, 1, 1}, {"llama3", re_llama3, 1, 1},   {"llama-v3", re_llama3, 1, 1},
    {"qwen2", re_qwen2, 0, 0},      {"deepseek-r1-qwen", re_qwen2, 0, 0}, {"gpt-2", re_gpt2, 0, 0},
    {"phi-2", re_gpt2, 0, 0},       {"default", re_default, 0, 0},        {"", re_default, 0, 0},
};

void inf_bpe_pre_free(struct inf_bpe_pre *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n; i++) {
        pcre2_match_data_free(p->md[i]);
        pcre2_code_free(p->re[i]);
    }
    free(p);
}

int inf_bpe_pre_load(inf_vocab_t *v, char *err, size_t errlen)
{
    const char *const *re = NULL;
    for (size_t i = 0; i < sizeof pres / sizeof pres[0]; i++)
        if (!strcmp(pres[i].name, v->pre_name)) {
            re = pres[i].re;
            v->ignore_merges = pres[i].ignore_merges;
            v->add_bos = pres[i].add_bos;
        }
    if (!re) {
        snprintf(err, errlen, "key 'tokenizer.ggml.pre' is '%s': the pre-tokenizers supported are llama-bpe (llama3), qwen2, gpt-2 (phi-2) and default",
                 v->pre_name);
        return -1;
    }
    struct inf_bpe_pre *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (; re[p->n]; p->n++) {
        int code;
        PCRE2_SIZE at;
        p->re[p->n] = pcre2_compile((PCRE2_SPTR)re[p->n], PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &code, &at, NULL);
        if (!p->re[p->n] || !(p->md[p->n] = pcre2_match_data_create_from_pattern(p->re[p->n], NULL))) {
            PCRE2_UCHAR msg[128];
            pcre2_get_error_message(code, msg, sizeof msg);
            snprintf(err, errlen, "pre-tokenizer '%s': expression %d: %s", v->pre_name, p->n, (const char *)msg);
            p->n++;
            inf_bpe_pre_free(p);
            return -1;
        }
        (void)pcre2_jit_compile(p->re[p->n], PCRE2_JIT_COMPLETE); /* faster where it can */
    }
    v->pre = p;
    return 0;
}

/* ---- GPT-2's byte <-> character map: printable bytes stand for
 * themselves, the others for U+0100 on, in order ---- */

static int byte_cp(int b)
{
    if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255))
        return b;
    int k = 0;
    for (int c = 0; c < b; c++)
        if (!((c >= 33 && c <= 126) || (c >= 161 && c <= 172) || (c >= 174 && c <= 255)))
            k++;
    return 256 + k;
}

static int put_utf8(int cp, char *o)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    o[0] = (char)(0xe0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
}

static char enc[256][4];
static int enc_len[256];
static int dec[512]; /* code point -> byte, -1 */

static void init_maps(void)
{
    if (enc_len[0])
        return;
    for (int i = 0; i < 512; i++)
        dec[i] = -1;
    for (int b = 0; b < 256; b++) {
        int cp = byte_cp(b);
        enc_len[b] = put_utf8(cp, enc[b]);
        dec[cp] = b;
    }
}

int inf_bpe_decode(const char *s, size_t n, char *buf, int len)
{
    init_maps();
    int m = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        int cp = c, k = 1;
        if (c >= 0xc0 && c < 0xe0 && i + 1 < n) {
            cp = ((c & 0x1f) << 6) | (s[i + 1] & 0x3f);
            k = 2;
        } else if (c >= 0xe0 && c < 0xf0 && i + 2 < n) {
            cp = ((c & 0x0f) << 12) | ((s[i + 1] & 0x3f) << 6) | (s[i + 2] & 0x3f);
            k = 3;
        }
        if (m >= len)
            return -1;
        /* a character outside the map stands for itself (added tokens) */
        if (cp < 512 && dec[cp] >= 0) {
            buf[m++] = (char)dec[cp];
        } else {
            if (m + k > len)
                return -1;
            memcpy(buf + m, s + i, (size_t)k);
            m += k;
        }
        i += (size_t)k;
    }
    return m;
}

/* ---- pieces ---- */

typedef struct {
    size_t off, len;
} piece_t;

typedef struct {
    piece_t *p;
    size_t n, cap;
} pieces_t;

static int add_piece(pieces_t *ps, size_t off, size_t len)
{
    if (!len)
        return 0;
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? 2 * ps->cap : 32;
        piece_t *p = realloc(ps->p, cap * sizeof *p);
        if (!p)
            return -1;
        ps->p = p;
        ps->cap = cap;
    }
    ps->p[ps->n++] = (piece_t){off, len};
    return 0;
}

/* Splits [off, off + len) of text with expression i: matches and gaps. */
static int split_one(const struct inf_bpe_pre *pre, int i, const char *text, size_t off, size_t len, pieces_t *out)
{
    size_t at = 0;
    while (at < len) {
        int rc = pcre2_match(pre->re[i], (PCRE2_SPTR)(text + off), len, at, PCRE2_NO_UTF_CHECK, pre->md[i], NULL);
        if (rc < 0)
            break;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(pre->md[i]);
        if (ov[1] <= ov[0]) { /* an empty match: nothing of the expressions here matches empty, but be safe */
            at = ov[0] + 1;
            continue;
        }
        if (add_piece(out, off + at, ov[0] - at) || add_piece(out, off + ov[0], ov[1] - ov[0]))
            return -1;
        at = ov[1];
    }
    return add_piece(out, off + at, len - at);
}

/* The length of the valid UTF-8 prefix of s. */
static size_t utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k = c < 0x80 ? 1 : (c >= 0xc2 && c < 0xe0) ? 2 : (c >= 0xe0 && c < 0xf0) ? 3 : (c >= 0xf0 && c < 0xf5) ? 4 : 0;
        if (!k || i + k > n)
            return i;
        for (size_t j = 1; j < k; j++)
            if ((s[i + j] & 0xc0) != 0x80)
                return i;
        if (k == 3 && ((c == 0xe0 && s[i + 1] < 0xa0) || (c == 0xed && s[i + 1] >= 0xa0)))
            return i;
        if (k == 4 && ((c == 0xf0 && s[i + 1] < 0x90) || (c == 0xf4 && s[i + 1] >= 0x90)))
            return i;
        i += k;
    }
    return i;
}

/* ---- merging one piece ---- */

typedef struct {
    int prev, next;
    size_t off; /* in the encoded piece */
    int n;
} sym_t;

typedef struct {
    const inf_vocab_t *v;
    const char *w; /* the encoded piece */
    sym_t *s;
    inf_pairq_t q;
    char *buf; /* "left right" */
    size_t bufcap;
} sess_t;

static int try_pair(sess_t *z, int left, int right)
{
    if (left < 0 || right < 0)
        return 0;
    size_t ln = (size_t)z->s[left].n, rn = (size_t)z->s[right].n;
    if (ln + rn + 1 > z->bufcap) {
        size_t cap = 2 * (ln + rn + 1);
        char *b = realloc(z->buf, cap);
        if (!b)
            return -1;
        z->buf = b;
        z->bufcap = cap;
    }
    memcpy(z->buf, z->w + z->s[left].off, ln);
    z->buf[ln] = ' ';
    memcpy(z->buf + ln + 1, z->w + z->s[right].off, rn);
    int rank = inf_strmap_get(z->v->merges, z->buf, ln + rn + 1);
    if (rank < 0)
        return 0;
    return inf_pairq_push(&z->q, (inf_pair_t){left, right, (int)(ln + rn), rank});
}

static int emit(int32_t *out, int n, int max, int t)
{
    if (n < 0 || n >= max)
        return -1;
    out[n] = t;
    return n + 1;
}

/* One pre-token: bytes -> characters, merges, tokens. */
static int bpe_word(sess_t *z, const char *p, size_t len, int32_t *out, int n, int max)
{
    const inf_vocab_t *v = z->v;
    char *w = malloc(3 * len + 1);
    sym_t *s = malloc(len * sizeof *s);
    if (!w || !s) {
        free(w);
        free(s);
        return -1;
    }
    size_t wl = 0;
    int ns = 0;
    for (size_t i = 0; i < len; i++) {
        int k = enc_len[(unsigned char)p[i]];
        memcpy(w + wl, enc[(unsigned char)p[i]], (size_t)k);
        s[ns] = (sym_t){.prev = ns - 1, .next = i + 1 < len ? ns + 1 : -1, .off = wl, .n = k};
        ns++;
        wl += (size_t)k;
    }
    int id;
    if (v->ignore_merges && (id = inf_vocab_id(v, w, wl)) >= 0) {
        n = emit(out, n, max, id);
        free(w);
        free(s);
        return n;
    }
    z->w = w;
    z->s = s;
    z->q.n = 0;
    int rc = 0;
    for (int i = 1; i < ns && rc == 0; i++)
        rc = try_pair(z, i - 1, i);
    while (rc == 0 && z->q.n > 0) {
        inf_pair_t b = inf_pairq_pop(&z->q);
        sym_t *l = &s[b.left], *r = &s[b.right];
        if (l->n == 0 || r->n == 0 || l->n + r->n != b.size)
            continue;
        l->n += r->n;
        r->n = 0;
        l->next = r->next;
        if (r->next >= 0)
            s[r->next].prev = b.left;
        rc = try_pair(z, l->prev, b.left);
        if (rc == 0)
            rc = try_pair(z, b.left, l->next);
    }
    for (int i = 0; rc == 0 && n >= 0 && i >= 0 && i < ns; i = s[i].next) {
        id = inf_vocab_id(v, w + s[i].off, (size_t)s[i].n);
        if (id >= 0) {
            n = emit(out, n, max, id);
            continue;
        }
        /* not a token: each character on its own, where it is one */
        for (int k = 0; k < s[i].n && n >= 0;) {
            unsigned char c = (unsigned char)w[s[i].off + (size_t)k];
            int cl = c < 0x80 ? 1 : c < 0xe0 ? 2 : 3;
            if ((id = inf_vocab_id(v, w + s[i].off + (size_t)k, (size_t)cl)) >= 0)
                n = emit(out, n, max, id);
            k += cl;
        }
    }
    free(w);
    free(s);
    return rc ? -1 : n;
}

int inf_tok_bpe(const inf_vocab_t *v, const char *text, size_t len, int32_t *out, int n, int max)
{
    init_maps();
    const struct inf_bpe_pre *pre = v->pre;
    pieces_t a = {0}, b = {0};
    int rc = 0;
    /* valid UTF-8 runs go through the expressions; a stray byte is a piece */
    for (size_t off = 0; off < len && rc == 0;) {
        size_t ok = utf8_valid((const unsigned char *)text + off, len - off);
        if (ok)
            rc = add_piece(&a, off, ok);
        else if (rc == 0)
            rc = add_piece(&a, off, 1), ok = 1;
        off += ok;
    }
    for (int i = 0; i < pre->n && rc == 0; i++) {
        b.n = 0;
        for (size_t k = 0; k < a.n && rc == 0; k++) {
            size_t valid = utf8_valid((const unsigned char *)text + a.p[k].off, a.p[k].len);
            rc = valid == a.p[k].len ? split_one(pre, i, text, a.p[k].off, a.p[k].len, &b)
                                     : add_piece(&b, a.p[k].off, a.p[k].len);
        }
        pieces_t t = a;
        a = b;
        b = t;
    }
    sess_t z = {.v = v};
    for (size_t k = 0; k < a.n && rc == 0 && n >= 0; k++)
        n = bpe_word(&z, text + a.p[k].off, a.p[k].len, out, n, max);
    free(z.q.h);
    free(z.buf);
    free(a.p);
    free(b.p);
    return rc ? -1 : n;
}

/*
 * vocab.h — the tokenizer a GGUF file describes (tokenizer.ggml.*):
 * SentencePiece-style ("llama": score-driven merges over UTF-8 characters,
 * byte fallback) in tok_spm.c, byte-level BPE ("gpt2": a pre-tokenizer's
 * regular expressions, then ranked merges) in tok_bpe.c; special and
 * user-defined tokens split out of the text first (vocab.c), BOS and EOS as
 * the file says; decoding back to bytes.
 */
#ifndef INF_VOCAB_H
#define INF_VOCAB_H

#include <stddef.h>
#include <stdint.h>

#include "inference/gguf.h"

enum inf_vocab_type { INF_VOCAB_SPM, INF_VOCAB_BPE };

/* tokenizer.ggml.token_type */
enum { INF_TOK_NORMAL = 1, INF_TOK_UNKNOWN = 2, INF_TOK_CONTROL = 3, INF_TOK_USER = 4, INF_TOK_UNUSED = 5, INF_TOK_BYTE = 6 };

typedef struct inf_strmap inf_strmap_t; /* text -> id (vocab.c) */
struct inf_bpe_pre;                      /* compiled pre-tokenizer (tok_bpe.c) */

typedef struct inf_vocab {
    enum inf_vocab_type type;
    int n;
    const gguf_str_t *text; /* in the model's map */
    float *score;           /* SPM */
    uint8_t *ttype;         /* INF_TOK_* */
    inf_strmap_t *ids;
    inf_strmap_t *merges;   /* BPE: "left right" -> rank */
    int bos, eos, eot, unk, pad;
    int add_bos, add_eos, add_space_prefix;
    int *special;           /* control, user-defined and unknown tokens, longest first */
    int n_special;
    int byte_tok[256];      /* SPM: <0xXX>, or -1 */
    char pre_name[32];      /* BPE: tokenizer.ggml.pre */
    struct inf_bpe_pre *pre;
    int ignore_merges;      /* BPE: a word that is a token is taken whole (llama 3) */
} inf_vocab_t;

/* Reads the tokenizer of a model file. Returns 0, or -1 with a message naming
 * the file (path) and the key. */
int inf_vocab_load(const gguf_t *g, const char *path, inf_vocab_t **out, char *err, size_t errlen);
void inf_vocab_free(inf_vocab_t *v);

/* Tokens of text: BOS (and EOS) when add_special and the file asks for them;
 * control tokens written in the text recognised when parse_special
 * (user-defined ones always). Returns the count, or -1 when more than max
 * (out then holds the first max). */
int inf_tokenize(const inf_vocab_t *v, const char *text, size_t len, int add_special, int parse_special, int32_t *out,
                 int max);
/* The bytes of a token (control tokens only when special); returns the
 * length, or -1 when more than len. */
int inf_token_piece(const inf_vocab_t *v, int32_t tok, int special, char *buf, int len);
/* Whether a token ends generation (EOS, EOT). */
int inf_token_is_eog(const inf_vocab_t *v, int32_t tok);

/* The id of a token's text, or -1 (for the tokenizers). */
int inf_vocab_id(const inf_vocab_t *v, const char *s, size_t n);
int inf_strmap_get(const inf_strmap_t *m, const char *s, size_t n);

/* tok_spm.c, tok_bpe.c: one fragment of plain text, appended to out (at
 * most max in all; returns the new count, or -1 when full). */
int inf_tok_spm(const inf_vocab_t *v, const char *text, size_t len, int32_t *out, int n, int max);
int inf_tok_bpe(const inf_vocab_t *v, const char *text, size_t len, int32_t *out, int n, int max);
int inf_bpe_pre_load(inf_vocab_t *v, char *err, size_t errlen);
void inf_bpe_pre_free(struct inf_bpe_pre *p);
/* tok_bpe.c: a BPE token's text (byte-level characters) back to bytes. */
int inf_bpe_decode(const char *s, size_t n, char *buf, int len);

#endif

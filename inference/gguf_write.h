/*
 * gguf_write.h — writing GGUF (version 3) files: metadata of every type,
 * tensors whose bytes come from memory or from a callback at write time (a
 * model of gigabytes is generated a tensor at a time, never held whole), and
 * a model split in parts as llama.cpp's gguf-split names and marks them.
 * For the model maker (tools/) and the tests.
 */
#ifndef INF_GGUF_WRITE_H
#define INF_GGUF_WRITE_H

#include "inference/gguf.h"

typedef struct gguf_w gguf_w_t;

/* Fills the tensor's nbytes at dst; returns 0 or -1 (the write fails). */
typedef int gguf_fill_fn(void *ctx, int index, void *dst, size_t nbytes);

gguf_w_t *gguf_w_new(void);
void gguf_w_free(gguf_w_t *w);

/* Metadata, in the order given (a key given twice: the last wins). */
int gguf_w_u32(gguf_w_t *w, const char *key, uint32_t v);
int gguf_w_i32(gguf_w_t *w, const char *key, int32_t v);
int gguf_w_u64(gguf_w_t *w, const char *key, uint64_t v);
int gguf_w_f32(gguf_w_t *w, const char *key, float v);
int gguf_w_bool(gguf_w_t *w, const char *key, int v);
int gguf_w_str(gguf_w_t *w, const char *key, const char *v);
int gguf_w_arr_f32(gguf_w_t *w, const char *key, const float *v, size_t n);
int gguf_w_arr_i32(gguf_w_t *w, const char *key, const int32_t *v, size_t n);
int gguf_w_arr_str(gguf_w_t *w, const char *key, const gguf_str_t *v, size_t n);
/* A value of another file, as it is (the tokenizer's, from a vocab file). */
int gguf_w_copy(gguf_w_t *w, const gguf_kv_t *kv);
/* Any key with raw value bytes (tests of odd files: nested arrays, types). */
int gguf_w_raw(gguf_w_t *w, const char *key, uint32_t type, const void *bytes, size_t n);

/* A tensor of n_dims dimensions ne[] (innermost first) of a ggml type: its
 * bytes from data (kept by the caller until the write) or, when data is
 * NULL, from fill(ctx, index) during the write. Returns its index or -1. */
int gguf_w_tensor(gguf_w_t *w, const char *name, int n_dims, const uint64_t *ne, uint32_t type, const void *data,
                  gguf_fill_fn *fill, void *ctx);

/* Writes the file (alignment 32 unless general.alignment was set).
 * parts > 1: path must end in .gguf; writes <stem>-0000k-of-0000n.gguf, the
 * tensors dealt in order, each part with split.no, split.count and
 * split.tensors.count, the metadata in the first. Returns 0 or -1 (err). */
int gguf_w_write(gguf_w_t *w, const char *path, int parts, char *err, size_t errlen);

#endif

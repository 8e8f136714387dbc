/*
 * gguf_write.c — the GGUF writer (gguf_write.h). Metadata values are kept
 * as their encoded bytes, so a copied value (from another file) and a new
 * one are written the same way.
 */
#include "inference/gguf_write.h"
#include "inference/err.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *key;
    uint32_t type;
    uint8_t *val;
    size_t len;
} wkv_t;

typedef struct {
    char *name;
    int n_dims;
    uint64_t ne[GGUF_MAX_DIMS];
    uint32_t type;
    size_t nbytes;
    const void *data;
    gguf_fill_fn *fill;
    void *ctx;
} wten_t;

struct gguf_w {
    wkv_t *kv;
    size_t nkv, capkv;
    wten_t *t;
    size_t nt, capt;
    int oom;
};

gguf_w_t *gguf_w_new(void)
{
    return calloc(1, sizeof(gguf_w_t));
}

void gguf_w_free(gguf_w_t *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->nkv; i++) {
        free(w->kv[i].key);
        free(w->kv[i].val);
    }
    for (size_t i = 0; i < w->nt; i++)
        free(w->t[i].name);
    free(w->kv);
    free(w->t);
    free(w);
}

/* Takes val (malloc'd) over. */
static int put(gguf_w_t *w, const char *key, uint32_t type, uint8_t *val, size_t len)
{
    for (size_t i = 0; i < w->nkv; i++)
        if (!strcmp(w->kv[i].key, key)) {
            free(w->kv[i].val);
            w->kv[i].type = type;
            w->kv[i].val = val;
            w->kv[i].len = len;
            return 0;
        }
    if (w->nkv == w->capkv) {
        size_t cap = w->capkv ? 2 * w->capkv : 32;
        wkv_t *k = realloc(w->kv, cap * sizeof *k);
        if (!k)
            goto oom;
        w->kv = k;
        w->capkv = cap;
    }
    char *kd = strdup(key);
    if (!kd)
        goto oom;
    w->kv[w->nkv++] = (wkv_t){.key = kd, .type = type, .val = val, .len = len};
    return 0;
oom:
    free(val);
    w->oom = 1;
    return -1;
}

static int put_copy(gguf_w_t *w, const char *key, uint32_t type, const void *bytes, size_t len)
{
    uint8_t *v = malloc(len ? len : 1);
    if (!v) {
        w->oom = 1;
        return -1;
    }
    memcpy(v, bytes, len);
    return put(w, key, type, v, len);
}

int gguf_w_u32(gguf_w_t *w, const char *key, uint32_t v)
{
    return put_copy(w, key, GGUF_U32, &v, 4);
}

int gguf_w_i32(gguf_w_t *w, const char *key, int32_t v)
{
    return put_copy(w, key, GGUF_I32, &v, 4);
}

int gguf_w_u64(gguf_w_t *w, const char *key, uint64_t v)
{
    return put_copy(w, key, GGUF_U64, &v, 8);
}

int gguf_w_f32(gguf_w_t *w, const char *key, float v)
{
    return put_copy(w, key, GGUF_F32, &v, 4);
}

int gguf_w_bool(gguf_w_t *w, const char *key, int v)
{
    uint8_t b = v != 0;
    return put_copy(w, key, GGUF_BOOL, &b, 1);
}

int gguf_w_str(gguf_w_t *w, const char *key, const char *v)
{
    uint64_t n = strlen(v);
    uint8_t *b = malloc(8 + n);
    if (!b) {
        w->oom = 1;
        return -1;
    }
    memcpy(b, &n, 8);
    memcpy(b + 8, v, n);
    return put(w, key, GGUF_STRING, b, 8 + n);
}

static int put_arr(gguf_w_t *w, const char *key, uint32_t at, const void *elems, size_t n, size_t es)
{
    uint8_t *b = malloc(12 + n * es);
    if (!b) {
        w->oom = 1;
        return -1;
    }
    uint64_t c = n;
    memcpy(b, &at, 4);
    memcpy(b + 4, &c, 8);
    if (n)
        memcpy(b + 12, elems, n * es);
    return put(w, key, GGUF_ARRAY, b, 12 + n * es);
}

int gguf_w_arr_f32(gguf_w_t *w, const char *key, const float *v, size_t n)
{
    return put_arr(w, key, GGUF_F32, v, n, 4);
}

int gguf_w_arr_i32(gguf_w_t *w, const char *key, const int32_t *v, size_t n)
{
    return put_arr(w, key, GGUF_I32, v, n, 4);
}

int gguf_w_arr_str(gguf_w_t *w, const char *key, const gguf_str_t *v, size_t n)
{
    size_t len = 12;
    for (size_t i = 0; i < n; i++)
        len += 8 + v[i].n;
    uint8_t *b = malloc(len), *p = b;
    if (!b) {
        w->oom = 1;
        return -1;
    }
    uint32_t at = GGUF_STRING;
    uint64_t c = n;
    memcpy(p, &at, 4);
    memcpy(p + 4, &c, 8);
    p += 12;
    for (size_t i = 0; i < n; i++) {
        memcpy(p, &v[i].n, 8);
        memcpy(p + 8, v[i].p, v[i].n);
        p += 8 + v[i].n;
    }
    return put(w, key, GGUF_ARRAY, b, len);
}

int gguf_w_raw(gguf_w_t *w, const char *key, uint32_t type, const void *bytes, size_t n)
{
    return put_copy(w, key, type, bytes, n);
}

int gguf_w_copy(gguf_w_t *w, const gguf_kv_t *kv)
{
    char *key = malloc(kv->key.n + 1);
    if (!key) {
        w->oom = 1;
        return -1;
    }
    memcpy(key, kv->key.p, kv->key.n);
    key[kv->key.n] = 0;
    int rc;
    switch (kv->type) {
    case GGUF_STRING: {
        uint64_t n = kv->str.n;
        uint8_t *b = malloc(8 + n);
        if (!b) {
            rc = -1;
            break;
        }
        memcpy(b, &n, 8);
        memcpy(b + 8, kv->str.p, n);
        rc = put(w, key, GGUF_STRING, b, 8 + n);
        break;
    }
    case GGUF_ARRAY:
        if (kv->atype == GGUF_STRING)
            rc = gguf_w_arr_str(w, key, kv->strs, (size_t)kv->count);
        else if (kv->atype == GGUF_ARRAY) {
            rc = -1; /* nested arrays are not copied */
        } else {
            size_t es = kv->atype == GGUF_U8 || kv->atype == GGUF_I8 || kv->atype == GGUF_BOOL ? 1
                        : kv->atype == GGUF_U16 || kv->atype == GGUF_I16                     ? 2
                        : kv->atype == GGUF_U64 || kv->atype == GGUF_I64 || kv->atype == GGUF_F64 ? 8
                                                                                                  : 4;
            rc = put_arr(w, key, kv->atype, kv->data, (size_t)kv->count, es);
        }
        break;
    default: {
        /* scalars: re-encode from the parsed value */
        uint8_t b[8];
        size_t n = 4;
        if (kv->type == GGUF_F32) {
            float f = (float)kv->v.f;
            memcpy(b, &f, 4);
        } else if (kv->type == GGUF_F64) {
            memcpy(b, &kv->v.f, 8);
            n = 8;
        } else {
            uint64_t u = kv->v.u;
            n = kv->type == GGUF_U8 || kv->type == GGUF_I8 || kv->type == GGUF_BOOL ? 1
                : kv->type == GGUF_U16 || kv->type == GGUF_I16                     ? 2
                : kv->type == GGUF_U64 || kv->type == GGUF_I64                     ? 8
                                                                                   : 4;
            memcpy(b, &u, n); /* little-endian: the low bytes */
        }
        rc = put_copy(w, key, kv->type, b, n);
    }
    }
    free(key);
    return rc;
}

int gguf_w_tensor(gguf_w_t *w, const char *name, int n_dims, const uint64_t *ne, uint32_t type, const void *data,
                  gguf_fill_fn *fill, void *ctx)
{
    size_t bb = 0;
    int blk = gguf_type_block(type, &bb);
    if (!blk || n_dims < 1 || n_dims > GGUF_MAX_DIMS || ne[0] % (uint64_t)blk)
        return -1;
    if (w->nt == w->capt) {
        size_t cap = w->capt ? 2 * w->capt : 64;
        wten_t *t = realloc(w->t, cap * sizeof *t);
        if (!t) {
            w->oom = 1;
            return -1;
        }
        w->t = t;
        w->capt = cap;
    }
    wten_t *t = &w->t[w->nt];
    memset(t, 0, sizeof *t);
    if (!(t->name = strdup(name))) {
        w->oom = 1;
        return -1;
    }
    t->n_dims = n_dims;
    uint64_t elems = 1;
    for (int d = 0; d < GGUF_MAX_DIMS; d++) {
        t->ne[d] = d < n_dims ? ne[d] : 1;
        elems *= t->ne[d];
    }
    t->type = type;
    t->nbytes = (size_t)(elems / (uint64_t)blk * bb);
    t->data = data;
    t->fill = fill;
    t->ctx = ctx;
    return (int)w->nt++;
}


static int wr(FILE *f, const void *p, size_t n)
{
    return n == 0 || fwrite(p, 1, n, f) == n ? 0 : -1;
}

static int wr_str(FILE *f, const char *s)
{
    uint64_t n = strlen(s);
    return wr(f, &n, 8) || wr(f, s, n);
}

static int pad(FILE *f, uint64_t *pos, uint32_t align)
{
    static const uint8_t zero[256];
    while (*pos % align) {
        size_t k = align - *pos % align;
        if (k > sizeof zero)
            k = sizeof zero;
        if (wr(f, zero, k))
            return -1;
        *pos += k;
    }
    return 0;
}

static uint32_t alignment_of(const gguf_w_t *w)
{
    for (size_t i = 0; i < w->nkv; i++)
        if (!strcmp(w->kv[i].key, "general.alignment") && w->kv[i].type == GGUF_U32) {
            uint32_t a;
            memcpy(&a, w->kv[i].val, 4);
            if (a && !(a & (a - 1)))
                return a;
        }
    return 32;
}

/* One file: the given keys (and extra ones), tensors [t0, t1). */
static int write_part(gguf_w_t *w, const char *path, const wkv_t *extra, size_t nextra, int with_meta, size_t t0,
                      size_t t1, char *err, size_t errlen)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return inf_fail(err, errlen, "%s: cannot create: %s", path, strerror(errno));
    const uint32_t align = alignment_of(w);
    uint32_t magic = 0x46554747u, version = 3;
    uint64_t nt = t1 - t0, nk = (with_meta ? w->nkv : 0) + nextra;
    int bad = wr(f, &magic, 4) || wr(f, &version, 4) || wr(f, &nt, 8) || wr(f, &nk, 8);
    for (size_t i = 0; !bad && with_meta && i < w->nkv; i++)
        bad = wr_str(f, w->kv[i].key) || wr(f, &w->kv[i].type, 4) || wr(f, w->kv[i].val, w->kv[i].len);
    for (size_t i = 0; !bad && i < nextra; i++)
        bad = wr_str(f, extra[i].key) || wr(f, &extra[i].type, 4) || wr(f, extra[i].val, extra[i].len);
    uint64_t off = 0;
    for (size_t i = t0; !bad && i < t1; i++) {
        const wten_t *t = &w->t[i];
        uint32_t nd = (uint32_t)t->n_dims;
        bad = wr_str(f, t->name) || wr(f, &nd, 4) || wr(f, t->ne, 8 * (size_t)nd) || wr(f, &t->type, 4) ||
              wr(f, &off, 8);
        off += (t->nbytes + align - 1) / align * align;
    }
    long here = ftell(f);
    uint64_t pos = here < 0 ? 0 : (uint64_t)here;
    if (!bad)
        bad = pad(f, &pos, align);
    void *buf = NULL;
    for (size_t i = t0; !bad && i < t1; i++) {
        const wten_t *t = &w->t[i];
        if (t->data) {
            bad = wr(f, t->data, t->nbytes);
        } else {
            free(buf);
            if (!(buf = malloc(t->nbytes ? t->nbytes : 1)) || !t->fill ||
                t->fill(t->ctx, (int)i, buf, t->nbytes) != 0) {
                fclose(f);
                free(buf);
                return inf_fail(err, errlen, "%s: could not make the bytes of tensor '%s'", path, t->name);
            }
            bad = wr(f, buf, t->nbytes);
        }
        pos += t->nbytes;
        if (!bad)
            bad = pad(f, &pos, align);
    }
    free(buf);
    if (fclose(f) != 0)
        bad = 1;
    return bad ? inf_fail(err, errlen, "%s: write failed: %s", path, strerror(errno)) : 0;
}

int gguf_w_write(gguf_w_t *w, const char *path, int parts, char *err, size_t errlen)
{
    if (w->oom)
        return inf_fail(err, errlen, "%s: out of memory while building the file", path);
    if (parts <= 1)
        return write_part(w, path, NULL, 0, 1, 0, w->nt, err, errlen);
    size_t len = strlen(path);
    if (len < 5 || strcmp(path + len - 5, ".gguf") || (size_t)parts > w->nt || parts > 99999)
        return inf_fail(err, errlen, "%s: a split needs a .gguf name and at most one part a tensor", path);
    char *name = malloc(len + 32);
    if (!name)
        return inf_fail(err, errlen, "out of memory");
    int rc = 0;
    for (int k = 0; k < parts && rc == 0; k++) {
        size_t t0 = w->nt * (size_t)k / (size_t)parts, t1 = w->nt * (size_t)(k + 1) / (size_t)parts;
        snprintf(name, len + 32, "%.*s-%05d-of-%05d.gguf", (int)(len - 5), path, k + 1, parts);
        uint16_t no = (uint16_t)k, count = (uint16_t)parts;
        int32_t tc = (int32_t)w->nt;
        uint32_t align = alignment_of(w);
        wkv_t extra[4] = {{.key = "split.no", .type = GGUF_U16, .val = (uint8_t *)&no, .len = 2},
                          {.key = "split.count", .type = GGUF_U16, .val = (uint8_t *)&count, .len = 2},
                          {.key = "split.tensors.count", .type = GGUF_I32, .val = (uint8_t *)&tc, .len = 4},
                          {.key = "general.alignment", .type = GGUF_U32, .val = (uint8_t *)&align, .len = 4}};
        /* the later parts carry no metadata but a custom alignment */
        rc = write_part(w, name, extra, k > 0 && align != 32 ? 4 : 3, k == 0, t0, t1, err, errlen);
    }
    free(name);
    return rc;
}

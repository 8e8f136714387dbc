/*
 * gguf.c — the GGUF reader (gguf.h). One pass over the header with a bounds
 * checked cursor; every allocation is bounded by the file's size (a count
 * is checked against the bytes left, at the smallest size its elements can
 * take, before anything is allocated for it).
 */
#include "inference/gguf.h"
#include "inference/err.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define GGUF_MAGIC 0x46554747u /* "GGUF" little-endian */
#define GGUF_DEFAULT_ALIGNMENT 32
#define MAX_NESTING 4

typedef struct rd {
    const uint8_t *p;
    size_t n, off;
    const char *name;
    char *err;
    size_t errlen;
} rd_t;

/* ---- types ---- */

static const struct {
    uint32_t type;
    const char *name;
    int block;
    size_t bytes;
} ttypes[] = {
    {GGML_F32, "F32", 1, 4},      {GGML_F16, "F16", 1, 2},      {GGML_Q4_0, "Q4_0", 32, 18},
    {GGML_Q4_1, "Q4_1", 32, 20},  {GGML_Q5_0, "Q5_0", 32, 22},  {GGML_Q5_1, "Q5_1", 32, 24},
    {GGML_Q8_0, "Q8_0", 32, 34},  {GGML_Q8_1, "Q8_1", 32, 36},  {GGML_Q2_K, "Q2_K", 256, 84},
    {GGML_Q3_K, "Q3_K", 256, 110}, {GGML_Q4_K, "Q4_K", 256, 144}, {GGML_Q5_K, "Q5_K", 256, 176},
    {GGML_Q6_K, "Q6_K", 256, 210}, {GGML_Q8_K, "Q8_K", 256, 292}, {GGML_BF16, "BF16", 1, 2},
};

int gguf_type_block(uint32_t type, size_t *bytes)
{
    for (size_t i = 0; i < sizeof ttypes / sizeof ttypes[0]; i++)
        if (ttypes[i].type == type) {
            if (bytes)
                *bytes = ttypes[i].bytes;
            return ttypes[i].block;
        }
    return 0;
}

const char *gguf_type_name(uint32_t type)
{
    for (size_t i = 0; i < sizeof ttypes / sizeof ttypes[0]; i++)
        if (ttypes[i].type == type)
            return ttypes[i].name;
    return "unknown";
}

static size_t vsize(uint32_t t)
{
    switch (t) {
    case GGUF_U8:
    case GGUF_I8:
    case GGUF_BOOL:
        return 1;
    case GGUF_U16:
    case GGUF_I16:
        return 2;
    case GGUF_U32:
    case GGUF_I32:
    case GGUF_F32:
        return 4;
    case GGUF_U64:
    case GGUF_I64:
    case GGUF_F64:
        return 8;
    default:
        return 0; /* strings and arrays: not fixed */
    }
}

static const char *vname(uint32_t t)
{
    static const char *n[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"};
    return t < GGUF_NTYPES ? n[t] : "unknown type";
}

/* ---- the cursor ---- */

static int need(rd_t *r, uint64_t k, const char *what)
{
    if (k > r->n - r->off)
        return inf_fail(r->err, r->errlen, "%s: truncated: %s needs %" PRIu64 " bytes at offset %zu, %zu left",
                    r->name, what, k, r->off, r->n - r->off);
    return 0;
}

static int rd_u32(rd_t *r, uint32_t *v, const char *what)
{
    if (need(r, 4, what))
        return -1;
    memcpy(v, r->p + r->off, 4);
    r->off += 4;
    return 0;
}

static int rd_u64(rd_t *r, uint64_t *v, const char *what)
{
    if (need(r, 8, what))
        return -1;
    memcpy(v, r->p + r->off, 8);
    r->off += 8;
    return 0;
}

static int rd_str(rd_t *r, gguf_str_t *s, const char *what)
{
    uint64_t n;
    if (rd_u64(r, &n, what) || need(r, n, what))
        return -1;
    s->p = (const char *)r->p + r->off;
    s->n = n;
    r->off += n;
    return 0;
}

/* Prints a file string for a message: at most 80 bytes, unprintables as ?. */
static const char *shown(gguf_str_t s, char *buf, size_t len)
{
    size_t n = s.n < len - 1 ? (size_t)s.n : len - 1;
    if (n > 80)
        n = 80;
    for (size_t i = 0; i < n; i++)
        buf[i] = s.p[i] >= 32 && s.p[i] < 127 ? s.p[i] : '?';
    buf[n] = 0;
    return buf;
}

int gguf_str_eq(gguf_str_t s, const char *c)
{
    size_t n = strlen(c);
    return s.n == n && memcmp(s.p, c, n) == 0;
}

/* ---- values ---- */

static int skip_value(rd_t *r, uint32_t type, int depth, const char *key);

/* An array's elements (type and count read): checked, and for strings
 * indexed. */
static int read_array(rd_t *r, gguf_kv_t *kv, int depth, const char *key)
{
    uint32_t at;
    uint64_t count;
    if (rd_u32(r, &at, "an array's element type") || rd_u64(r, &count, "an array's length"))
        return -1;
    if (at >= GGUF_NTYPES)
        return inf_fail(r->err, r->errlen, "%s: key '%s': array of unknown value type %u", r->name, key, at);
    size_t es = vsize(at);
    /* the fewest bytes an element can take: a string's or an array's length */
    uint64_t min = es ? es : at == GGUF_STRING ? 8 : 12;
    if (count > (r->n - r->off) / min)
        return inf_fail(r->err, r->errlen, "%s: key '%s': array of %" PRIu64 " %s elements, but only %zu bytes are left",
                    r->name, key, count, vname(at), r->n - r->off);
    if (kv) {
        kv->atype = at;
        kv->count = count;
        kv->data = r->p + r->off;
    }
    if (es) {
        r->off += (size_t)(count * es);
        return 0;
    }
    if (at == GGUF_STRING && kv && depth == 0) {
        kv->strs = malloc((size_t)(count ? count : 1) * sizeof *kv->strs);
        if (!kv->strs)
            return inf_fail(r->err, r->errlen, "%s: key '%s': out of memory for %" PRIu64 " strings", r->name, key, count);
    }
    for (uint64_t i = 0; i < count; i++) {
        if (at == GGUF_STRING) {
            gguf_str_t s;
            if (rd_str(r, &s, "a string of an array"))
                return -1;
            if (kv && kv->strs)
                kv->strs[i] = s;
        } else if (skip_value(r, at, depth + 1, key)) {
            return -1;
        }
    }
    return 0;
}

static int skip_value(rd_t *r, uint32_t type, int depth, const char *key)
{
    if (depth > MAX_NESTING)
        return inf_fail(r->err, r->errlen, "%s: key '%s': arrays nested more than %d deep", r->name, key, MAX_NESTING);
    if (type == GGUF_ARRAY)
        return read_array(r, NULL, depth, key);
    if (type == GGUF_STRING) {
        gguf_str_t s;
        return rd_str(r, &s, "a string value");
    }
    size_t es = vsize(type);
    if (!es)
        return inf_fail(r->err, r->errlen, "%s: key '%s': unknown value type %u", r->name, key, type);
    if (need(r, es, "a value"))
        return -1;
    r->off += es;
    return 0;
}

static int read_kv(rd_t *r, gguf_kv_t *kv)
{
    char kb[96];
    if (rd_str(r, &kv->key, "a metadata key"))
        return -1;
    const char *key = shown(kv->key, kb, sizeof kb);
    if (rd_u32(r, &kv->type, "a metadata value type"))
        return -1;
    if (kv->type >= GGUF_NTYPES)
        return inf_fail(r->err, r->errlen, "%s: key '%s': unknown value type %u", r->name, key, kv->type);
    if (kv->type == GGUF_ARRAY)
        return read_array(r, kv, 0, key);
    if (kv->type == GGUF_STRING)
        return rd_str(r, &kv->str, "a string value");
    size_t es = vsize(kv->type);
    if (need(r, es, "a value"))
        return -1;
    const uint8_t *b = r->p + r->off;
    r->off += es;
    switch (kv->type) {
    case GGUF_U8:
    case GGUF_BOOL:
        kv->v.u = b[0];
        break;
    case GGUF_I8:
        kv->v.i = (int8_t)b[0];
        break;
    case GGUF_U16: {
        uint16_t x;
        memcpy(&x, b, 2);
        kv->v.u = x;
        break;
    }
    case GGUF_I16: {
        int16_t x;
        memcpy(&x, b, 2);
        kv->v.i = x;
        break;
    }
    case GGUF_U32: {
        uint32_t x;
        memcpy(&x, b, 4);
        kv->v.u = x;
        break;
    }
    case GGUF_I32: {
        int32_t x;
        memcpy(&x, b, 4);
        kv->v.i = x;
        break;
    }
    case GGUF_F32: {
        float x;
        memcpy(&x, b, 4);
        kv->v.f = x;
        break;
    }
    case GGUF_U64:
        memcpy(&kv->v.u, b, 8);
        break;
    case GGUF_I64:
        memcpy(&kv->v.i, b, 8);
        break;
    case GGUF_F64:
        memcpy(&kv->v.f, b, 8);
        break;
    }
    return 0;
}

static int is_unsigned(uint32_t t)
{
    return t == GGUF_U8 || t == GGUF_U16 || t == GGUF_U32 || t == GGUF_U64 || t == GGUF_BOOL;
}

static int is_signed(uint32_t t)
{
    return t == GGUF_I8 || t == GGUF_I16 || t == GGUF_I32 || t == GGUF_I64;
}

/* ---- one file ---- */

static void free_kvs(gguf_kv_t *kv, size_t n)
{
    if (!kv)
        return;
    for (size_t i = 0; i < n; i++)
        free(kv[i].strs);
    free(kv);
}

typedef struct parsed {
    uint32_t version, alignment;
    size_t n_kv, n_tensors;
    gguf_kv_t *kv;
    gguf_tensor_t *t;
} parsed_t;

static int cmp_offset(const void *a, const void *b)
{
    const gguf_tensor_t *x = *(const gguf_tensor_t *const *)a, *y = *(const gguf_tensor_t *const *)b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int parse_one(const uint8_t *p, size_t n, const char *name, int part, parsed_t *out, char *err,
                     size_t errlen)
{
    rd_t r = {.p = p, .n = n, .name = name, .err = err, .errlen = errlen};
    memset(out, 0, sizeof *out);
    uint32_t magic;
    if (n < 4 || (memcpy(&magic, p, 4), magic != GGUF_MAGIC))
        return inf_fail(err, errlen, "%s: not a GGUF file (the first 4 bytes are not \"GGUF\")", name);
    r.off = 4;
    if (rd_u32(&r, &out->version, "the version"))
        return -1;
    if (out->version != 2 && out->version != 3)
        return inf_fail(err, errlen, "%s: GGUF version %u is not supported (2 and 3 are)", name, out->version);
    uint64_t nt, nk;
    if (rd_u64(&r, &nt, "the tensor count") || rd_u64(&r, &nk, "the metadata count"))
        return -1;
    /* a key takes at least 8 + 4 + 1 bytes, a tensor info 8 + 4 + 8 + 4 + 8 */
    if (nk > (n - r.off) / 13)
        return inf_fail(err, errlen, "%s: %" PRIu64 " metadata entries cannot fit in %zu bytes", name, nk, n);
    if (nt > (n - r.off) / 32)
        return inf_fail(err, errlen, "%s: %" PRIu64 " tensors cannot fit in %zu bytes", name, nt, n);
    out->kv = calloc((size_t)(nk ? nk : 1), sizeof *out->kv);
    out->t = calloc((size_t)(nt ? nt : 1), sizeof *out->t);
    if (!out->kv || !out->t)
        return inf_fail(err, errlen, "%s: out of memory for %" PRIu64 " keys and %" PRIu64 " tensors", name, nk, nt);
    out->alignment = GGUF_DEFAULT_ALIGNMENT;
    for (uint64_t i = 0; i < nk; i++) {
        out->n_kv = (size_t)i + 1; /* counted before: a half-read key's strings are freed too */
        if (read_kv(&r, &out->kv[i]))
            return -1;
        for (uint64_t j = 0; j < i; j++)
            if (out->kv[j].key.n == out->kv[i].key.n && !memcmp(out->kv[j].key.p, out->kv[i].key.p, out->kv[i].key.n)) {
                char kb[96];
                return inf_fail(err, errlen, "%s: key '%s' appears twice", name, shown(out->kv[i].key, kb, sizeof kb));
            }
        if (gguf_str_eq(out->kv[i].key, "general.alignment")) {
            const gguf_kv_t *kv = &out->kv[i];
            if (!is_unsigned(kv->type) || kv->type == GGUF_BOOL || kv->v.u == 0 || kv->v.u > (1u << 30) ||
                (kv->v.u & (kv->v.u - 1)))
                return inf_fail(err, errlen, "%s: key 'general.alignment' must be a power of two (an unsigned integer), got %s",
                            name, is_unsigned(kv->type) ? "another number" : vname(kv->type));
            out->alignment = (uint32_t)kv->v.u;
        }
    }
    for (uint64_t i = 0; i < nt; i++) {
        gguf_tensor_t *t = &out->t[i];
        char tb[96];
        if (rd_str(&r, &t->name, "a tensor name"))
            return -1;
        const char *tn = shown(t->name, tb, sizeof tb);
        if (rd_u32(&r, &t->n_dims, "a tensor's dimension count"))
            return -1;
        if (t->n_dims < 1 || t->n_dims > GGUF_MAX_DIMS)
            return inf_fail(err, errlen, "%s: tensor '%s' has %u dimensions (1 to %d allowed)", name, tn, t->n_dims,
                        GGUF_MAX_DIMS);
        uint64_t elems = 1;
        for (int d = 0; d < GGUF_MAX_DIMS; d++) {
            t->ne[d] = 1;
            if ((uint32_t)d < t->n_dims) {
                if (rd_u64(&r, &t->ne[d], "a tensor dimension"))
                    return -1;
                if (t->ne[d] == 0 || t->ne[d] > ((uint64_t)1 << 40))
                    return inf_fail(err, errlen, "%s: tensor '%s': dimension %d is %" PRIu64, name, tn, d, t->ne[d]);
                if (__builtin_mul_overflow(elems, t->ne[d], &elems) || elems > ((uint64_t)1 << 50))
                    return inf_fail(err, errlen, "%s: tensor '%s': its element count overflows", name, tn);
            }
        }
        uint64_t off;
        if (rd_u32(&r, &t->type, "a tensor type") || rd_u64(&r, &off, "a tensor offset"))
            return -1;
        size_t bb = 0;
        int blk = gguf_type_block(t->type, &bb);
        if (!blk)
            return inf_fail(err, errlen, "%s: tensor '%s' has unknown type %u", name, tn, t->type);
        if (t->ne[0] % (uint64_t)blk)
            return inf_fail(err, errlen, "%s: tensor '%s': its first dimension (%" PRIu64 ") is not a multiple of %s's block of %d",
                        name, tn, t->ne[0], gguf_type_name(t->type), blk);
        t->nbytes = elems / (uint64_t)blk * bb;
        t->offset = off; /* relative to the data section until it is known */
        t->part = part;
        for (uint64_t j = 0; j < i; j++)
            if (out->t[j].name.n == t->name.n && !memcmp(out->t[j].name.p, t->name.p, t->name.n))
                return inf_fail(err, errlen, "%s: tensor '%s' appears twice", name, tn);
        out->n_tensors = (size_t)i + 1;
    }
    /* the data section: after the infos, aligned */
    uint64_t data = ((uint64_t)r.off + out->alignment - 1) / out->alignment * out->alignment;
    if (nt && data > n)
        return inf_fail(err, errlen, "%s: truncated: the tensor data would start at byte %" PRIu64 " of %zu", name, data, n);
    gguf_tensor_t **order = malloc((size_t)(nt ? nt : 1) * sizeof *order);
    if (!order)
        return inf_fail(err, errlen, "%s: out of memory", name);
    int rc = 0;
    for (size_t i = 0; i < (size_t)nt && rc == 0; i++) {
        gguf_tensor_t *t = &out->t[i];
        char tb[96];
        if (t->offset % out->alignment)
            rc = inf_fail(err, errlen, "%s: tensor '%s': offset %" PRIu64 " is not a multiple of the alignment %u", name,
                      shown(t->name, tb, sizeof tb), t->offset, out->alignment);
        else if (t->offset > n - data || t->nbytes > n - data - t->offset)
            rc = inf_fail(err, errlen, "%s: tensor '%s': %" PRIu64 " bytes at offset %" PRIu64 " run past the end of the file (%zu bytes of data)",
                      name, shown(t->name, tb, sizeof tb), t->nbytes, t->offset, (size_t)(n - data));
        t->offset += data;
        t->data = p + t->offset;
        order[i] = t;
    }
    if (rc == 0 && nt > 1) {
        qsort(order, (size_t)nt, sizeof *order, cmp_offset);
        for (size_t i = 1; i < (size_t)nt; i++)
            if (order[i - 1]->offset + order[i - 1]->nbytes > order[i]->offset) {
                char a[96], b[96];
                rc = inf_fail(err, errlen, "%s: tensors '%s' and '%s' overlap", name, shown(order[i - 1]->name, a, sizeof a),
                          shown(order[i]->name, b, sizeof b));
                break;
            }
    }
    free(order);
    return rc;
}

/* ---- the model: one file or the parts of a split ---- */

void gguf_close(gguf_t *g)
{
    if (!g)
        return;
    free_kvs(g->kv, g->n_kv);
    free(g->tensors);
    for (int i = 0; i < g->n_parts; i++) {
        gguf_part_t *pt = &g->parts[i];
        if (pt->region.base)
            inf_region_free(&pt->region);
        else if (pt->mapped && pt->map)
            munmap((void *)pt->map, pt->size);
        if (pt->fd >= 0)
            close(pt->fd);
        free(pt->path);
    }
    free(g->parts);
    free(g);
}

void gguf_release(const gguf_t *g, const void *p, size_t len)
{
    for (int i = 0; g && i < g->n_parts; i++) {
        const gguf_part_t *pt = &g->parts[i];
        if (pt->region.base || !pt->mapped || (const uint8_t *)p < pt->map || (const uint8_t *)p >= pt->map + pt->size)
            continue;
        const size_t off = (size_t)((const uint8_t *)p - pt->map);
        inf_mem_release(p, len < pt->size - off ? len : pt->size - off);
    }
}

/* A file read into memory is placed so that its tensor data starts on a
 * page: rows of F32 weights then start on cache lines, as AVX-512 loads
 * want (a GGUF's data section is aligned to 32 bytes only; at 32 past a
 * line one core streamed F32 rows at 21 GB/s instead of 25-34). */
enum { DATA_ALIGN = 4096 };

/* The whole file into anonymous memory, checked to be the size fstat gave. */
static int read_file(const char *path, gguf_part_t *pt, char *err, size_t errlen)
{
    if (inf_region_alloc(&pt->region, pt->size + DATA_ALIGN))
        return inf_fail(err, errlen, "%s: cannot allocate %zu bytes to read the model into (--no-mmap): %s", path,
                    pt->size, strerror(errno));
    uint8_t *d = pt->region.p;
    size_t done = 0;
    while (done < pt->size) {
        size_t want = pt->size - done;
        ssize_t n = pread(pt->fd, d + done, want < (1u << 30) ? want : (1u << 30), (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return inf_fail(err, errlen, "%s: read failed at byte %zu: %s", path, done, strerror(errno));
        if (n == 0)
            return inf_fail(err, errlen, "%s: the file ended at byte %zu of %zu while being read (changed under us?)", path,
                        done, pt->size);
        done += (size_t)n;
    }
    pt->map = d;
    pt->mapped = 1;
    return 0;
}

static int map_file(const char *path, unsigned flags, gguf_part_t *pt, char *err, size_t errlen)
{
    pt->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (pt->fd < 0)
        return inf_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(pt->fd, &st) != 0)
        return inf_fail(err, errlen, "%s: cannot stat: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return inf_fail(err, errlen, "%s: not a regular file", path);
    if (st.st_size < 24)
        return inf_fail(err, errlen, "%s: %lld bytes: too short for a GGUF header", path, (long long)st.st_size);
    pt->size = (size_t)st.st_size;
    if (flags & GGUF_OPEN_NO_MMAP)
        return read_file(path, pt, err, errlen);
    void *m = mmap(NULL, pt->size, PROT_READ, MAP_PRIVATE, pt->fd, 0);
    if (m == MAP_FAILED)
        return inf_fail(err, errlen, "%s: cannot map %zu bytes: %s", path, pt->size, strerror(errno));
    pt->map = m;
    pt->mapped = 1;
    return 0;
}

/* "x-00001-of-00003.gguf": the part's number and the count (0 when not). */
static int split_name(const char *path, int *no, int *count, size_t *stem)
{
    size_t n = strlen(path);
    const char *suffix = "-00000-of-00000.gguf";
    size_t sl = strlen(suffix);
    if (n < sl)
        return 0;
    const char *s = path + n - sl;
    for (size_t i = 0; i < sl; i++) {
        if (suffix[i] == '0' ? (s[i] < '0' || s[i] > '9') : s[i] != suffix[i])
            return 0;
    }
    *no = atoi(s + 1);
    *count = atoi(s + 10);
    *stem = n - sl;
    return *no >= 1 && *count >= 1 && *no <= *count;
}

static int merge(gguf_t *g, parsed_t *ps, int nparts, char *err, size_t errlen)
{
    size_t total = 0;
    for (int i = 0; i < nparts; i++)
        total += ps[i].n_tensors;
    g->tensors = calloc(total ? total : 1, sizeof *g->tensors);
    if (!g->tensors)
        return inf_fail(err, errlen, "out of memory for %zu tensors", total);
    for (int i = 0; i < nparts; i++) {
        for (size_t j = 0; j < ps[i].n_tensors; j++) {
            const gguf_tensor_t *t = &ps[i].t[j];
            if (i > 0) {
                for (size_t k = 0; k < g->n_tensors; k++)
                    if (g->tensors[k].name.n == t->name.n && !memcmp(g->tensors[k].name.p, t->name.p, t->name.n)) {
                        char tb[96];
                        return inf_fail(err, errlen, "%s: tensor '%s' is also in %s", g->parts[i].path,
                                    shown(t->name, tb, sizeof tb), g->parts[g->tensors[k].part].path);
                    }
            }
            g->tensors[g->n_tensors++] = *t;
        }
    }
    g->version = ps[0].version;
    g->alignment = ps[0].alignment;
    g->kv = ps[0].kv;
    g->n_kv = ps[0].n_kv;
    ps[0].kv = NULL;
    return 0;
}

/* Moves a file read into memory so that its first tensor starts on a page,
 * and parses it again there (every string and tensor points into it). */
static int place_data(gguf_part_t *pt, parsed_t *ps, int part, char *err, size_t errlen)
{
    if (!ps->n_tensors)
        return 0;
    uint64_t first = ps->t[0].offset;
    for (size_t i = 1; i < ps->n_tensors; i++)
        first = ps->t[i].offset < first ? ps->t[i].offset : first;
    const size_t shift = (size_t)(-(uintptr_t)(pt->map + first) & (DATA_ALIGN - 1));
    if (!shift)
        return 0;
    uint8_t *to = (uint8_t *)pt->map + shift;
    memmove(to, pt->map, pt->size);
    pt->map = to;
    free_kvs(ps->kv, ps->n_kv);
    free(ps->t);
    *ps = (parsed_t){0};
    return parse_one(pt->map, pt->size, pt->path, part, ps, err, errlen);
}

static void free_parsed(parsed_t *ps, int n)
{
    for (int i = 0; i < n; i++) {
        free_kvs(ps[i].kv, ps[i].n_kv);
        free(ps[i].t);
    }
    free(ps);
}

/* The split's own keys: which part this is, how many there are. */
static int check_split_keys(const gguf_t *one, const parsed_t *p, const char *path, int no, int count, char *err,
                            size_t errlen)
{
    gguf_t view = {.n_kv = p->n_kv, .kv = p->kv};
    uint32_t v = 0;
    int r = gguf_get_u32(&view, "split.count", &v, err, errlen);
    if (r < 0)
        return -1;
    if (r == 1 && (int)v != count)
        return inf_fail(err, errlen, "%s: split.count says %u parts, the file name %d", path, v, count);
    r = gguf_get_u32(&view, "split.no", &v, err, errlen);
    if (r < 0)
        return -1;
    if (r == 1 && (int)v != no - 1)
        return inf_fail(err, errlen, "%s: split.no says part %u (from 0), the file name part %d", path, v, no);
    (void)one;
    return 0;
}

int gguf_parse_mem(const void *buf, size_t len, const char *name, gguf_t **out, char *err, size_t errlen)
{
    *out = NULL;
    gguf_t *g = calloc(1, sizeof *g);
    parsed_t *ps = calloc(1, sizeof *ps);
    if (!g || !ps || !(g->parts = calloc(1, sizeof *g->parts))) {
        free(ps);
        gguf_close(g);
        return inf_fail(err, errlen, "%s: out of memory", name);
    }
    g->n_parts = 1;
    g->parts[0] = (gguf_part_t){.path = strdup(name ? name : "(memory)"), .fd = -1, .map = buf, .size = len};
    int rc = parse_one(buf, len, name ? name : "(memory)", 0, ps, err, errlen);
    if (rc == 0)
        rc = merge(g, ps, 1, err, errlen);
    free_parsed(ps, 1);
    if (rc) {
        gguf_close(g);
        return -1;
    }
    *out = g;
    return 0;
}

int gguf_open(const char *path, gguf_t **out, char *err, size_t errlen)
{
    return gguf_open_with(path, 0, out, err, errlen);
}

int gguf_open_with(const char *path, unsigned flags, gguf_t **out, char *err, size_t errlen)
{
    *out = NULL;
    int no = 1, count = 1;
    size_t stem = 0;
    int split = split_name(path, &no, &count, &stem);
    if (split && no != 1)
        return inf_fail(err, errlen, "%s: is part %d of %d of a split model: open the first part (-00001-of-%05d.gguf)",
                    path, no, count, count);
    if (!split)
        count = 1;
    if (count > 9999)
        return inf_fail(err, errlen, "%s: %d parts", path, count);
    gguf_t *g = calloc(1, sizeof *g);
    parsed_t *ps = calloc((size_t)count, sizeof *ps);
    if (!g || !ps || !(g->parts = calloc((size_t)count, sizeof *g->parts))) {
        free(ps);
        gguf_close(g);
        return inf_fail(err, errlen, "%s: out of memory", path);
    }
    int rc = 0;
    for (int i = 0; i < count && rc == 0; i++) {
        gguf_part_t *pt = &g->parts[i];
        pt->fd = -1;
        g->n_parts = i + 1;
        size_t len = strlen(path) + 1;
        if (!(pt->path = malloc(len))) {
            rc = inf_fail(err, errlen, "%s: out of memory", path);
            break;
        }
        if (count == 1)
            memcpy(pt->path, path, len);
        else
            snprintf(pt->path, len, "%.*s-%05d-of-%05d.gguf", (int)stem, path, i + 1, count);
        if ((rc = map_file(pt->path, flags, pt, err, errlen)))
            break;
        if ((rc = parse_one(pt->map, pt->size, pt->path, i, &ps[i], err, errlen)))
            break;
        if (pt->region.base && (rc = place_data(pt, &ps[i], i, err, errlen)))
            break;
        if (split)
            rc = check_split_keys(g, &ps[i], pt->path, i + 1, count, err, errlen);
    }
    if (rc == 0)
        rc = merge(g, ps, count, err, errlen);
    free_parsed(ps, g->n_parts < count ? g->n_parts : count);
    if (rc) {
        gguf_close(g);
        return -1;
    }
    *out = g;
    return 0;
}

/* ---- lookups ---- */

const gguf_kv_t *gguf_find(const gguf_t *g, const char *key)
{
    for (size_t i = 0; i < g->n_kv; i++)
        if (gguf_str_eq(g->kv[i].key, key))
            return &g->kv[i];
    return NULL;
}

const gguf_tensor_t *gguf_tensor(const gguf_t *g, const char *name)
{
    for (size_t i = 0; i < g->n_tensors; i++)
        if (gguf_str_eq(g->tensors[i].name, name))
            return &g->tensors[i];
    return NULL;
}

static int wrong(const gguf_kv_t *kv, const char *key, const char *want, char *err, size_t errlen)
{
    return inf_fail(err, errlen, "key '%s': expected %s, found %s", key, want,
                kv->type == GGUF_ARRAY ? "an array" : vname(kv->type));
}

int gguf_get_u64(const gguf_t *g, const char *key, uint64_t *out, char *err, size_t errlen)
{
    const gguf_kv_t *kv = gguf_find(g, key);
    if (!kv)
        return 0;
    if (is_unsigned(kv->type) && kv->type != GGUF_BOOL)
        *out = kv->v.u;
    else if (is_signed(kv->type) && kv->v.i >= 0)
        *out = (uint64_t)kv->v.i;
    else
        return is_signed(kv->type) ? inf_fail(err, errlen, "key '%s': expected an unsigned integer, found %" PRId64, key, kv->v.i)
                                   : wrong(kv, key, "an unsigned integer", err, errlen);
    return 1;
}

int gguf_get_u32(const gguf_t *g, const char *key, uint32_t *out, char *err, size_t errlen)
{
    uint64_t v;
    int r = gguf_get_u64(g, key, &v, err, errlen);
    if (r != 1)
        return r;
    if (v > UINT32_MAX)
        return inf_fail(err, errlen, "key '%s': %" PRIu64 " is too large", key, v);
    *out = (uint32_t)v;
    return 1;
}

int gguf_get_f32(const gguf_t *g, const char *key, float *out, char *err, size_t errlen)
{
    const gguf_kv_t *kv = gguf_find(g, key);
    if (!kv)
        return 0;
    if (kv->type == GGUF_F32 || kv->type == GGUF_F64)
        *out = (float)kv->v.f;
    else if (is_unsigned(kv->type) && kv->type != GGUF_BOOL)
        *out = (float)kv->v.u;
    else if (is_signed(kv->type))
        *out = (float)kv->v.i;
    else
        return wrong(kv, key, "a number", err, errlen);
    return 1;
}

int gguf_get_bool(const gguf_t *g, const char *key, int *out, char *err, size_t errlen)
{
    const gguf_kv_t *kv = gguf_find(g, key);
    if (!kv)
        return 0;
    if (kv->type != GGUF_BOOL)
        return wrong(kv, key, "a bool", err, errlen);
    *out = kv->v.u != 0;
    return 1;
}

int gguf_get_str(const gguf_t *g, const char *key, gguf_str_t *out, char *err, size_t errlen)
{
    const gguf_kv_t *kv = gguf_find(g, key);
    if (!kv)
        return 0;
    if (kv->type != GGUF_STRING)
        return wrong(kv, key, "a string", err, errlen);
    *out = kv->str;
    return 1;
}

int gguf_get_arr(const gguf_t *g, const char *key, uint32_t atype, const gguf_kv_t **out, char *err, size_t errlen)
{
    const gguf_kv_t *kv = gguf_find(g, key);
    if (!kv)
        return 0;
    if (kv->type != GGUF_ARRAY)
        return wrong(kv, key, "an array", err, errlen);
    int ok = kv->atype == atype ||
             (atype == GGUF_F32 && (kv->atype == GGUF_F64 || vsize(kv->atype))) ||
             (is_signed(atype) && (is_signed(kv->atype) || is_unsigned(kv->atype)));
    if (!ok || (atype == GGUF_STRING && !kv->strs))
        return inf_fail(err, errlen, "key '%s': expected an array of %s, found an array of %s", key, vname(atype),
                    vname(kv->atype));
    *out = kv;
    return 1;
}

double gguf_arr_f64(const gguf_kv_t *kv, uint64_t i)
{
    const uint8_t *b = kv->data + i * vsize(kv->atype);
    switch (kv->atype) {
    case GGUF_F32: {
        float f;
        memcpy(&f, b, 4);
        return f;
    }
    case GGUF_F64: {
        double f;
        memcpy(&f, b, 8);
        return f;
    }
    default:
        return (double)gguf_arr_i64(kv, i);
    }
}

int64_t gguf_arr_i64(const gguf_kv_t *kv, uint64_t i)
{
    const uint8_t *b = kv->data + i * vsize(kv->atype);
    switch (kv->atype) {
    case GGUF_U8:
    case GGUF_BOOL:
        return b[0];
    case GGUF_I8:
        return (int8_t)b[0];
    case GGUF_U16: {
        uint16_t x;
        memcpy(&x, b, 2);
        return x;
    }
    case GGUF_I16: {
        int16_t x;
        memcpy(&x, b, 2);
        return x;
    }
    case GGUF_U32: {
        uint32_t x;
        memcpy(&x, b, 4);
        return x;
    }
    case GGUF_I32: {
        int32_t x;
        memcpy(&x, b, 4);
        return x;
    }
    case GGUF_U64:
    case GGUF_I64: {
        int64_t x;
        memcpy(&x, b, 8);
        return x;
    }
    case GGUF_F32:
    case GGUF_F64:
        return (int64_t)gguf_arr_f64(kv, i);
    default:
        return 0;
    }
}

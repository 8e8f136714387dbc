/*
 * share_model.c — the model file across bolt-llm's ranks (share_model.h).
 * Rank 0 serves byte ranges of its file: a rank sends it a list of
 * (offset, length) and receives their bytes in order, in chunks of CHUNK,
 * each with its length and a CRC-32 (zlib) of its bytes; the rank writes
 * them at their offsets into a sparse file of the model's size, which it
 * then maps as if it were the model (the bytes it never reads stay holes).
 */
#include "inference/share_model.h"
#include "inference/err.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum { TAG_LIST = 0x5a1, TAG_DATA = 0x5a2, CHUNK = 4 << 20 };

typedef struct range {
    uint64_t off, len;
} range_t;

typedef struct chunk_hdr {
    uint64_t len;
    uint32_t crc;
    int32_t status; /* 0, or rank 0's errno reading its file */
} chunk_hdr_t;


static uint32_t crc_of(const void *p, size_t n)
{
    uLong c = crc32(0L, Z_NULL, 0);
    while (n) {
        const uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        c = crc32(c, p, k);
        p = (const uint8_t *)p + k;
        n -= k;
    }
    return (uint32_t)c;
}

/* n bytes at off of fd into buf (or from it, `out`); 0 or an errno (EIO
 * for a short file). */
static int io_at(int fd, void *buf, size_t n, uint64_t off, int out)
{
    for (size_t done = 0; done < n;) {
        const ssize_t k = out ? pwrite(fd, (const uint8_t *)buf + done, n - done, (off_t)(off + done))
                              : pread(fd, (uint8_t *)buf + done, n - done, (off_t)(off + done));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? errno : EIO;
        done += (size_t)k;
    }
    return 0;
}

/* Rank 0: the ranges rank `to` asks for, from the file at path. */
static int serve(const char *path, uint64_t size, int to, bolt_comm_t world, char *err, size_t errlen)
{
    uint64_t n = 0;
    range_t *r = NULL;
    uint8_t *buf = NULL;
    int fd = -1, rc = -1;
    if (bolt_recv(&n, sizeof n, to, TAG_LIST, world, NULL) != BOLT_OK)
        return inf_fail(err, errlen, "sending rank %d its part of %s: %s", to, path, bolt_error_message());
    if (n > size) /* ranges of a byte at least, apart: no more than the file's bytes */
        return inf_fail(err, errlen, "sending rank %d its part of %s: it asks for %llu ranges of a %llu-byte file", to, path,
                    (unsigned long long)n, (unsigned long long)size);
    if (!(r = malloc((n ? n : 1) * sizeof *r)) ||
        bolt_recv(r, n * sizeof *r, to, TAG_LIST, world, NULL) != BOLT_OK) {
        inf_fail(err, errlen, "sending rank %d its part of %s: %s", to, path, r ? bolt_error_message() : "out of memory");
        goto out;
    }
    if (!(buf = malloc(sizeof(chunk_hdr_t) + CHUNK)) || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        inf_fail(err, errlen, "sending rank %d its part of %s: %s", to, path, buf ? strerror(errno) : "out of memory");
        goto out;
    }
    chunk_hdr_t h = {0};
    for (uint64_t i = 0, at = 0; i < n;) {
        /* a chunk: the next CHUNK bytes of the ranges, in order */
        const uint64_t end = r[i].off + r[i].len;
        if (r[i].off > size || end > size || end < r[i].off) {
            h.status = ERANGE;
        } else {
            const size_t k = (size_t)(r[i].len - at < CHUNK - h.len ? r[i].len - at : CHUNK - h.len);
            h.status = io_at(fd, buf + sizeof h + h.len, k, r[i].off + at, 0);
            h.len += k;
            at += k;
            if (at == r[i].len) {
                i++;
                at = 0;
            }
        }
        if (h.len == CHUNK || i == n || h.status) {
            h.crc = crc_of(buf + sizeof h, (size_t)h.len);
            memcpy(buf, &h, sizeof h);
            if (bolt_send(buf, sizeof h + (size_t)h.len, to, TAG_DATA, world) != BOLT_OK) {
                inf_fail(err, errlen, "sending rank %d its part of %s: %s", to, path, bolt_error_message());
                goto out;
            }
            if (h.status) {
                inf_fail(err, errlen, "sending rank %d its part of %s: %s", to, path, strerror(h.status));
                goto out;
            }
            h = (chunk_hdr_t){0};
        }
    }
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    free(buf);
    free(r);
    return rc;
}

/* A rank without the file: the ranges r[0 .. n) from rank 0 into its copy,
 * `what` for the progress lines. */
static int fetch(share_t *s, const char *model, const range_t *r, uint64_t n, const char *what, bolt_comm_t world,
                 char *err, size_t errlen)
{
    int rank = 0, fd = -1, rc = -1;
    bolt_comm_rank(world, &rank);
    uint8_t *buf = malloc(sizeof(chunk_hdr_t) + CHUNK);
    uint64_t total = 0, got = 0;
    for (uint64_t i = 0; i < n; i++)
        total += r[i].len;
    if (!buf || (fd = open(s->path, O_WRONLY | O_CLOEXEC)) < 0) {
        inf_fail(err, errlen, "%s: %s", s->path, buf ? strerror(errno) : "out of memory");
        goto out;
    }
    if (bolt_send(&n, sizeof n, 0, TAG_LIST, world) != BOLT_OK || bolt_send(r, n * sizeof *r, 0, TAG_LIST, world) != BOLT_OK) {
        inf_fail(err, errlen, "asking rank 0 for %s: %s", model, bolt_error_message());
        goto out;
    }
    const double t0 = bolt_wtime();
    if (total > ((uint64_t)1 << 20))
        fprintf(stderr, "bolt-llm: rank %d on %s: receiving %s of %s from rank 0: %.1f MiB\n", rank, bolt_hostname(), what,
                model, (double)total / 1048576.0);
    int shown = 0;
    for (uint64_t i = 0, at = 0; got < total;) {
        bolt_status_t st;
        chunk_hdr_t h;
        if (bolt_recv(buf, sizeof h + CHUNK, 0, TAG_DATA, world, &st) != BOLT_OK) {
            inf_fail(err, errlen, "receiving %s from rank 0: %s", model, bolt_error_message());
            goto out;
        }
        memcpy(&h, buf, sizeof h);
        if (st.bytes < sizeof h || h.len != st.bytes - sizeof h || h.len > total - got) {
            inf_fail(err, errlen, "receiving %s from rank 0: a chunk of %zu bytes that says %llu", model, st.bytes,
                 (unsigned long long)h.len);
            goto out;
        }
        if (h.status) {
            inf_fail(err, errlen, "receiving %s: rank 0 could not read it: %s", model, strerror(h.status));
            goto out;
        }
        if (crc_of(buf + sizeof h, (size_t)h.len) != h.crc) {
            inf_fail(err, errlen, "receiving %s from rank 0: the chunk at byte %llu of %llu came with another CRC-32 than "
                 "it was sent with (a corrupted transfer)", model, (unsigned long long)got, (unsigned long long)total);
            goto out;
        }
        /* its bytes into the ranges they belong to */
        for (uint64_t used = 0; used < h.len;) {
            const uint64_t k = r[i].len - at < h.len - used ? r[i].len - at : h.len - used;
            const int e = io_at(fd, buf + sizeof h + used, (size_t)k, r[i].off + at, 1);
            if (e) {
                inf_fail(err, errlen, "%s (the copy of %s): %s", s->path, model, strerror(e));
                goto out;
            }
            used += k;
            at += k;
            if (at == r[i].len) {
                i++;
                at = 0;
            }
        }
        got += h.len;
        /* progress: a line a quarter of a large transfer */
        if (total > ((uint64_t)64 << 20) && got * 4 / total > (uint64_t)shown && got < total) {
            shown = (int)(got * 4 / total);
            fprintf(stderr, "bolt-llm: rank %d: %.1f of %.1f MiB (%d%%)\n", rank, (double)got / 1048576.0,
                    (double)total / 1048576.0, (int)(100 * got / total));
        }
    }
    if (total > ((uint64_t)1 << 20)) {
        const double dt = bolt_wtime() - t0;
        fprintf(stderr, "bolt-llm: rank %d: received %.1f MiB in %.2f s (%.0f MB/s), every chunk's CRC-32 checked\n", rank,
                (double)total / 1048576.0, dt, dt > 0 ? (double)total / dt / 1e6 : 0.0);
    }
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    free(buf);
    return rc;
}

int share_check(const char *path, int share, bolt_comm_t world, share_t *s, char *err, size_t errlen)
{
    int rank = 0, size = 1;
    bolt_comm_rank(world, &rank);
    bolt_comm_size(world, &size);
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    snprintf(s->model, sizeof s->model, "%s", path);
    struct {
        uint64_t size, meta;
        uint32_t crc;
        int32_t ok;
    } ref = {0};
    char why[1024] = "";
    if (rank == 0) {
        gguf_t *g = NULL;
        if (gguf_open(path, &g, why, sizeof why) == 0) {
            if (g->n_parts > 1 && share)
                snprintf(why, sizeof why, "%s: --share-model takes a model in one file, not %d parts", path, g->n_parts);
            else {
                ref.size = g->parts[0].size;
                ref.meta = ref.size;
                for (size_t i = 0; i < g->n_tensors; i++)
                    if (g->tensors[i].part == 0 && g->tensors[i].offset < ref.meta)
                        ref.meta = g->tensors[i].offset;
                ref.crc = crc_of(g->parts[0].map, (size_t)ref.meta);
                ref.ok = 1;
            }
            gguf_close(g);
        }
    }
    if (bolt_bcast(&ref, sizeof ref, BOLT_BYTE, 0, world) != BOLT_OK)
        return inf_fail(err, errlen, "rank %d: %s", rank, bolt_error_message());
    if (!ref.ok)
        return rank == 0 ? inf_fail(err, errlen, "%s", why) : inf_fail(err, errlen, "rank 0 cannot read the model (its message says why)");
    s->size = ref.size;
    s->meta = ref.meta;
    /* this rank's file: 0 rank 0's, 1 none (or another) and a copy to fill, 2 none and no copy */
    int32_t code = 0;
    if (rank != 0) {
        struct stat st;
        const int fd = open(path, O_RDONLY | O_CLOEXEC);
        uint8_t *meta = NULL;
        if (fd < 0) {
            snprintf(why, sizeof why, "%s: %s", path, strerror(errno));
            code = 2;
        } else if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != ref.size) {
            snprintf(why, sizeof why, "%s: %llu bytes, where rank 0's is %llu", path, (unsigned long long)st.st_size,
                     (unsigned long long)ref.size);
            code = 2;
        } else if (!(meta = malloc(ref.meta ? (size_t)ref.meta : 1)) || io_at(fd, meta, (size_t)ref.meta, 0, 0) ||
                   crc_of(meta, (size_t)ref.meta) != ref.crc) {
            snprintf(why, sizeof why, "%s: its first %llu bytes (the metadata) are not rank 0's", path,
                     (unsigned long long)ref.meta);
            code = 2;
        }
        free(meta);
        if (fd >= 0)
            close(fd);
    }
    if (code && share) {
        const char *dir = getenv("TMPDIR");
        snprintf(s->path, sizeof s->path, "%s/bolt-llm-share-XXXXXX", dir && *dir ? dir : "/tmp");
        const int fd = mkstemp(s->path);
        if (fd < 0 || ftruncate(fd, (off_t)ref.size) != 0) {
            snprintf(why, sizeof why, "cannot make a copy of %.400s at %.400s: %s", path, s->path, strerror(errno));
            if (fd >= 0)
                unlink(s->path);
        } else {
            code = 1;
            s->fetch = 1;
        }
        if (fd >= 0)
            close(fd);
    }
    int32_t *codes = malloc((size_t)size * sizeof *codes);
    if (!codes || bolt_allgather(&code, codes, 1, BOLT_INT32, world) != BOLT_OK) {
        free(codes);
        if (s->fetch)
            unlink(s->path);
        return inf_fail(err, errlen, "rank %d: %s", rank, codes ? bolt_error_message() : "out of memory");
    }
    int bad = -1, nbad = 0;
    for (int r = 0; r < size; r++) {
        s->any |= codes[r] == 1;
        if (codes[r] == 2 && nbad++ == 0)
            bad = r;
    }
    if (nbad) {
        free(codes);
        if (s->fetch)
            unlink(s->path);
        if (code == 2)
            return inf_fail(err, errlen, "rank %d on %s: %s: every rank reads the model at the same path: copy rank 0's "
                        "file there, or pass --share-model to have rank 0 send each rank the part it needs", rank,
                        bolt_hostname(), why);
        return inf_fail(err, errlen, "%d rank%s (rank %d the first) cannot read the model rank 0 has (%s message says why)",
                    nbad, nbad > 1 ? "s" : "", bad, nbad > 1 ? "their" : "its");
    }
    /* the metadata, to each rank that lacks the file */
    int rc = 0;
    for (int r = 1; rank == 0 && rc == 0 && r < size; r++)
        if (codes[r] == 1)
            rc = serve(path, ref.size, r, world, err, errlen);
    free(codes);
    if (rc == 0 && s->fetch) {
        const range_t meta = {0, ref.meta};
        fprintf(stderr, "bolt-llm: rank %d on %s: %s; rank 0 sends the part this rank needs (--share-model)\n", rank,
                bolt_hostname(), why);
        if ((rc = fetch(s, path, &meta, 1, "the metadata", world, err, errlen)))
            unlink(s->path);
    }
    return rc;
}

/* ---- the ranges a context reads ---- */

typedef struct plan {
    range_t *r;
    size_t n, cap;
    const uint8_t *base;
    int oom;
} plan_t;

static void plan_add(plan_t *p, uint64_t off, uint64_t len)
{
    if (!len)
        return;
    /* runs that follow each other (or leave under a page between) are one */
    if (p->n && off >= p->r[p->n - 1].off && off <= p->r[p->n - 1].off + p->r[p->n - 1].len + 4096) {
        const uint64_t end = off + len > p->r[p->n - 1].off + p->r[p->n - 1].len ? off + len
                                                                                 : p->r[p->n - 1].off + p->r[p->n - 1].len;
        p->r[p->n - 1].len = end - p->r[p->n - 1].off;
        return;
    }
    if (p->n == p->cap) {
        const size_t cap = p->cap ? 2 * p->cap : 1024;
        range_t *g = realloc(p->r, cap * sizeof *g);
        if (!g) {
            p->oom = 1;
            return;
        }
        p->r = g;
        p->cap = cap;
    }
    p->r[p->n++] = (range_t){off, len};
}

static void plan_need(void *arg, const void *at, size_t len)
{
    plan_t *p = arg;
    plan_add(p, (uint64_t)((const uint8_t *)at - p->base), len);
}

static int by_off(const void *a, const void *b)
{
    const range_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

int share_fetch(share_t *s, inf_model_t **m, const inf_ctx_params_t *p, bolt_comm_t world, char *err, size_t errlen)
{
    /* rank 0 serves from the model's own path (s->path on rank 0) */
    int rank = 0, size = 1;
    bolt_comm_rank(world, &rank);
    bolt_comm_size(world, &size);
    if (rank == 0) {
        /* serve each rank that has a copy to fill, in rank order */
        int32_t *fetching = malloc((size_t)size * sizeof *fetching), f = 0;
        int rc = fetching && bolt_allgather(&f, fetching, 1, BOLT_INT32, world) == BOLT_OK ? 0 : -1;
        if (rc)
            inf_fail(err, errlen, "rank 0: %s", fetching ? bolt_error_message() : "out of memory");
        for (int r = 1; rc == 0 && r < size; r++)
            if (fetching[r])
                rc = serve(s->path, s->size, r, world, err, errlen);
        free(fetching);
        return rc;
    }
    int32_t f = s->fetch, *fetching = malloc((size_t)size * sizeof *fetching);
    int rc = fetching && bolt_allgather(&f, fetching, 1, BOLT_INT32, world) == BOLT_OK ? 0 : -1;
    free(fetching);
    if (rc)
        return inf_fail(err, errlen, "rank %d: %s", rank, bolt_error_message());
    if (!s->fetch)
        return 0;
    /* the vectors (read as the model loads) and what the context reads */
    plan_t pl = {.base = (*m)->gguf->parts[0].map};
    const gguf_t *g = (*m)->gguf;
    for (size_t i = 0; i < g->n_tensors; i++)
        if (g->tensors[i].ne[1] <= 1)
            plan_add(&pl, g->tensors[i].offset, g->tensors[i].nbytes);
    const char *path = s->model;
    if (inf_ctx_plan(*m, p, plan_need, &pl, err, errlen) == 0 && !pl.oom) {
        qsort(pl.r, pl.n, sizeof *pl.r, by_off);
        /* merged again in order */
        size_t k = 0;
        for (size_t i = 0; i < pl.n; i++)
            if (k && pl.r[i].off <= pl.r[k - 1].off + pl.r[k - 1].len) {
                const uint64_t end = pl.r[i].off + pl.r[i].len;
                if (end > pl.r[k - 1].off + pl.r[k - 1].len)
                    pl.r[k - 1].len = end - pl.r[k - 1].off;
            } else
                pl.r[k++] = pl.r[i];
        pl.n = k;
        rc = fetch(s, path, pl.r, pl.n, "its part", world, err, errlen);
    } else
        rc = pl.oom ? inf_fail(err, errlen, "out of memory") : -1;
    free(pl.r);
    /* the model again, its vectors now read */
    if (rc == 0) {
        inf_model_free(*m);
        *m = NULL;
        rc = inf_model_load(s->path, m, err, errlen);
    }
    char *named = rc == 0 ? strdup(s->model) : NULL; /* messages name the model, not the copy */
    if (named) {
        free((*m)->path);
        (*m)->path = named;
    }
    unlink(s->path); /* the mapping keeps what it needs */
    return rc;
}

/* coll.c — MPI collectives that move data (barrier, bcast, gather, scatter,
 * allgather, alltoall and their v-variants) over the native collectives.
 *
 * The native calls move bytes (BOLT_BYTE). Contiguous datatypes are passed
 * straight through; other types are packed into (or unpacked from) a
 * temporary buffer around the native call.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/coll.h"

/* A buffer as the native call sees it. */
struct view {
    char *p;     /* what the native call gets */
    void *tmp;   /* packed copy, when the type is not contiguous */
};

int face_coll_type(MPI_Comm comm, MPI_Datatype dt, int count, const char *fn,
                   struct face_comm **c, struct face_type **t)
{
    int rc = face_comm_check(comm, fn, c);
    if (rc)
        return rc;
    if (count < 0)
        return face_error(comm, fn, MPI_ERR_COUNT, "count %d is negative", count);
    return face_type_check(comm, dt, fn, t);
}

int face_check_root(MPI_Comm comm, struct face_comm *c, int root, const char *fn)
{
    if (root >= 0 && root < c->size)
        return MPI_SUCCESS;
    return face_error(comm, fn, MPI_ERR_ROOT, "root %d is out of range: the communicator has %d rank%s",
                      root, c->size, c->size == 1 ? "" : "s");
}

/* Readable view of count elements; packs when needed. */
static int view_in(MPI_Comm comm, const void *buf, size_t count, struct face_type *t,
                   const char *fn, struct view *v)
{
    v->tmp = NULL;
    if (t->contig || count * t->size == 0) {
        v->p = (char *)buf + t->true_lb;
        return MPI_SUCCESS;
    }
    if (!(v->tmp = malloc(count * t->size)))
        return face_error(comm, fn, MPI_ERR_NO_MEM, "cannot allocate %zu bytes", count * t->size);
    face_pack(t, buf, count, v->tmp);
    v->p = v->tmp;
    return MPI_SUCCESS;
}

/* Writable view of count elements; view_out_done unpacks it. */
static int view_out(MPI_Comm comm, void *buf, size_t count, struct face_type *t, const char *fn,
                    struct view *v)
{
    v->tmp = NULL;
    if (t->contig || count * t->size == 0) {
        v->p = (char *)buf + t->true_lb;
        return MPI_SUCCESS;
    }
    if (!(v->tmp = calloc(1, count * t->size)))
        return face_error(comm, fn, MPI_ERR_NO_MEM, "cannot allocate %zu bytes", count * t->size);
    v->p = v->tmp;
    return MPI_SUCCESS;
}

static void view_out_done(struct view *v, void *buf, size_t count, struct face_type *t, int ok)
{
    if (v->tmp && ok)
        face_unpack(t, v->tmp, count, buf);
    free(v->tmp);
    v->tmp = NULL;
}

static int native_rc(MPI_Comm comm, const char *fn, int rc)
{
    return rc ? face_native_error(comm, fn, rc) : MPI_SUCCESS;
}

int PMPI_Barrier(MPI_Comm comm)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, "MPI_Barrier", &c);
    return rc ? rc : native_rc(comm, "MPI_Barrier", bolt_barrier(c->native));
}

int PMPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    struct face_comm *fc;
    struct face_type *ft;
    if (face_coll_fast(comm, dt, count, &fc, &ft) && root >= 0 && root < fc->size)
        return native_rc(comm, "MPI_Bcast", bolt_bcast((char *)buf + ft->true_lb,
                                                       (size_t)count * ft->size, BOLT_BYTE, root,
                                                       fc->native));
    if (face_is_inter(comm))
        return face_inter_bcast(buf, count, dt, root, comm, 0, NULL, "MPI_Bcast");
    const char *fn = "MPI_Bcast";
    struct face_comm *c = NULL;
    struct face_type *t = NULL;
    struct view v;
    int rc = face_coll_type(comm, dt, count, fn, &c, &t);
    if (rc || (rc = face_check_root(comm, c, root, fn)))
        return rc;
    size_t n = (size_t)count;
    rc = c->rank == root ? view_in(comm, buf, n, t, fn, &v) : view_out(comm, buf, n, t, fn, &v);
    if (rc)
        return rc;
    int nrc = bolt_bcast(v.p, n * t->size, BOLT_BYTE, root, c->native);
    if (c->rank == root) {
        free(v.tmp);
    } else {
        view_out_done(&v, buf, n, t, nrc == 0);
    }
    return native_rc(comm, fn, nrc);
}

/* The bytes one rank contributes must equal the bytes each receives. */
int face_check_match(MPI_Comm comm, const char *fn, size_t sbytes, size_t rbytes)
{
    if (sbytes == rbytes)
        return MPI_SUCCESS;
    return face_error(comm, fn, MPI_ERR_TRUNCATE,
                      "this rank sends %zu bytes per rank but receives %zu: the type signatures "
                      "of the send and receive arguments must match", sbytes, rbytes);
}

/* A gather's or scatter's common case (face_coll_fast's, not in place): the
 * block every rank has (mine: a gather's send, a scatter's receive), the
 * root's blocks (all; NULL elsewhere, where their arguments are not looked
 * at; acount -1 sends the root down the full path), whose types must match,
 * and a block's bytes. 0: the full path. */
static int rooted_fast(MPI_Comm comm, const void *mine, int mcount, MPI_Datatype mdt, const void *all,
                       int acount, MPI_Datatype adt, int root, struct face_comm **c, char **pm, char **pa,
                       size_t *each)
{
    struct face_type *mt, *at;
    if (mine == MPI_IN_PLACE || !face_coll_fast(comm, mdt, mcount, c, &mt) || root < 0 ||
        root >= (*c)->size)
        return 0;
    *each = (size_t)mcount * mt->size;
    *pm = (char *)mine + mt->true_lb;
    *pa = NULL;
    if ((*c)->rank != root)
        return 1;
    if (!face_coll_fast(comm, adt, acount, c, &at) || (size_t)acount * at->size != *each)
        return 0;
    *pa = (char *)all + at->true_lb;
    return 1;
}

/* The root of a gatherv or scatterv in the common case (face_coll_fast's for
 * both types; its own block may be MPI_IN_PLACE, *pm then BOLT_IN_PLACE): at
 * most FACE_VBUF_INLINE ranks, counts and displacements not negative, its
 * own block's bytes those of its count. Byte counts into vb[0, n),
 * displacements into vb[n, 2n). 0: the full path, whose checks report what
 * is wrong. The v_layout of a contiguous type, without its error messages
 * (a 2-rank gatherv's root spent about as long in the face as in the
 * collective). */
static int rooted_v_fast(MPI_Comm comm, const void *mine, int mcount, MPI_Datatype mdt, const void *all,
                         const int *counts, const int *displs, MPI_Datatype adt, int root,
                         struct face_comm **c, char **pm, char **pa, size_t *each, size_t *vb)
{
    struct face_type *mt = NULL, *at;
    struct face_comm *fc = face_comm_get(comm);
    if (!fc || fc->rank != root || !face_coll_fast(comm, adt, 0, c, &at) || fc->size > FACE_VBUF_INLINE ||
        !counts || !displs || (mine != MPI_IN_PLACE && !face_coll_fast(comm, mdt, mcount, c, &mt)))
        return 0;
    const int n = (*c)->size;
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0 || displs[i] < 0)
            return 0;
        vb[i] = (size_t)counts[i] * at->size;
        vb[n + i] = (size_t)displs[i] * at->size;
    }
    *each = mt ? (size_t)mcount * mt->size : 0;
    if (mt && *each != vb[root])
        return 0;
    *pm = mt ? (char *)mine + mt->true_lb : (char *)BOLT_IN_PLACE;
    *pa = (char *)all + at->true_lb;
    return 1;
}

int PMPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                MPI_Datatype rdt, int root, MPI_Comm comm)
{
    struct face_comm *fc;
    char *fmine, *fall;
    size_t fbytes;
    if (rooted_fast(comm, sbuf, scount, sdt, rbuf, rcount, rdt, root, &fc, &fmine, &fall, &fbytes))
        return native_rc(comm, "MPI_Gather", bolt_gather(fmine, fall, fbytes, BOLT_BYTE, root, fc->native));
    if (face_is_inter(comm))
        return face_inter_gather(sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, root, comm, 0,
                                 NULL, "MPI_Gather");
    const char *fn = "MPI_Gather";
    struct face_comm *c = NULL;
    struct face_type *st = NULL, *rt = NULL;
    struct view sv = {0}, rv = {0};
    int rc = face_comm_check(comm, fn, &c), in_place = sbuf == MPI_IN_PLACE;
    if (rc || (rc = face_check_root(comm, c, root, fn)))
        return rc;
    int is_root = c->rank == root;
    if (is_root && (rc = face_coll_type(comm, rdt, rcount, fn, &c, &rt)))
        return rc;
    if (!(is_root && in_place) && (rc = face_coll_type(comm, sdt, scount, fn, &c, &st)))
        return rc;
    size_t each = is_root ? (size_t)rcount * rt->size : (size_t)scount * st->size;
    if (is_root && !in_place && (rc = face_check_match(comm, fn, (size_t)scount * st->size, each)))
        return rc;
    if (!(is_root && in_place) && (rc = view_in(comm, sbuf, (size_t)scount, st, fn, &sv)))
        return rc;
    if (is_root) {
        size_t all = (size_t)rcount * (size_t)c->size;
        if ((rc = view_out(comm, rbuf, all, rt, fn, &rv))) {
            free(sv.tmp);
            return rc;
        }
        if (in_place && rv.tmp) /* my own block is already in rbuf */
            face_pack(rt, (char *)rbuf + (MPI_Aint)root * rcount * face_type_extent(rt),
                      (size_t)rcount, rv.p + (size_t)root * each);
    }
    int nrc = bolt_gather(in_place && is_root ? BOLT_IN_PLACE : sv.p, is_root ? rv.p : NULL, each,
                          BOLT_BYTE, root, c->native);
    free(sv.tmp);
    if (is_root)
        view_out_done(&rv, rbuf, (size_t)rcount * (size_t)c->size, rt, nrc == 0);
    return native_rc(comm, fn, nrc);
}

int PMPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, int root, MPI_Comm comm)
{
    struct face_comm *fc;
    char *fmine, *fall;
    size_t fbytes;
    if (rooted_fast(comm, rbuf, rcount, rdt, sbuf, scount, sdt, root, &fc, &fmine, &fall, &fbytes))
        return native_rc(comm, "MPI_Scatter", bolt_scatter(fall, fmine, fbytes, BOLT_BYTE, root, fc->native));
    if (face_is_inter(comm))
        return face_inter_scatter(sbuf, scount, NULL, NULL, sdt, rbuf, rcount, rdt, root, comm, 0,
                                  NULL, "MPI_Scatter");
    const char *fn = "MPI_Scatter";
    struct face_comm *c = NULL;
    struct face_type *st = NULL, *rt = NULL;
    struct view sv = {0}, rv = {0};
    int rc = face_comm_check(comm, fn, &c), in_place = rbuf == MPI_IN_PLACE;
    if (rc || (rc = face_check_root(comm, c, root, fn)))
        return rc;
    int is_root = c->rank == root;
    if (is_root && (rc = face_coll_type(comm, sdt, scount, fn, &c, &st)))
        return rc;
    if (!(is_root && in_place) && (rc = face_coll_type(comm, rdt, rcount, fn, &c, &rt)))
        return rc;
    size_t each = is_root ? (size_t)scount * st->size : (size_t)rcount * rt->size;
    if (is_root && !in_place && (rc = face_check_match(comm, fn, each, (size_t)rcount * rt->size)))
        return rc;
    if (is_root && (rc = view_in(comm, sbuf, (size_t)scount * (size_t)c->size, st, fn, &sv)))
        return rc;
    if (!(is_root && in_place) && (rc = view_out(comm, rbuf, (size_t)rcount, rt, fn, &rv))) {
        free(sv.tmp);
        return rc;
    }
    int nrc = bolt_scatter(is_root ? sv.p : NULL, in_place && is_root ? BOLT_IN_PLACE : rv.p, each,
                           BOLT_BYTE, root, c->native);
    free(sv.tmp);
    if (!(is_root && in_place))
        view_out_done(&rv, rbuf, (size_t)rcount, rt, nrc == 0);
    return native_rc(comm, fn, nrc);
}

/* An exchange's common case (face_coll_fast's for the receive type, and the
 * send type too unless in place, whose blocks match): where the native call
 * reads (BOLT_IN_PLACE) and writes, and a block's bytes. 0: the full path. */
static int exchange_fast(MPI_Comm comm, const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                         int rcount, MPI_Datatype rdt, struct face_comm **c, const void **s, void **r,
                         size_t *each)
{
    struct face_type *rt, *st;
    if (!face_coll_fast(comm, rdt, rcount, c, &rt))
        return 0;
    *each = (size_t)rcount * rt->size;
    *r = (char *)rbuf + rt->true_lb;
    if (sbuf == MPI_IN_PLACE) {
        *s = BOLT_IN_PLACE;
        return 1;
    }
    if (!face_coll_fast(comm, sdt, scount, c, &st) || (size_t)scount * st->size != *each)
        return 0;
    *s = (const char *)sbuf + st->true_lb;
    return 1;
}

int PMPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                   MPI_Datatype rdt, MPI_Comm comm)
{
    struct face_comm *fc;
    const void *fs;
    void *fr;
    size_t fbytes;
    if (exchange_fast(comm, sbuf, scount, sdt, rbuf, rcount, rdt, &fc, &fs, &fr, &fbytes))
        return native_rc(comm, "MPI_Allgather", bolt_allgather(fs, fr, fbytes, BOLT_BYTE, fc->native));
    if (face_is_inter(comm))
        return face_inter_allgather(sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, comm, 0, NULL,
                                    "MPI_Allgather");
    const char *fn = "MPI_Allgather";
    struct face_comm *c = NULL;
    struct face_type *st = NULL, *rt = NULL;
    struct view sv = {0}, rv = {0};
    int in_place = sbuf == MPI_IN_PLACE;
    int rc = face_coll_type(comm, rdt, rcount, fn, &c, &rt);
    if (rc || (!in_place && (rc = face_coll_type(comm, sdt, scount, fn, &c, &st))))
        return rc;
    size_t each = (size_t)rcount * rt->size, all = (size_t)rcount * (size_t)c->size;
    if (!in_place && ((rc = face_check_match(comm, fn, (size_t)scount * st->size, each)) ||
                      (rc = view_in(comm, sbuf, (size_t)scount, st, fn, &sv))))
        return rc;
    if ((rc = view_out(comm, rbuf, all, rt, fn, &rv))) {
        free(sv.tmp);
        return rc;
    }
    if (in_place && rv.tmp)
        face_pack(rt, (char *)rbuf + (MPI_Aint)c->rank * rcount * face_type_extent(rt),
                  (size_t)rcount, rv.p + (size_t)c->rank * each);
    int nrc = bolt_allgather(in_place ? BOLT_IN_PLACE : sv.p, rv.p, each, BOLT_BYTE, c->native);
    free(sv.tmp);
    view_out_done(&rv, rbuf, all, rt, nrc == 0);
    return native_rc(comm, fn, nrc);
}

int PMPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, MPI_Comm comm)
{
    struct face_comm *fc;
    const void *fs;
    void *fr;
    size_t fbytes;
    if (exchange_fast(comm, sbuf, scount, sdt, rbuf, rcount, rdt, &fc, &fs, &fr, &fbytes))
        return native_rc(comm, "MPI_Alltoall", bolt_alltoall(fs, fr, fbytes, BOLT_BYTE, fc->native));
    if (face_is_inter(comm))
        return face_inter_alltoall(sbuf, scount, NULL, NULL, sdt, rbuf, rcount, NULL, NULL, rdt,
                                   comm, 0, NULL, "MPI_Alltoall");
    const char *fn = "MPI_Alltoall";
    struct face_comm *c = NULL;
    struct face_type *st = NULL, *rt = NULL;
    struct view sv = {0}, rv = {0};
    int in_place = sbuf == MPI_IN_PLACE;
    int rc = face_coll_type(comm, rdt, rcount, fn, &c, &rt);
    if (rc || (!in_place && (rc = face_coll_type(comm, sdt, scount, fn, &c, &st))))
        return rc;
    size_t each = (size_t)rcount * rt->size, all = (size_t)rcount * (size_t)c->size;
    if (!in_place && ((rc = face_check_match(comm, fn, (size_t)scount * st->size, each)) ||
                      (rc = view_in(comm, sbuf, (size_t)scount * (size_t)c->size, st, fn, &sv))))
        return rc;
    if ((rc = view_out(comm, rbuf, all, rt, fn, &rv))) {
        free(sv.tmp);
        return rc;
    }
    if (in_place && rv.tmp)
        face_pack(rt, rbuf, all, rv.p);
    int nrc = bolt_alltoall(in_place ? BOLT_IN_PLACE : sv.p, rv.p, each, BOLT_BYTE, c->native);
    free(sv.tmp);
    view_out_done(&rv, rbuf, all, rt, nrc == 0);
    return native_rc(comm, fn, nrc);
}

/* ---- v-variants: counts and displacements per rank ------------------------------------ */

/* Byte counts and displacements for the native call. With a contiguous type
 * the user's layout is used as is; otherwise blocks are packed end to end. */
static int v_layout(MPI_Comm comm, const char *fn, int n, const int *counts, const int *displs,
                    struct face_type *t, size_t *bc, size_t *bd, size_t *total)
{
    size_t off = 0;
    if (!counts || !displs)
        return face_error(comm, fn, MPI_ERR_ARG, "a counts or displacements array is NULL");
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0)
            return face_error(comm, fn, MPI_ERR_COUNT, "count %d for rank %d is negative", counts[i], i);
        bc[i] = (size_t)counts[i] * t->size;
        if (t->contig) {
            if (displs[i] < 0)
                return face_error(comm, fn, MPI_ERR_ARG,
                                  "displacement %d for rank %d is negative", displs[i], i);
            bd[i] = (size_t)displs[i] * t->size;
            if (bd[i] + bc[i] > off)
                off = bd[i] + bc[i];
        } else {
            bd[i] = off;
            off += bc[i];
        }
    }
    *total = off;
    return MPI_SUCCESS;
}

void face_vbuf_free(struct face_vbuf *v)
{
    if (v->bc != v->inl)
        free(v->bc);
    free(v->tmp);
    v->bc = NULL;
    v->tmp = NULL;
}

int face_vbuf_make(MPI_Comm comm, const char *fn, int n, const void *buf, const int *counts,
                   const int *displs, struct face_type *t, int pack_in, struct face_vbuf *v)
{
    size_t total = 0;
    int rc;
    v->tmp = NULL;
    v->bc = v->inl;
    if (n > FACE_VBUF_INLINE && !(v->bc = malloc(2 * (size_t)n * sizeof(size_t))))
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    v->bd = v->bc + n;
    if ((rc = v_layout(comm, fn, n, counts, displs, t, v->bc, v->bd, &total))) {
        face_vbuf_free(v);
        return rc;
    }
    if (t->contig) {
        v->p = (char *)buf + t->true_lb;
        return MPI_SUCCESS;
    }
    if (!(v->tmp = calloc(1, total ? total : 1))) {
        face_vbuf_free(v);
        return face_error(comm, fn, MPI_ERR_NO_MEM, "cannot allocate %zu bytes", total);
    }
    v->p = v->tmp;
    MPI_Aint ext = face_type_extent(t);
    if (pack_in)
        for (int i = 0; i < n; i++)
            face_pack(t, (const char *)buf + (MPI_Aint)displs[i] * ext, (size_t)counts[i],
                      v->p + v->bd[i]);
    return MPI_SUCCESS;
}

static void vbuf_unpack(struct face_vbuf *v, int n, void *buf, const int *counts, const int *displs,
                        struct face_type *t)
{
    if (!v->tmp)
        return;
    MPI_Aint ext = face_type_extent(t);
    for (int i = 0; i < n; i++)
        face_unpack(t, v->p + v->bd[i], (size_t)counts[i], (char *)buf + (MPI_Aint)displs[i] * ext);
}

int PMPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int rcounts[],
                 const int displs[], MPI_Datatype rdt, int root, MPI_Comm comm)
{
    struct face_comm *fc;
    char *fmine, *fall;
    size_t fbytes;
    size_t vb[2 * FACE_VBUF_INLINE];
    /* a rank other than the root first (count -1: the root never passes
     * there), as it sends: a sender a few instructions slower than its
     * receiver finds it polling the ring cell it writes */
    if (rooted_fast(comm, sbuf, scount, sdt, NULL, -1, rdt, root, &fc, &fmine, &fall, &fbytes))
        return native_rc(comm, "MPI_Gatherv",
                         bolt_gatherv(fmine, fbytes, NULL, NULL, NULL, BOLT_BYTE, root, fc->native));
    if (rooted_v_fast(comm, sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, &fc, &fmine, &fall, &fbytes, vb))
        return native_rc(comm, "MPI_Gatherv", bolt_gatherv(fmine, fbytes, fall, vb, vb + fc->size,
                                                           BOLT_BYTE, root, fc->native));
    if (face_is_inter(comm))
        return face_inter_gather(sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt, root, comm, 0,
                                 NULL, "MPI_Gatherv");
    const char *fn = "MPI_Gatherv";
    struct face_comm *c = NULL;
    struct face_type *st = NULL, *rt = NULL;
    struct view sv = {0};
    struct face_vbuf rv;
    face_vbuf_none(&rv);
    int rc = face_comm_check(comm, fn, &c), in_place = sbuf == MPI_IN_PLACE;
    if (rc || (rc = face_check_root(comm, c, root, fn)))
        return rc;
    int is_root = c->rank == root;
    if (is_root && ((rc = face_coll_type(comm, rdt, 0, fn, &c, &rt)) ||
                    (rc = face_vbuf_make(comm, fn, c->size, rbuf, rcounts, displs, rt, in_place, &rv))))
        return rc;
    size_t sbytes = 0;
    if (!(is_root && in_place)) {
        if ((rc = face_coll_type(comm, sdt, scount, fn, &c, &st)) ||
            (rc = view_in(comm, sbuf, (size_t)scount, st, fn, &sv))) {
            face_vbuf_free(&rv);
            return rc;
        }
        sbytes = (size_t)scount * st->size;
    }
    if (is_root && !in_place && (rc = face_check_match(comm, fn, sbytes, rv.bc[root]))) {
        free(sv.tmp);
        face_vbuf_free(&rv);
        return rc;
    }
    int nrc = bolt_gatherv(is_root && in_place ? BOLT_IN_PLACE : sv.p, sbytes, rv.p, rv.bc, rv.bd,
                           BOLT_BYTE, root, c->native);
    free(sv.tmp);
    if (is_root && nrc == 0)
        vbuf_unpack(&rv, c->size, rbuf, rcounts, displs, rt);
    face_vbuf_free(&rv);
    return native_rc(comm, fn, nrc);
}

int PMPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype sdt,
                  void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    struct face_comm *fc;
    char *fmine, *fall;
    size_t fbytes;
    size_t vb[2 * FACE_VBUF_INLINE];
    /* the root, which sends, first (see MPI_Gatherv) */
    if (rooted_v_fast(comm, rbuf, rcount, rdt, sbuf, scounts, displs, sdt, root, &fc, &fmine, &fall, &fbytes, vb))
        return native_rc(comm, "MPI_Scatterv", bolt_scatterv(fall, vb, vb + fc->size, fmine, fbytes,
                                                             BOLT_BYTE, root, fc->native));
    if (rooted_fast(comm, rbuf, rcount, rdt, NULL, -1, sdt, root, &fc, &fmine, &fall, &fbytes))
        return native_rc(comm, "MPI_Scatterv",
                         bolt_scatterv(NULL, NULL, NULL, fmine, fbytes, BOLT_BYTE, root, fc->native));
    if (face_is_inter(comm))
        return face_inter_scatter(sbuf, 0, scounts, displs, sdt, rbuf, rcount, rdt, root, comm, 0,
                                  NULL, "MPI_Scatterv");
    const char *fn = "MPI_Scatterv";
    struct face_comm *c = NULL;
    struct face_type *st = NULL, *rt = NULL;
    struct view rv = {0};
    struct face_vbuf sv;
    face_vbuf_none(&sv);
    int rc = face_comm_check(comm, fn, &c), in_place = rbuf == MPI_IN_PLACE;
    if (rc || (rc = face_check_root(comm, c, root, fn)))
        return rc;
    int is_root = c->rank == root;
    if (is_root && ((rc = face_coll_type(comm, sdt, 0, fn, &c, &st)) ||
                    (rc = face_vbuf_make(comm, fn, c->size, sbuf, scounts, displs, st, 1, &sv))))
        return rc;
    size_t rbytes = 0;
    if (!(is_root && in_place)) {
        if ((rc = face_coll_type(comm, rdt, rcount, fn, &c, &rt)) ||
            (rc = view_out(comm, rbuf, (size_t)rcount, rt, fn, &rv))) {
            face_vbuf_free(&sv);
            return rc;
        }
        rbytes = (size_t)rcount * rt->size;
    }
    if (is_root && !in_place && (rc = face_check_match(comm, fn, sv.bc[root], rbytes))) {
        free(rv.tmp);
        face_vbuf_free(&sv);
        return rc;
    }
    int nrc = bolt_scatterv(sv.p, sv.bc, sv.bd, is_root && in_place ? BOLT_IN_PLACE : rv.p, rbytes,
                            BOLT_BYTE, root, c->native);
    face_vbuf_free(&sv);
    if (!(is_root && in_place))
        view_out_done(&rv, rbuf, (size_t)rcount, rt, nrc == 0);
    return native_rc(comm, fn, nrc);
}

int PMPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                    const int rcounts[], const int displs[], MPI_Datatype rdt, MPI_Comm comm)
{
    if (face_is_inter(comm))
        return face_inter_allgather(sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt, comm, 0, NULL,
                                    "MPI_Allgatherv");
    const char *fn = "MPI_Allgatherv";
    struct face_comm *c = NULL;
    struct face_type *st = NULL, *rt = NULL;
    struct view sv = {0};
    struct face_vbuf rv;
    face_vbuf_none(&rv);
    int in_place = sbuf == MPI_IN_PLACE;
    int rc = face_coll_type(comm, rdt, 0, fn, &c, &rt);
    if (rc || (rc = face_vbuf_make(comm, fn, c->size, rbuf, rcounts, displs, rt, in_place, &rv)))
        return rc;
    size_t sbytes = rv.bc[c->rank];
    if (!in_place && ((rc = face_coll_type(comm, sdt, scount, fn, &c, &st)) ||
                      (rc = face_check_match(comm, fn, (size_t)scount * st->size, rv.bc[c->rank])) ||
                      (rc = view_in(comm, sbuf, (size_t)scount, st, fn, &sv)))) {
        face_vbuf_free(&rv);
        return rc;
    }
    int nrc = bolt_allgatherv(in_place ? BOLT_IN_PLACE : sv.p, sbytes, rv.p, rv.bc, rv.bd,
                              BOLT_BYTE, c->native);
    free(sv.tmp);
    if (nrc == 0)
        vbuf_unpack(&rv, c->size, rbuf, rcounts, displs, rt);
    face_vbuf_free(&rv);
    return native_rc(comm, fn, nrc);
}

int PMPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype sdt,
                   void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rdt,
                   MPI_Comm comm)
{
    if (face_is_inter(comm))
        return face_inter_alltoall(sbuf, 0, scounts, sdispls, sdt, rbuf, 0, rcounts, rdispls, rdt,
                                   comm, 0, NULL, "MPI_Alltoallv");
    const char *fn = "MPI_Alltoallv";
    struct face_comm *c = NULL;
    struct face_type *st = NULL, *rt = NULL;
    struct face_vbuf sv, rv;
    face_vbuf_none(&sv);
    face_vbuf_none(&rv);
    int in_place = sbuf == MPI_IN_PLACE;
    int rc = face_coll_type(comm, rdt, 0, fn, &c, &rt);
    if (rc || (rc = face_vbuf_make(comm, fn, c->size, rbuf, rcounts, rdispls, rt, in_place, &rv)))
        return rc;
    if (!in_place && ((rc = face_coll_type(comm, sdt, 0, fn, &c, &st)) ||
                      (rc = face_vbuf_make(comm, fn, c->size, sbuf, scounts, sdispls, st, 1, &sv)))) {
        face_vbuf_free(&rv);
        return rc;
    }
    int nrc = bolt_alltoallv(in_place ? BOLT_IN_PLACE : sv.p, in_place ? rv.bc : sv.bc,
                             in_place ? rv.bd : sv.bd, rv.p, rv.bc, rv.bd, BOLT_BYTE, c->native);
    face_vbuf_free(&sv);
    if (nrc == 0)
        vbuf_unpack(&rv, c->size, rbuf, rcounts, rdispls, rt);
    face_vbuf_free(&rv);
    return native_rc(comm, fn, nrc);
}

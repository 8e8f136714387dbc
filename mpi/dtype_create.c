/* dtype_create.c — derived datatype constructors.
 *
 * Every constructor reduces to one general form: a list of entries, each
 * `blocklen` elements of a type at a byte displacement. type_build flattens
 * that into byte blocks, merging neighbours, and computes the bounds. The
 * type also keeps the constructor's arguments (MPI_Type_get_contents).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/dtype.h"

struct entry {
    MPI_Aint disp;
    int blocklen;
    MPI_Datatype type;
};

struct builder {
    struct face_block *b;
    int n, cap;
};

static int push_block(struct builder *bd, const struct face_block *c, MPI_Aint off)
{
    size_t len = c->len;
    if (len == 0)
        return MPI_SUCCESS;
    if (bd->n > 0) {
        struct face_block *last = &bd->b[bd->n - 1];
        if (last->off + (MPI_Aint)last->len == off && last->esize == c->esize &&
            last->x32 == c->x32) {
            last->len += len;
            return MPI_SUCCESS;
        }
    }
    if (bd->n == INT_MAX)
        return MPI_ERR_NO_MEM;
    if (bd->n == bd->cap) {
        int n = bd->cap ? (bd->cap > INT_MAX / 2 ? INT_MAX : bd->cap * 2) : 8;
        struct face_block *p = realloc(bd->b, (size_t)n * sizeof *p);
        if (!p)
            return MPI_ERR_NO_MEM;
        bd->b = p;
        bd->cap = n;
    }
    bd->b[bd->n++] = (struct face_block){off, len, c->esize, c->x32};
    return MPI_SUCCESS;
}

/* args: the constructor's arguments, attached to the new type (NULL: there
 * was no memory for them); freed on failure. */
static int type_build(const char *fn, int n, const struct entry *e, int combiner,
                      struct face_contents *args, MPI_Datatype *out)
{
    struct builder bd = {0};
    struct face_type *t = args ? calloc(1, sizeof *t) : NULL;
    int rc = MPI_SUCCESS, first = 1, basic_set = 0;
    if (!t) {
        face_contents_free(args);
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    t->align = 1;
    for (int i = 0; i < n; i++) {
        struct face_type *c = face_type_get(e[i].type);
        if (!c) {
            rc = face_error(MPI_COMM_NULL, fn, MPI_ERR_TYPE,
                            "entry %d: datatype handle %d is not a live datatype", i, e[i].type);
            goto out;
        }
        if (e[i].blocklen < 0) {
            rc = face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "entry %d: block length %d is negative",
                            i, e[i].blocklen);
            goto out;
        }
        if (e[i].blocklen == 0)
            continue;
        MPI_Aint ext = face_type_extent(c);
        for (int k = 0; k < e[i].blocklen; k++) {
            MPI_Aint base = e[i].disp + (MPI_Aint)k * ext;
            for (int j = 0; j < c->nblocks; j++)
                if ((rc = push_block(&bd, &c->blocks[j], base + c->blocks[j].off))) {
                    rc = face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM,
                                    "out of memory flattening the type");
                    goto out;
                }
        }
        MPI_Aint last = e[i].disp + (MPI_Aint)(e[i].blocklen - 1) * ext;
        MPI_Aint lb = e[i].disp + c->lb, ub = last + c->ub;
        MPI_Aint tlb = e[i].disp + c->true_lb, tub = last + c->true_ub;
        if (ext < 0) { /* negative extents run backwards */
            lb = last + c->lb;
            ub = e[i].disp + c->ub;
            tlb = last + c->true_lb;
            tub = e[i].disp + c->true_ub;
        }
        if (first || lb < t->lb) t->lb = lb;
        if (first || ub > t->ub) t->ub = ub;
        if (first || tlb < t->true_lb) t->true_lb = tlb;
        if (first || tub > t->true_ub) t->true_ub = tub;
        first = 0;
        t->size += (size_t)e[i].blocklen * c->size;
        if (c->align > t->align)
            t->align = c->align;
        if (!basic_set) {
            t->basic = c->basic;
            basic_set = 1;
        } else if (t->basic != c->basic) {
            t->basic = MPI_DATATYPE_NULL;
        }
    }
    if (combiner == MPI_COMBINER_STRUCT && t->align > 1) {
        /* As C pads a struct, so that arrays of it line up (what compilers do). */
        MPI_Aint ext = t->ub - t->lb, a = (MPI_Aint)t->align;
        if (ext % a)
            t->ub += a - ext % a;
    }
    t->blocks = bd.b;
    t->nblocks = bd.n;
    bd.b = NULL;
    t->combiner = combiner;
    face_type_set_contig(t);
    if ((rc = face_type_add(t, out))) {
        rc = face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
        goto out;
    }
    face_contents_attach(*out, args);
    return MPI_SUCCESS;
out:
    free(bd.b);
    face_type_destroy(t);
    face_contents_free(args);
    return rc;
}

static int check_common(const char *fn, int count, MPI_Datatype *newtype)
{
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    if (count < 0)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_COUNT, "count %d is negative", count);
    if (!newtype)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "newtype pointer is NULL");
    return MPI_SUCCESS;
}

static int old_extent(const char *fn, MPI_Datatype old, MPI_Aint *ext)
{
    struct face_type *t = face_type_get(old);
    if (!t)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_TYPE,
                          old == MPI_DATATYPE_NULL ? "oldtype is MPI_DATATYPE_NULL"
                                                   : "oldtype handle %d is not a live datatype",
                          old);
    *ext = face_type_extent(t);
    return MPI_SUCCESS;
}

int PMPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *newtype)
{
    int rc = check_common("MPI_Type_contiguous", count, newtype);
    if (rc)
        return rc;
    struct entry e = {0, count, old};
    struct face_contents *a = face_contents_new(1, 0, 1);
    if (a) {
        a->ints[0] = count;
        a->types[0] = old;
    }
    return type_build("MPI_Type_contiguous", 1, &e, MPI_COMBINER_CONTIGUOUS, a, newtype);
}

static int build_strided(const char *fn, int count, int blocklen, MPI_Aint stride_bytes,
                         MPI_Datatype old, int combiner, struct face_contents *a,
                         MPI_Datatype *newtype)
{
    struct entry *e = malloc((size_t)(unsigned)(count > 0 ? count : 1) * sizeof *e);
    if (!e) {
        face_contents_free(a);
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; i < count; i++)
        e[i] = (struct entry){(MPI_Aint)i * stride_bytes, blocklen, old};
    int rc = type_build(fn, count, e, combiner, a, newtype);
    free(e);
    return rc;
}

int PMPI_Type_vector(int count, int blocklen, int stride, MPI_Datatype old, MPI_Datatype *newtype)
{
    MPI_Aint ext = 0;
    int rc = check_common("MPI_Type_vector", count, newtype);
    if (rc || (rc = old_extent("MPI_Type_vector", old, &ext)))
        return rc;
    struct face_contents *a = face_contents_new(3, 0, 1);
    if (a) {
        a->ints[0] = count;
        a->ints[1] = blocklen;
        a->ints[2] = stride;
        a->types[0] = old;
    }
    return build_strided("MPI_Type_vector", count, blocklen, (MPI_Aint)stride * ext, old,
                         MPI_COMBINER_VECTOR, a, newtype);
}

int PMPI_Type_create_hvector(int count, int blocklen, MPI_Aint stride, MPI_Datatype old,
                             MPI_Datatype *newtype)
{
    int rc = check_common("MPI_Type_create_hvector", count, newtype);
    if (rc)
        return rc;
    struct face_contents *a = face_contents_new(2, 1, 1);
    if (a) {
        a->ints[0] = count;
        a->ints[1] = blocklen;
        a->aints[0] = stride;
        a->types[0] = old;
    }
    return build_strided("MPI_Type_create_hvector", count, blocklen, stride, old,
                         MPI_COMBINER_HVECTOR, a, newtype);
}

/* Indexed forms: displacements in elements (idisps, scaled by the extent) or
 * bytes (adisps); block lengths each (blens) or all the same (blen_all). The
 * arguments are kept as MPI_Type_get_contents lists them for each form. */
static int build_indexed(const char *fn, int count, const int *blens, int blen_all,
                         const int *idisps, const MPI_Aint *adisps, MPI_Datatype old,
                         int combiner, MPI_Datatype *newtype)
{
    MPI_Aint ext = 0;
    int rc = check_common(fn, count, newtype);
    if (rc || (rc = old_extent(fn, old, &ext)))
        return rc;
    if (count > 0 && ((!blens && blen_all < 0) || (!idisps && !adisps)))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "a block length or displacement array is NULL");
    size_t n = count > 0 ? (size_t)count : 0;
    struct face_contents *a = face_contents_new(1 + (blens ? n : 1) + (idisps ? n : 0),
                                                adisps ? n : 0, 1);
    struct entry *e = malloc((n > 0 ? n : 1) * sizeof *e);
    if (!e || !a) {
        free(e);
        face_contents_free(a);
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; i < count; i++)
        e[i] = (struct entry){idisps ? (MPI_Aint)idisps[i] * ext : adisps[i],
                              blens ? blens[i] : blen_all, old};
    /* count, then the block length(s), then integer displacements if any */
    int *ip = a->ints;
    *ip++ = count;
    if (blens) {
        if (n)
            memcpy(ip, blens, n * sizeof *ip);
        ip += n;
    } else {
        *ip++ = blen_all;
    }
    if (idisps && n)
        memcpy(ip, idisps, n * sizeof *ip);
    if (adisps && n)
        memcpy(a->aints, adisps, n * sizeof *a->aints);
    a->types[0] = old;
    rc = type_build(fn, count, e, combiner, a, newtype);
    free(e);
    return rc;
}

int PMPI_Type_indexed(int count, const int blens[], const int disps[], MPI_Datatype old,
                      MPI_Datatype *newtype)
{
    return build_indexed("MPI_Type_indexed", count, blens, -1, disps, NULL, old,
                         MPI_COMBINER_INDEXED, newtype);
}

int PMPI_Type_create_hindexed(int count, const int blens[], const MPI_Aint disps[],
                              MPI_Datatype old, MPI_Datatype *newtype)
{
    return build_indexed("MPI_Type_create_hindexed", count, blens, -1, NULL, disps, old,
                         MPI_COMBINER_HINDEXED, newtype);
}

int PMPI_Type_create_indexed_block(int count, int blen, const int disps[], MPI_Datatype old,
                                   MPI_Datatype *newtype)
{
    if (blen < 0)
        return face_error(MPI_COMM_NULL, "MPI_Type_create_indexed_block", MPI_ERR_ARG,
                          "block length %d is negative", blen);
    return build_indexed("MPI_Type_create_indexed_block", count, NULL, blen, disps, NULL, old,
                         MPI_COMBINER_INDEXED_BLOCK, newtype);
}

int PMPI_Type_create_hindexed_block(int count, int blen, const MPI_Aint disps[],
                                    MPI_Datatype old, MPI_Datatype *newtype)
{
    if (blen < 0)
        return face_error(MPI_COMM_NULL, "MPI_Type_create_hindexed_block", MPI_ERR_ARG,
                          "block length %d is negative", blen);
    return build_indexed("MPI_Type_create_hindexed_block", count, NULL, blen, NULL, disps, old,
                         MPI_COMBINER_HINDEXED_BLOCK, newtype);
}

int PMPI_Type_create_struct(int count, const int blens[], const MPI_Aint disps[],
                            const MPI_Datatype types[], MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_struct";
    int rc = check_common(fn, count, newtype);
    if (rc)
        return rc;
    if (count > 0 && (!blens || !disps || !types))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "a block length, displacement or type array is NULL");
    size_t n = count > 0 ? (size_t)count : 0;
    struct face_contents *a = face_contents_new(1 + n, n, n);
    struct entry *e = malloc((n > 0 ? n : 1) * sizeof *e);
    if (!e || !a) {
        free(e);
        face_contents_free(a);
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    a->ints[0] = count;
    for (int i = 0; i < count; i++) {
        e[i] = (struct entry){disps[i], blens[i], types[i]};
        a->ints[1 + i] = blens[i];
        a->aints[i] = disps[i];
        a->types[i] = types[i];
    }
    rc = type_build(fn, count, e, MPI_COMBINER_STRUCT, a, newtype);
    free(e);
    return rc;
}

int PMPI_Type_dup(MPI_Datatype old, MPI_Datatype *newtype)
{
    int rc = check_common("MPI_Type_dup", 1, newtype);
    if (rc)
        return rc;
    struct entry e = {0, 1, old};
    struct face_contents *a = face_contents_new(0, 0, 1);
    if (a)
        a->types[0] = old;
    if ((rc = type_build("MPI_Type_dup", 1, &e, MPI_COMBINER_DUP, a, newtype)))
        return rc;
    /* A duplicate keeps the exact bounds (padding included) and commit state. */
    struct face_type *o = face_type_get(old), *t = face_type_get(*newtype);
    t->lb = o->lb;
    t->ub = o->ub;
    t->committed = o->committed;
    face_type_set_contig(t);
    /* and the attributes, as their copy callbacks say; if one fails, no type */
    if ((rc = face_attrs_copy(old, o->attrs, &t->attrs))) {
        face_attrs_delete(*newtype, &t->attrs, 1);
        face_type_release(*newtype);
        *newtype = MPI_DATATYPE_NULL;
        return face_error(MPI_COMM_NULL, "MPI_Type_dup", rc,
                          rc == MPI_ERR_NO_MEM ? "out of memory copying the attributes"
                                               : "an attribute copy callback failed (it returned %d)",
                          rc);
    }
    return MPI_SUCCESS;
}

int PMPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype)
{
    int rc = check_common("MPI_Type_create_resized", 1, newtype);
    if (rc)
        return rc;
    struct entry e = {0, 1, old};
    struct face_contents *a = face_contents_new(0, 2, 1);
    if (a) {
        a->aints[0] = lb;
        a->aints[1] = extent;
        a->types[0] = old;
    }
    if ((rc = type_build("MPI_Type_create_resized", 1, &e, MPI_COMBINER_RESIZED, a, newtype)))
        return rc;
    struct face_type *t = face_type_get(*newtype);
    t->lb = lb;
    t->ub = lb + extent;
    face_type_set_contig(t);
    return MPI_SUCCESS;
}

int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[],
                              const int starts[], int order, MPI_Datatype old,
                              MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_subarray";
    MPI_Aint ext = 0;
    int rc = check_common(fn, ndims, newtype);
    if (rc || (rc = old_extent(fn, old, &ext)))
        return rc;
    if (ndims < 1 || !sizes || !subsizes || !starts)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          ndims < 1 ? "ndims %d must be at least 1" : "an array argument is NULL (ndims %d)",
                          ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
    for (int i = 0; i < ndims; i++)
        if (sizes[i] < 1 || subsizes[i] < 1 || subsizes[i] > sizes[i] || starts[i] < 0 ||
            starts[i] > sizes[i] - subsizes[i])
            return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                              "dimension %d: size %d, subsize %d, start %d do not describe a subarray",
                              i, sizes[i], subsizes[i], starts[i]);
    /* Build from the fastest-varying dimension outwards with byte strides;
     * each step's type is let go once the next holds it. */
    MPI_Datatype cur = old, next;
    MPI_Aint stride = ext, disp = 0;
    for (int k = 0; k < ndims; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        if (k == 0)
            rc = PMPI_Type_contiguous(subsizes[d], old, &next);
        else
            rc = PMPI_Type_create_hvector(subsizes[d], 1, stride, cur, &next);
        if (cur != old)
            face_type_release(cur);
        if (rc)
            return rc;
        cur = next;
        disp += (MPI_Aint)starts[d] * stride;
        stride *= sizes[d];
    }
    size_t n = (size_t)ndims;
    struct face_contents *a = face_contents_new(3 * n + 2, 0, 1);
    if (a) {
        a->ints[0] = ndims;
        memcpy(a->ints + 1, sizes, n * sizeof(int));
        memcpy(a->ints + 1 + n, subsizes, n * sizeof(int));
        memcpy(a->ints + 1 + 2 * n, starts, n * sizeof(int));
        a->ints[1 + 3 * n] = order;
        a->types[0] = old;
    }
    struct entry e = {disp, 1, cur};
    rc = type_build(fn, 1, &e, MPI_COMBINER_SUBARRAY, a, newtype);
    face_type_release(cur);
    if (rc)
        return rc;
    struct face_type *t = face_type_get(*newtype);
    t->lb = 0;
    t->ub = stride; /* the whole array */
    face_type_set_contig(t);
    return MPI_SUCCESS;
}

int face_type_wrap(const char *fn, MPI_Datatype inner, int combiner, struct face_contents *args,
                   MPI_Datatype *newtype)
{
    struct entry e = {0, 1, inner};
    int rc = type_build(fn, 1, &e, combiner, args, newtype);
    if (rc)
        return rc;
    struct face_type *in = face_type_get(inner), *t = face_type_get(*newtype);
    t->lb = in->lb;
    t->ub = in->ub;
    face_type_set_contig(t);
    return MPI_SUCCESS;
}

/* rma_apply.c — what one-sided operations do to window memory: typed
 * copies and reductions over a target's layout, used alike by an origin
 * that reaches the memory directly and by a target applying a message. */
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/dtype.h"
#include "mpi/rma.h"
#include "runtime/memcopy.h"

bolt_datatype_t face_native_basic(MPI_Datatype dt);
int face_op_native(MPI_Comm comm, MPI_Op op, const char *fn, bolt_op_t *out, int *is_user);

int rma_layout_of(const struct face_type *t, int count, struct rma_layout *l,
                  struct rma_block *one, struct rma_block **blocks)
{
    *blocks = NULL;
    if (t->contig || count == 0 || t->nblocks == 0) {
        one->off = t->nblocks ? t->true_lb : 0;
        one->len = (int64_t)t->size * count;
        *l = (struct rma_layout){1, one->len, 1, one};
        return MPI_SUCCESS;
    }
    struct rma_block *b = malloc((size_t)t->nblocks * sizeof *b);
    if (!b)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < t->nblocks; i++)
        b[i] = (struct rma_block){t->blocks[i].off, (int64_t)t->blocks[i].len};
    *l = (struct rma_layout){count, face_type_extent(t), t->nblocks, b};
    *blocks = b;
    return MPI_SUCCESS;
}

int64_t rma_layout_bytes(const struct rma_layout *l)
{
    int64_t per = 0;
    for (int i = 0; i < l->nblocks; i++)
        per += l->blocks[i].len;
    return per * l->count;
}

int64_t rma_layout_span(const struct rma_layout *l, int64_t *lowest)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int i = 0; i < l->nblocks; i++) {
        if (l->blocks[i].len == 0)
            continue;
        if (l->blocks[i].off < lo)
            lo = l->blocks[i].off;
        if (l->blocks[i].off + l->blocks[i].len > hi)
            hi = l->blocks[i].off + l->blocks[i].len;
    }
    if (lo > hi || l->count == 0) {
        *lowest = 0;
        return 0;
    }
    /* Elements step by extent, which may be negative. */
    int64_t step = (l->count - 1) * l->extent;
    *lowest = step < 0 ? lo + step : lo;
    return step < 0 ? hi : hi + step;
}

#define EACH_BLOCK(l, base, body)                                            \
    for (int64_t k_ = 0; k_ < (l)->count; k_++)                              \
        for (int32_t i_ = 0; i_ < (l)->nblocks; i_++) {                      \
            char *at = (char *)(base) + k_ * (l)->extent + (l)->blocks[i_].off; \
            size_t len = (size_t)(l)->blocks[i_].len;                         \
            body                                                             \
        }

void rma_layout_pack(const struct rma_layout *l, const char *base, char *dst)
{
    EACH_BLOCK(l, base, {
        bolt_mem_copy(dst, at, len);
        dst += len;
    })
}

void rma_layout_unpack(const struct rma_layout *l, const char *src, char *base)
{
    EACH_BLOCK(l, base, {
        bolt_mem_copy(at, src, len);
        src += len;
    })
}

/* Pair types (MPI_DOUBLE_INT, ...) may have holes inside an element: they
 * are reduced an element at a time, each unpacked into its C struct. */
static int acc_pairs(const struct rma_layout *l, char *base, const char *src, MPI_Datatype basic,
                     bolt_datatype_t nb, bolt_op_t nop)
{
    struct face_type *bt = face_type_get(basic);
    int64_t total = rma_layout_bytes(l);
    char *cur = malloc(total ? (size_t)total : 1);
    if (!cur)
        return MPI_ERR_NO_MEM;
    rma_layout_pack(l, base, cur);
    _Alignas(16) char a[64], b[64];
    int rc = MPI_SUCCESS;
    for (int64_t at = 0; at + (int64_t)bt->size <= total; at += (int64_t)bt->size) {
        face_unpack(bt, src + at, 1, a);
        face_unpack(bt, cur + at, 1, b);
        if (bolt_reduce_local(a, b, 1, nb, nop)) {
            rc = MPI_ERR_OP;
            break;
        }
        face_pack(bt, b, 1, cur + at);
    }
    if (rc == MPI_SUCCESS)
        rma_layout_unpack(l, cur, base);
    free(cur);
    return rc;
}

/* Up to 32 bytes of elements of a C integer or floating type under a predefined
 * op (floating ones: sum, product, min, max): Fetch_and_op's usual case,
 * done without the general reduction's dispatch (type and op tables, kernel
 * choice), which costs more than the operation. The expressions are the
 * general kernels' (collectives/reduce_kernels.c): signed integers wrap
 * (arithmetic on the unsigned type). Fortran's types, whose ops differ, go
 * the general way. 1 when done. */
#define ACC_FEW(T, CASES)                                                               \
    if (len % sizeof(T) || len > RMA_ACC_FEW_MAX)                                        \
        return 0;                                                                       \
    for (size_t i = 0; i < len / sizeof(T); i++) {                                      \
        T x, y;                                                                         \
        memcpy(&x, src + i * sizeof x, sizeof x);                                       \
        memcpy(&y, at + i * sizeof y, sizeof y);                                        \
        switch (op) {                                                                   \
        CASES                                                                           \
        default: return 0;                                                              \
        }                                                                               \
        memcpy(at + i * sizeof y, &y, sizeof y);                                        \
    }                                                                                   \
    return 1;
/* Integers: arithmetic in the unsigned type U (wrapping), bitwise, logical. */
#define INT_OPS(T, U)                                                                   \
    case MPI_SUM: y = (T)((U)y + (U)x); break;                                          \
    case MPI_PROD: y = (T)((U)y * (U)x); break;                                         \
    case MPI_MIN: y = x < y ? x : y; break;                                             \
    case MPI_MAX: y = x > y ? x : y; break;                                             \
    case MPI_BAND: y = (T)(y & x); break;                                               \
    case MPI_BOR: y = (T)(y | x); break;                                                \
    case MPI_BXOR: y = (T)(y ^ x); break;                                               \
    case MPI_LAND: y = (T)(x != 0 && y != 0); break;                                    \
    case MPI_LOR: y = (T)(x != 0 || y != 0); break;                                     \
    case MPI_LXOR: y = (T)((x != 0) != (y != 0)); break;
/* Floating types: no bitwise or logical ops (the general way refuses them). */
#define FLOAT_OPS                                                                       \
    case MPI_SUM: y = x + y; break;                                                     \
    case MPI_PROD: y = x * y; break;                                                    \
    case MPI_MIN: y = x < y ? x : y; break;                                             \
    case MPI_MAX: y = x > y ? x : y; break;
#define ACC_INT(T, U) ACC_FEW(T, INT_OPS(T, U))

int rma_acc_few(MPI_Datatype basic, MPI_Op op, const char *src, char *at, size_t len)
{
    switch (basic) {
    case MPI_CHAR:
        if (CHAR_MIN < 0) {
            ACC_INT(int8_t, unsigned)
        } else {
            ACC_INT(uint8_t, unsigned)
        }
    case MPI_SIGNED_CHAR: case MPI_INT8_T: ACC_INT(int8_t, unsigned)
    case MPI_UNSIGNED_CHAR: case MPI_UINT8_T: case MPI_BYTE: ACC_INT(uint8_t, unsigned)
    case MPI_SHORT: case MPI_INT16_T: ACC_INT(int16_t, unsigned)
    case MPI_UNSIGNED_SHORT: case MPI_UINT16_T: ACC_INT(uint16_t, unsigned)
    case MPI_INT: case MPI_INT32_T: ACC_INT(int32_t, unsigned)
    case MPI_UNSIGNED: case MPI_UINT32_T: ACC_INT(uint32_t, unsigned)
    case MPI_LONG_LONG_INT: case MPI_INT64_T: ACC_INT(int64_t, uint64_t)
    case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T: ACC_INT(uint64_t, uint64_t)
    case MPI_LONG:
        if (sizeof(long) == 8) {
            ACC_INT(int64_t, uint64_t)
        }
        return 0;
    case MPI_UNSIGNED_LONG:
        if (sizeof(long) == 8) {
            ACC_INT(uint64_t, uint64_t)
        }
        return 0;
    case MPI_DOUBLE: ACC_FEW(double, FLOAT_OPS)
    case MPI_FLOAT: ACC_FEW(float, FLOAT_OPS)
    default:
        return 0;
    }
}
#undef ACC_INT
#undef FLOAT_OPS
#undef INT_OPS
#undef ACC_FEW

int rma_layout_acc(const struct rma_layout *l, char *base, const char *src, MPI_Datatype basic,
                   MPI_Op op, char *old)
{
    if (old)
        rma_layout_pack(l, base, old);
    if (op == MPI_NO_OP)
        return MPI_SUCCESS;
    if (op == MPI_REPLACE) {
        rma_layout_unpack(l, src, base);
        return MPI_SUCCESS;
    }
    if (l->count == 1 && l->nblocks == 1 &&
        rma_acc_few(basic, op, src, base + l->blocks[0].off, (size_t)l->blocks[0].len))
        return MPI_SUCCESS;
    bolt_datatype_t nb = face_native_basic(basic);
    bolt_op_t nop;
    int user = 0;
    /* Only predefined operations: face_op_native raises nothing for them. */
    if (op < MPI_MAX || op > MPI_MAXLOC || nb == BOLT_DATATYPE_NULL ||
        face_op_native(MPI_COMM_NULL, op, "", &nop, &user) || user)
        return MPI_ERR_OP;
    struct face_type *bt = face_type_get(basic);
    size_t esize = bt ? bt->size : 0;
    if (!esize)
        return MPI_ERR_TYPE;
    if (bolt_type_size(nb) != esize || (bt->nblocks > 1))
        return acc_pairs(l, base, src, basic, nb, nop);
    int rc = MPI_SUCCESS;
    EACH_BLOCK(l, base, {
        if (rc == MPI_SUCCESS && bolt_reduce_local(src, at, len / esize, nb, nop))
            rc = MPI_ERR_OP;
        src += len;
    })
    return rc;
}

int rma_cas(char *at, const char *value, const char *compare, char *old, size_t n)
{
    memcpy(old, at, n);
    if (memcmp(old, compare, n) != 0)
        return 0;
    memcpy(at, value, n);
    return 1;
}

void rma_acc_lock(struct rma_ctrl *c)
{
    for (int n = 0; atomic_exchange_explicit(&c->acc, 1, memory_order_acquire); n++)
        if (n > 64)
            sched_yield(); /* its holder may be waiting for this core */
}

void rma_acc_unlock(struct rma_ctrl *c) { atomic_store_explicit(&c->acc, 0, memory_order_release); }

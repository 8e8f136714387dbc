/* op.c — reduction operations: builtin ops, user ops, and which types each may reduce. */
#include <stdlib.h>

#include "collectives/coll.h"
#include "runtime/errors.h"

#define USER_OP_BASE 64

struct user_op {
    bolt_user_fn *fn;
    void *user;
    int commutative;
    int live;
};

/* User ops live in a table indexed by handle - USER_OP_BASE; freed slots are reused. */
static struct user_op *user_ops;
static int nuser_ops;

static const char *const op_names[] = {
    [BOLT_SUM] = "BOLT_SUM",     [BOLT_PROD] = "BOLT_PROD",     [BOLT_MIN] = "BOLT_MIN",
    [BOLT_MAX] = "BOLT_MAX",     [BOLT_LAND] = "BOLT_LAND",     [BOLT_LOR] = "BOLT_LOR",
    [BOLT_LXOR] = "BOLT_LXOR",   [BOLT_BAND] = "BOLT_BAND",     [BOLT_BOR] = "BOLT_BOR",
    [BOLT_BXOR] = "BOLT_BXOR",   [BOLT_MAXLOC] = "BOLT_MAXLOC", [BOLT_MINLOC] = "BOLT_MINLOC",
};

static struct user_op *user_op(bolt_op_t op)
{
    int i = op - USER_OP_BASE;
    if (i < 0 || i >= nuser_ops || !user_ops[i].live)
        return NULL;
    return &user_ops[i];
}

int bolt_op_create(bolt_user_fn *fn, int commutative, void *user, bolt_op_t *op)
{
    if (!fn || !op)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_op_create: %s is NULL", fn ? "op" : "fn");
    int i = 0;
    while (i < nuser_ops && user_ops[i].live)
        i++;
    if (i == nuser_ops) {
        int n = nuser_ops ? nuser_ops * 2 : 16;
        struct user_op *t = realloc(user_ops, (size_t)n * sizeof *t);
        if (!t)
            return bolt_err_set(BOLT_ERR_NOMEM, "bolt_op_create: out of memory");
        for (int j = nuser_ops; j < n; j++)
            t[j].live = 0;
        user_ops = t;
        nuser_ops = n;
    }
    user_ops[i] = (struct user_op){fn, user, commutative != 0, 1};
    *op = USER_OP_BASE + i;
    return BOLT_OK;
}

int bolt_op_free(bolt_op_t *op)
{
    struct user_op *u = op ? user_op(*op) : NULL;
    if (!u)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_op_free: not an op made by bolt_op_create");
    u->live = 0;
    *op = BOLT_OP_NULL;
    return BOLT_OK;
}

int coll_op_commutative(bolt_op_t op)
{
    struct user_op *u = user_op(op);
    return u ? u->commutative : 1;
}

int coll_op_check(bolt_op_t op, bolt_datatype_t dt, const char *fn)
{
    int rc = coll_type_check(dt, fn);
    if (rc)
        return rc;
    if (user_op(op))
        return BOLT_OK;
    if (op < BOLT_SUM || op > BOLT_MINLOC)
        return bolt_err_set(BOLT_ERR_ARG,
                            "%s: op %d is not a Bolt operation (a BOLT_* builtin or one made by "
                            "bolt_op_create and not freed)",
                            fn, op);
    if (!coll_kernel(op, dt))
        return bolt_err_set(BOLT_ERR_ARG,
                            "%s: %s cannot reduce %s elements (%s)", fn, op_names[op],
                            bolt_type_name(dt),
                            op == BOLT_MAXLOC || op == BOLT_MINLOC
                                ? "MAXLOC/MINLOC take the value-index pair types"
                            : (dt & 0xffu) == COLL_DT_BYTES
                                ? "opaque byte elements take only user ops"
                                : "MPI's rules: arithmetic on numbers, logical ops on integers "
                                  "and bool, bitwise ops on integers and bytes");
    return BOLT_OK;
}

void coll_reduce(const void *in, void *inout, size_t count, bolt_datatype_t dt, bolt_op_t op)
{
    struct user_op *u = user_op(op);
    if (count == 0)
        return;
    if (u)
        u->fn(in, inout, count, dt, u->user);
    else
        coll_kernel(op, dt)(in, inout, count);
}

int bolt_reduce_local(const void *in, void *inout, size_t count, bolt_datatype_t dt,
                      bolt_op_t op)
{
    int rc = coll_op_check(op, dt, "bolt_reduce_local");
    if (rc)
        return rc;
    if (count && (!in || !inout || in == BOLT_IN_PLACE || inout == BOLT_IN_PLACE))
        return bolt_err_set(BOLT_ERR_ARG, "bolt_reduce_local: a buffer is NULL or BOLT_IN_PLACE");
    /* the caller's own data, most likely in this core's caches */
    if (!user_op(op) && count <= COLL_NEAR_MAX && count * bolt_type_size(dt) <= COLL_NEAR_MAX)
        coll_kernel_near(op, dt)(in, inout, count);
    else
        coll_reduce(in, inout, count, dt, op);
    return BOLT_OK;
}

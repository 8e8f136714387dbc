/* api_common.c — argument checks and launching, shared by the public entry points. */
#include <stdlib.h>

#include "collectives/coll.h"
#include "runtime/errors.h"

int coll_launch(struct coll_sched *s, bolt_request_t *req, const char *fn)
{
    if (!s)
        return bolt_err_set(BOLT_ERR_NOMEM, "%s: out of memory", fn);
    return req ? coll_sched_request(s, req) : coll_sched_run(s);
}

int coll_check_root(struct bolt_comm *c, int root, const char *fn)
{
    if (root >= 0 && root < c->size)
        return BOLT_OK;
    return bolt_err_set(BOLT_ERR_ARG,
                        "%s: root %d is out of range: the communicator has %d rank%s (0..%d)", fn,
                        root, c->size, c->size == 1 ? "" : "s", c->size - 1);
}

int coll_check_buf(const void *buf, size_t bytes, const char *fn, const char *which)
{
    if (bytes && (!buf || buf == BOLT_IN_PLACE))
        return bolt_err_set(BOLT_ERR_ARG, "%s: %s is %s but holds %zu bytes", fn, which,
                            buf ? "BOLT_IN_PLACE" : "NULL", bytes);
    return BOLT_OK;
}

int coll_bytes(size_t count, bolt_datatype_t dt, size_t *bytes, const char *fn)
{
    size_t esize = bolt_type_size(dt);
    if (esize && count > SIZE_MAX / esize)
        return bolt_err_set(BOLT_ERR_ARG, "%s: %zu elements of %s do not fit in memory", fn, count,
                            bolt_type_name(dt));
    *bytes = count * esize;
    return BOLT_OK;
}

int coll_v_bytes(const size_t *counts, const size_t *displs, int n, size_t esize, struct coll_vb *v,
                 const char *fn)
{
    if (!counts || !displs)
        return bolt_err_set(BOLT_ERR_ARG, "%s: the %s array is NULL", fn,
                            counts ? "displacements" : "counts");
    for (int i = 0; i < n; i++)
        if (counts[i] > SIZE_MAX / esize / 2 || displs[i] > SIZE_MAX / esize / 2)
            return bolt_err_set(BOLT_ERR_ARG, "%s: count or displacement of rank %d is too large",
                                fn, i);
    if (esize == 1) {
        v->c = counts;
        v->d = displs;
        return BOLT_OK;
    }
    size_t *b = v->inl;
    if (n > COLL_VB_INLINE && !(b = v->heap = malloc(2 * (size_t)n * sizeof *b)))
        return bolt_err_set(BOLT_ERR_NOMEM, "%s: out of memory", fn);
    for (int i = 0; i < n; i++) {
        b[i] = counts[i] * esize;
        b[n + i] = displs[i] * esize;
    }
    v->c = b;
    v->d = b + n;
    return BOLT_OK;
}

void coll_vb_free(struct coll_vb *v)
{
    free(v->heap);
    v->heap = NULL;
}

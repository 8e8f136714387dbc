/* dtype_contents.c — decoding datatypes: every derived type keeps the
 * arguments of the constructor that made it, which MPI_Type_get_envelope and
 * MPI_Type_get_contents give back (MPI 3.1, 4.1.13). The types among them are
 * held, so they outlive an MPI_Type_free of their handles: get_contents hands
 * out a new handle to each derived one (the caller frees it) and the
 * predefined ones as they are. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/dtype.h"

struct face_contents *face_contents_new(size_t ni, size_t na, size_t nd)
{
    if (ni > INT_MAX || na > INT_MAX || nd > INT_MAX)
        return NULL;
    /* One block: the header, then the addresses, then ints and types. */
    struct face_contents *c =
        calloc(1, sizeof *c + na * sizeof(MPI_Aint) + ni * sizeof(int) + nd * sizeof(MPI_Datatype));
    if (!c)
        return NULL;
    c->ni = (int)ni;
    c->na = (int)na;
    c->nd = (int)nd;
    c->aints = (MPI_Aint *)(c + 1);
    c->ints = (int *)(c->aints + na);
    c->types = (MPI_Datatype *)(c->ints + ni);
    return c;
}

void face_contents_attach(MPI_Datatype dt, struct face_contents *c)
{
    for (int i = 0; i < c->nd; i++)
        face_type_hold(c->types[i]);
    face_types[dt]->contents = c;
}

void face_contents_release(struct face_contents *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->nd; i++)
        face_type_unhold(c->types[i]);
    free(c);
}

void face_contents_free(struct face_contents *c)
{
    free(c);
}

struct face_contents *face_contents_copy(const struct face_contents *c)
{
    struct face_contents *n = face_contents_new((size_t)c->ni, (size_t)c->na, (size_t)c->nd);
    if (!n)
        return NULL;
    memcpy(n->aints, c->aints, (size_t)c->na * sizeof *c->aints);
    memcpy(n->ints, c->ints, (size_t)c->ni * sizeof *c->ints);
    memcpy(n->types, c->types, (size_t)c->nd * sizeof *c->types);
    for (int i = 0; i < n->nd; i++)
        face_type_hold(n->types[i]);
    return n;
}

int PMPI_Type_get_envelope(MPI_Datatype dt, int *ni, int *na, int *nd, int *combiner)
{
    struct face_type *t = NULL;
    int rc = face_type_lookup(dt, "MPI_Type_get_envelope", &t);
    if (rc)
        return rc;
    if (!ni || !na || !nd || !combiner)
        return face_error(MPI_COMM_NULL, "MPI_Type_get_envelope", MPI_ERR_ARG,
                          "an output pointer is NULL");
    const struct face_contents *c = t->contents;
    *ni = c ? c->ni : 0;
    *na = c ? c->na : 0;
    *nd = c ? c->nd : 0;
    *combiner = t->combiner;
    return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype dt, int max_integers, int max_addresses,
                           int max_datatypes, int ints[], MPI_Aint aints[],
                           MPI_Datatype types[])
{
    const char *fn = "MPI_Type_get_contents";
    struct face_type *t = NULL;
    int rc = face_type_lookup(dt, fn, &t);
    if (rc)
        return rc;
    const struct face_contents *c = t->contents;
    if (!c)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_TYPE,
                          "%s is a named predefined datatype (combiner MPI_COMBINER_NAMED): it has "
                          "no contents; check MPI_Type_get_envelope first",
                          t->name);
    if (max_integers < c->ni || max_addresses < c->na || max_datatypes < c->nd)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          "the arrays are too small: they hold %d integers, %d addresses and %d "
                          "datatypes, the type has %d, %d and %d (MPI_Type_get_envelope)",
                          max_integers, max_addresses, max_datatypes, c->ni, c->na, c->nd);
    if ((c->ni && !ints) || (c->na && !aints) || (c->nd && !types))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "an output array is NULL");
    /* Derived types come back as new handles; a failure gives back none. */
    for (int i = 0; i < c->nd; i++) {
        MPI_Datatype in = c->types[i];
        if (face_types[in]->predefined) {
            types[i] = in;
            continue;
        }
        if ((rc = face_type_clone(in, &types[i]))) {
            for (int j = 0; j < i; j++)
                if (!face_types[types[j]]->predefined)
                    face_type_release(types[j]);
            return face_error(MPI_COMM_NULL, fn, rc, "out of memory for the datatype handles");
        }
    }
    if (c->ni)
        memcpy(ints, c->ints, (size_t)c->ni * sizeof *ints);
    if (c->na)
        memcpy(aints, c->aints, (size_t)c->na * sizeof *aints);
    return MPI_SUCCESS;
}

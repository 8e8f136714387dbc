/* dtype_attr.c — attributes on datatypes (MPI 3.1, 6.7.4), through attr.c's
 * machinery: MPI_Type_dup runs the copy callbacks (dtype_create.c) and
 * MPI_Type_free the delete ones (dtype.c). Predefined types carry
 * attributes too. */
#include "mpi/dtype.h"

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn,
                            MPI_Type_delete_attr_function *delete_fn, int *keyval,
                            void *extra_state)
{
    return face_keyval_create(FACE_ATTR_TYPE, copy_fn, delete_fn, extra_state, keyval,
                              "MPI_Type_create_keyval");
}

int PMPI_Type_free_keyval(int *keyval)
{
    return face_keyval_free(FACE_ATTR_TYPE, keyval, "MPI_Type_free_keyval");
}

int PMPI_Type_set_attr(MPI_Datatype dt, int keyval, void *value)
{
    struct face_type *t = NULL;
    int rc = face_type_lookup(dt, "MPI_Type_set_attr", &t);
    return rc ? rc
              : face_attr_set(FACE_ATTR_TYPE, dt, &t->attrs, keyval, value, MPI_COMM_NULL,
                              "MPI_Type_set_attr");
}

int PMPI_Type_get_attr(MPI_Datatype dt, int keyval, void *value, int *flag)
{
    struct face_type *t = NULL;
    int rc = face_type_lookup(dt, "MPI_Type_get_attr", &t);
    return rc ? rc
              : face_attr_get(FACE_ATTR_TYPE, t->attrs, keyval, value, flag, MPI_COMM_NULL,
                              "MPI_Type_get_attr");
}

int PMPI_Type_delete_attr(MPI_Datatype dt, int keyval)
{
    struct face_type *t = NULL;
    int rc = face_type_lookup(dt, "MPI_Type_delete_attr", &t);
    return rc ? rc
              : face_attr_delete(FACE_ATTR_TYPE, dt, &t->attrs, keyval, MPI_COMM_NULL,
                                 "MPI_Type_delete_attr");
}

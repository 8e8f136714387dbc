/* attr_callbacks.c — the predefined attribute copy callbacks that copy
 * (MPI_COMM_DUP_FN and its kin): the new object gets the value as it is.
 * The standard declares them as functions, so codes may call them from
 * their own callbacks; the null callbacks are null pointers in mpi.h. */
#include <string.h>

#include "mpi.h"

static int dup_value(void *in, void *out, int *flag)
{
    memcpy(out, &in, sizeof in); /* out points at a void * */
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                    void *attribute_val_out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    (void)extra_state;
    return dup_value(attribute_val_in, attribute_val_out, flag);
}

int MPI_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
               void *attribute_val_out, int *flag)
{
    return MPI_COMM_DUP_FN(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out,
                           flag);
}

int MPI_TYPE_DUP_FN(MPI_Datatype oldtype, int keyval, void *extra_state, void *attribute_val_in,
                    void *attribute_val_out, int *flag)
{
    (void)oldtype;
    (void)keyval;
    (void)extra_state;
    return dup_value(attribute_val_in, attribute_val_out, flag);
}

int MPI_WIN_DUP_FN(MPI_Win oldwin, int keyval, void *extra_state, void *attribute_val_in,
                   void *attribute_val_out, int *flag)
{
    (void)oldwin;
    (void)keyval;
    (void)extra_state;
    return dup_value(attribute_val_in, attribute_val_out, flag);
}

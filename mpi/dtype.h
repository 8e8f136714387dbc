/* dtype.h — internals shared by the datatype files of the MPI face. */
#ifndef BOLT_MPI_DTYPE_H
#define BOLT_MPI_DTYPE_H

#include <stdio.h>

#include "mpi/face.h"

/* Puts a new type in the table (it takes ownership). */
int face_type_add(struct face_type *t, MPI_Datatype *out);
void face_type_destroy(struct face_type *t);
void face_type_remove(MPI_Datatype dt);
/* Sets t->contig from the blocks and bounds. */
void face_type_set_contig(struct face_type *t);

#endif

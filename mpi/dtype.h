/* dtype.h — internals shared by the datatype files of the MPI face. */
#ifndef BOLT_MPI_DTYPE_H
#define BOLT_MPI_DTYPE_H

#include <stdio.h>

#include "mpi/face.h"

/* Puts a new type in the table (it takes ownership). */
int face_type_add(struct face_type *t, MPI_Datatype *out);
/* Frees t and what it owns; touches no other type (finalize uses it). */
void face_type_destroy(struct face_type *t);
/* Takes the type out of the table and destroys it, letting go of the types
 * it was built from. */
void face_type_remove(MPI_Datatype dt);
/* Drops a handle, as MPI_Type_free does once the attributes are gone: the
 * type stays (handle retired) while something still holds it. */
void face_type_release(MPI_Datatype dt);
/* Sets t->contig from the blocks and bounds. */
void face_type_set_contig(struct face_type *t);
/* A type with inner's typemap and bounds (padding included) but its own
 * combiner and constructor arguments (args: as type constructors take them,
 * NULL for out of memory): types built from others internally (darray). */
int face_type_wrap(const char *fn, MPI_Datatype inner, int combiner, struct face_contents *args,
                   MPI_Datatype *newtype);
/* A new handle to a copy of dt's type (held ones too): the same typemap,
 * bounds, name and constructor, no attributes. */
int face_type_clone(MPI_Datatype dt, MPI_Datatype *out);

/* ---- how a type was built (dtype_contents.c) ------------------------------------ */
/* The arguments of its constructor, as MPI_Type_get_contents returns them.
 * The types in it are held (face_type_hold) while it lives. */
struct face_contents {
    int ni, na, nd;
    int *ints;
    MPI_Aint *aints;
    MPI_Datatype *types;
};
/* Room for the arguments (NULL: out of memory, or more than an int counts). */
struct face_contents *face_contents_new(size_t ni, size_t na, size_t nd);
/* Gives the type dt its constructor's arguments (filled in), holding their types. */
void face_contents_attach(MPI_Datatype dt, struct face_contents *c);
/* Lets go of the types the contents hold, then frees them. */
void face_contents_release(struct face_contents *c);
/* Frees them only (finalize: every type goes anyway). */
void face_contents_free(struct face_contents *c);
/* A copy holding the same types. */
struct face_contents *face_contents_copy(const struct face_contents *c);

/* ---- external32 (external32.c) -------------------------------------------------- */
/* How the elements of a block convert to external32: a code of the block's
 * elements (face_block.x32). Blocks merge only when their codes agree. */
enum {
    FACE_X32_COPY,    /* one-byte values, as they are */
    FACE_X32_SWAP2,   /* values of 2, 4, 8 bytes: big-endian, same size */
    FACE_X32_SWAP4,
    FACE_X32_SWAP8,
    FACE_X32_LONG,    /* C long and unsigned long: 4 bytes in external32 */
    FACE_X32_ULONG,
    FACE_X32_WCHAR,   /* wchar_t: 2 bytes */
    FACE_X32_LDOUBLE, /* long double: IEEE binary128 */
    FACE_X32_NCODES,
    /* Or'ed with a code: a pair type's whole elements, a value then an int. */
    FACE_X32_PAIR = 0x100
};
/* The code of a predefined type's elements (pair types with their index
 * stored right after the value: FACE_X32_PAIR | the value's code). */
int face_x32_code(MPI_Datatype predefined);

#endif

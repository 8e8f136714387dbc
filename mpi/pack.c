/* pack.c — moving typed data to and from contiguous bytes (MPI_Pack too). */
#include <string.h>

#include "mpi/dtype.h"
#include "runtime/memcopy.h"

void face_pack(const struct face_type *t, const void *src, size_t count, void *dst)
{
    const char *s = src;
    char *d = dst;
    MPI_Aint ext = face_type_extent(t);
    if (t->contig) {
        bolt_mem_copy(d, s + t->true_lb, count * t->size);
        return;
    }
    for (size_t i = 0; i < count; i++, s += ext)
        for (int j = 0; j < t->nblocks; j++) {
            memcpy(d, s + t->blocks[j].off, t->blocks[j].len);
            d += t->blocks[j].len;
        }
}

void face_unpack(const struct face_type *t, const void *src, size_t count, void *dst)
{
    const char *s = src;
    char *d = dst;
    MPI_Aint ext = face_type_extent(t);
    if (t->contig) {
        bolt_mem_copy(d + t->true_lb, s, count * t->size);
        return;
    }
    for (size_t i = 0; i < count; i++, d += ext)
        for (int j = 0; j < t->nblocks; j++) {
            memcpy(d + t->blocks[j].off, s, t->blocks[j].len);
            s += t->blocks[j].len;
        }
}

/* Unpacks only the first `bytes` bytes (a short message of a typed receive). */
void face_unpack_partial(const struct face_type *t, const void *src, size_t bytes, void *dst)
{
    const char *s = src;
    char *d = dst;
    MPI_Aint ext = face_type_extent(t);
    for (; bytes > 0; d += ext)
        for (int j = 0; j < t->nblocks && bytes > 0; j++) {
            size_t n = t->blocks[j].len < bytes ? t->blocks[j].len : bytes;
            memcpy(d + t->blocks[j].off, s, n);
            s += n;
            bytes -= n;
        }
}

int face_type_contig_span(const struct face_type *t, size_t count)
{
    return t->contig || (count == 1 && t->nblocks == 1);
}

static int pack_args(MPI_Comm comm, const char *fn, int count, MPI_Datatype dt, int outsize,
                     const int *position, struct face_type **t)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, fn, &c);
    if (rc || (rc = face_type_check(comm, dt, fn, t)))
        return rc;
    if (count < 0)
        return face_error(comm, fn, MPI_ERR_COUNT, "count %d is negative", count);
    if (!position || *position < 0 || *position > outsize)
        return face_error(comm, fn, MPI_ERR_ARG, "position %d is outside the buffer of %d bytes",
                          position ? *position : -1, outsize);
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype dt, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    struct face_type *t = NULL;
    int rc = pack_args(comm, "MPI_Pack", incount, dt, outsize, position, &t);
    if (rc)
        return rc;
    size_t need = (size_t)incount * t->size;
    if (need > (size_t)(outsize - *position))
        return face_error(comm, "MPI_Pack", MPI_ERR_TRUNCATE,
                          "%zu bytes do not fit: %d of the %d-byte buffer are left", need,
                          outsize - *position, outsize);
    if (need && (!inbuf || !outbuf))
        return face_error(comm, "MPI_Pack", MPI_ERR_BUFFER, "a buffer is NULL");
    face_pack(t, inbuf, (size_t)incount, (char *)outbuf + *position);
    *position += (int)need;
    return MPI_SUCCESS;
}

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype dt, MPI_Comm comm)
{
    struct face_type *t = NULL;
    int rc = pack_args(comm, "MPI_Unpack", outcount, dt, insize, position, &t);
    if (rc)
        return rc;
    size_t need = (size_t)outcount * t->size;
    if (need > (size_t)(insize - *position))
        return face_error(comm, "MPI_Unpack", MPI_ERR_TRUNCATE,
                          "%zu bytes wanted but %d of the %d-byte buffer are left", need,
                          insize - *position, insize);
    if (need && (!inbuf || !outbuf))
        return face_error(comm, "MPI_Unpack", MPI_ERR_BUFFER, "a buffer is NULL");
    face_unpack(t, (const char *)inbuf + *position, (size_t)outcount, outbuf);
    *position += (int)need;
    return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype dt, MPI_Comm comm, int *size)
{
    struct face_type *t = NULL;
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, "MPI_Pack_size", &c);
    if (rc || (rc = face_type_check(comm, dt, "MPI_Pack_size", &t)))
        return rc;
    if (incount < 0 || !size)
        return face_error(comm, "MPI_Pack_size", incount < 0 ? MPI_ERR_COUNT : MPI_ERR_ARG,
                          incount < 0 ? "count %d is negative" : "size pointer is NULL (count %d)",
                          incount);
    *size = (int)((size_t)incount * t->size);
    return MPI_SUCCESS;
}

/* bsend.c — buffered sends (MPI_Buffer_attach/detach) and requests the
 * program let go of (MPI_Request_free) before they completed.
 *
 * A buffered send copies the message into the attached buffer, so it is
 * carved there first-fit; a block returns when its send completes.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/face.h"

struct blk {
    size_t off, len; /* len includes the header's share, MPI_BSEND_OVERHEAD */
    int used;
};

static char *attached;
static size_t attached_size;
static struct blk *blks;
static int nblks, cap_blks;

/* Requests freed while active: completed here, in the background. */
static MPI_Request *orphans;
static int norphans, cap_orphans;

void face_req_orphan(MPI_Request r)
{
    if (norphans == cap_orphans) {
        int n = cap_orphans ? cap_orphans * 2 : 16;
        MPI_Request *p = realloc(orphans, (size_t)n * sizeof *p);
        if (!p) {
            /* Cannot track it: finish it now, which is always correct. */
            PMPI_Wait(&r, MPI_STATUS_IGNORE);
            return;
        }
        orphans = p;
        cap_orphans = n;
    }
    orphans[norphans++] = r;
}

void face_bsend_progress(void)
{
    for (int i = 0; i < norphans;) {
        int flag = 0;
        MPI_Request r = orphans[i];
        struct face_req *q = face_req_get(r);
        if (q && (q->native || q->multi))
            flag = face_req_done(q);
        if (!q || flag) {
            if (q)
                PMPI_Wait(&r, MPI_STATUS_IGNORE);
            orphans[i] = orphans[--norphans];
        } else {
            i++;
        }
    }
}

static void orphans_drain(void)
{
    while (norphans > 0) {
        MPI_Request r = orphans[--norphans];
        PMPI_Wait(&r, MPI_STATUS_IGNORE);
    }
}

int face_bsend_reserve(size_t bytes, void **block)
{
    /* No rounding: MPI promises that a buffer of the messages' Pack_size plus
     * MPI_BSEND_OVERHEAD each holds them (the data is copied bytewise). */
    size_t need = bytes + MPI_BSEND_OVERHEAD;
    if (!attached)
        return MPI_ERR_BUFFER;
    face_bsend_progress(); /* returns blocks of sends that finished */
    /* First fit among free blocks, splitting; the list covers the buffer. */
    for (int i = 0; i < nblks; i++) {
        if (blks[i].used || blks[i].len < need)
            continue;
        if (blks[i].len > need) {
            if (nblks == cap_blks) {
                int n = cap_blks * 2;
                struct blk *p = realloc(blks, (size_t)n * sizeof *p);
                if (!p)
                    return MPI_ERR_NO_MEM;
                blks = p;
                cap_blks = n;
            }
            memmove(&blks[i + 2], &blks[i + 1], (size_t)(nblks - i - 1) * sizeof *blks);
            blks[i + 1] = (struct blk){blks[i].off + need, blks[i].len - need, 0};
            blks[i].len = need;
            nblks++;
        }
        blks[i].used = 1;
        *block = attached + blks[i].off;
        return MPI_SUCCESS;
    }
    return MPI_ERR_BUFFER;
}

void face_bsend_release(void *block)
{
    size_t off = (size_t)((char *)block - attached);
    for (int i = 0; i < nblks; i++) {
        if (blks[i].off != off)
            continue;
        blks[i].used = 0;
        /* Merge with free neighbours. */
        if (i + 1 < nblks && !blks[i + 1].used) {
            blks[i].len += blks[i + 1].len;
            memmove(&blks[i + 1], &blks[i + 2], (size_t)(nblks - i - 2) * sizeof *blks);
            nblks--;
        }
        if (i > 0 && !blks[i - 1].used) {
            blks[i - 1].len += blks[i].len;
            memmove(&blks[i], &blks[i + 1], (size_t)(nblks - i - 1) * sizeof *blks);
            nblks--;
        }
        return;
    }
}

int PMPI_Buffer_attach(void *buffer, int size)
{
    int rc = face_check_init("MPI_Buffer_attach");
    if (rc)
        return rc;
    if (attached)
        return face_error(MPI_COMM_WORLD, "MPI_Buffer_attach", MPI_ERR_BUFFER,
                          "a buffer is already attached: detach it first");
    if (size < 0 || (!buffer && size > 0))
        return face_error(MPI_COMM_WORLD, "MPI_Buffer_attach", MPI_ERR_BUFFER,
                          "buffer %p of size %d is invalid", buffer, size);
    if (!(blks = malloc(16 * sizeof *blks)))
        return face_error(MPI_COMM_WORLD, "MPI_Buffer_attach", MPI_ERR_NO_MEM, "out of memory");
    cap_blks = 16;
    nblks = 1;
    blks[0] = (struct blk){0, (size_t)size, 0};
    attached = buffer ? buffer : (char *)&blks[0]; /* size 0: nothing fits */
    attached_size = (size_t)size;
    return MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    int rc = face_check_init("MPI_Buffer_detach");
    if (rc)
        return rc;
    if (!buffer_addr || !size)
        return face_error(MPI_COMM_WORLD, "MPI_Buffer_detach", MPI_ERR_ARG, "an argument pointer is NULL");
    /* Detach blocks until every buffered message is delivered. */
    orphans_drain();
    void *b = attached;
    memcpy(buffer_addr, &b, sizeof b);
    *size = (int)attached_size;
    free(blks);
    blks = NULL;
    nblks = cap_blks = 0;
    attached = NULL;
    attached_size = 0;
    return MPI_SUCCESS;
}

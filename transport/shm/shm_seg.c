/*
 * shm_seg.c — creating, sizing and mapping the host's shared segment
 * (layout in shm_seg.h). Used by boltrun (create) and the transport (map).
 */
#include "transport/shm/shm_seg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/crypto.h"

/* Above this, a job should not use one flat segment (sparse or not). */
#define SHM_MAX_SEG ((uint64_t)64 << 30)

static uint64_t round_up(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

size_t shm_seg_layout(int nlocal, struct shm_seg_hdr *h)
{
    if (nlocal < 1 || nlocal > 4096)
        return 0;
    h->version = SHM_VERSION;
    h->nlocal = (uint32_t)nlocal;
    h->ring_bytes = SHM_RING_BYTES;
    h->chunk_bytes = SHM_CHUNK_BYTES;
    h->nchunks = SHM_NCHUNKS;
    /* Many ranks: a smaller ring and staging per pair, so an all-to-all
     * touches a bounded amount of memory (pages cost only once touched, but
     * then they stay). */
    if (nlocal > SHM_MANY_RANKS) {
        h->ring_bytes = SHM_RING_BYTES_MANY;
        h->nchunks = 2;
    }
    h->slot_off = round_up(sizeof *h, 4096);
    h->chan_off = round_up(h->slot_off + (uint64_t)nlocal * sizeof(struct shm_slot), 4096);
    h->chan_stride =
        round_up(sizeof(struct shm_chan) + h->ring_bytes + h->nchunks * h->chunk_bytes, 4096);
    h->mcast_bytes = SHM_MCAST_BYTES;
    h->mcast_off = h->chan_off + (uint64_t)nlocal * (uint64_t)nlocal * h->chan_stride;
    h->mcast_stride = SHM_MCAST_COUNTS_BYTES + SHM_MCAST_SLOTS * h->mcast_bytes;
    uint64_t total = h->mcast_off + (uint64_t)nlocal * h->mcast_stride;
    if (total > SHM_MAX_SEG)
        return 0;
    h->total = total;
    return (size_t)total;
}

int shm_seg_create(int nlocal, char *err, size_t errcap)
{
    struct shm_seg_hdr lay;
    memset(&lay, 0, sizeof lay);
    size_t size = shm_seg_layout(nlocal, &lay);
    if (!size) {
        snprintf(err, errcap, "a shared segment for %d local ranks would be too large", nlocal);
        return -1;
    }
    uint8_t rnd[8];
    if (bolt_random_bytes(lay.id, sizeof lay.id) != 0 || bolt_random_bytes(rnd, sizeof rnd) != 0) {
        snprintf(err, errcap, "cannot draw a random segment id: %s", strerror(errno));
        return -1;
    }
    /* Short name: macOS allows 31 characters including the slash. */
    char name[32];
    int fd = -1;
    for (int attempt = 0; attempt < 8 && fd < 0; attempt++) {
        snprintf(name, sizeof name, "/bolt.%x.%02x%02x%02x%02x", (unsigned)getpid() & 0xffffffu,
                 rnd[0], rnd[1], rnd[2], (unsigned)(rnd[3] + attempt) & 0xffu);
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        snprintf(err, errcap, "shm_open(%s): %s", name, strerror(errno));
        return -1;
    }
    /* Unlinked at once: the segment lives while an fd or a mapping does,
     * so no crash of anybody can leave it behind in /dev/shm. */
    shm_unlink(name);
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    if (ftruncate(fd, (off_t)size) != 0) {
        snprintf(err, errcap, "cannot size the shared segment to %zu bytes: %s", size,
                 strerror(errno));
        close(fd);
        return -1;
    }
    void *p = mmap(NULL, sizeof lay, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        snprintf(err, errcap, "cannot map the shared segment: %s", strerror(errno));
        close(fd);
        return -1;
    }
    lay.magic = SHM_MAGIC;
    memcpy(p, &lay, sizeof lay);
    munmap(p, sizeof lay);
    return fd;
}

struct shm_seg_hdr *shm_seg_map(int fd, char *err, size_t errcap)
{
    struct stat st;
    struct shm_seg_hdr h;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof h) {
        snprintf(err, errcap, "fd %d is not a shared segment (%s)", fd,
                 errno ? strerror(errno) : "too small");
        return NULL;
    }
    if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h) {
        /* shm objects on some systems cannot be read(): map the header. */
        void *p = mmap(NULL, sizeof h, PROT_READ, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
            snprintf(err, errcap, "cannot map the shared segment: %s", strerror(errno));
            return NULL;
        }
        memcpy(&h, p, sizeof h);
        munmap(p, sizeof h);
    }
    struct shm_seg_hdr want;
    memset(&want, 0, sizeof want);
    if (h.magic != SHM_MAGIC || h.version != SHM_VERSION ||
        shm_seg_layout((int)h.nlocal, &want) != h.total || want.chan_stride != h.chan_stride ||
        want.ring_bytes != h.ring_bytes || want.mcast_off != h.mcast_off ||
        want.mcast_stride != h.mcast_stride || want.mcast_bytes != h.mcast_bytes ||
        (uint64_t)st.st_size < h.total) {
        snprintf(err, errcap, "fd %d holds no Bolt segment of this version (stale environment "
                              "or a different Bolt build?)", fd);
        return NULL;
    }
    void *p = mmap(NULL, (size_t)h.total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        snprintf(err, errcap, "cannot map the shared segment (%llu bytes): %s",
                 (unsigned long long)h.total, strerror(errno));
        return NULL;
    }
    return p;
}

void shm_seg_unmap(struct shm_seg_hdr *h)
{
    if (h)
        munmap(h, (size_t)h->total);
}

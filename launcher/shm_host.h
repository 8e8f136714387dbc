/*
 * shm_host.h — what a host's ranks share for the shm transport, made by the
 * process that starts them (boltrun today, a per-host daemon later): one
 * anonymous shared segment (transport/shm/shm_seg.h) and one doorbell pipe
 * per local rank. Every descriptor is close-on-exec in the creator; a rank's
 * child clears that flag just before exec (shm_host_child_setup), so the
 * ranks inherit them and nothing has a name anyone could leave behind.
 */
#ifndef BOLT_SHM_HOST_H
#define BOLT_SHM_HOST_H

#include <stddef.h>

struct shm_host {
    int nlocal;
    int seg_fd;
    int *bells;        /* 2 * nlocal: read and write end of each rank's pipe */
    char fd_env[16];   /* value of BOLT_SHM_FD */
    char *bells_env;   /* value of BOLT_SHM_BELLS: "r0:w0,r1:w1,..." */
};

/* Creates the segment and the doorbells for `nlocal` ranks. Returns 0, or -1
 * with a message in err (then nothing is left open). */
int shm_host_create(struct shm_host *h, int nlocal, char *err, size_t errcap);
/* In the forked child about to exec local rank `index`: let the descriptors
 * through exec and set BOLT_SHM_FD, BOLT_SHM_BELLS and BOLT_SHM_INDEX. */
void shm_host_child_setup(const struct shm_host *h, int index);
/* The creator's copies (the ranks keep theirs). */
void shm_host_close(struct shm_host *h);

#endif

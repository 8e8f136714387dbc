/*
 * shm_host.c — a host's shared segment and doorbells (see shm_host.h).
 */
#include "launcher/shm_host.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport/shm/shm_seg.h"

int shm_host_create(struct shm_host *h, int nlocal, char *err, size_t errcap)
{
    memset(h, 0, sizeof *h);
    h->seg_fd = -1;
    if (nlocal < 1) {
        snprintf(err, errcap, "no local ranks");
        return -1;
    }
    h->bells = malloc((size_t)nlocal * 2 * sizeof *h->bells);
    size_t cap = (size_t)nlocal * 24 + 1;
    h->bells_env = malloc(cap);
    if (!h->bells || !h->bells_env) {
        snprintf(err, errcap, "out of memory for %d doorbells", nlocal);
        free(h->bells);
        free(h->bells_env);
        return -1;
    }
    h->seg_fd = shm_seg_create(nlocal, err, errcap);
    if (h->seg_fd < 0) {
        free(h->bells);
        free(h->bells_env);
        return -1;
    }
    size_t used = 0;
    h->bells_env[0] = '\0';
    for (int i = 0; i < nlocal; i++) {
        int p[2];
        if (pipe(p) != 0) {
            snprintf(err, errcap, "cannot create the doorbell of local rank %d: %s", i,
                     strerror(errno));
            h->nlocal = i;
            shm_host_close(h);
            return -1;
        }
        for (int k = 0; k < 2; k++) {
            /* Nonblocking both ways: a full pipe is a bell already ringing,
             * and draining stops when it is empty. */
            (void)fcntl(p[k], F_SETFD, FD_CLOEXEC);
            (void)fcntl(p[k], F_SETFL, fcntl(p[k], F_GETFL) | O_NONBLOCK);
            h->bells[2 * i + k] = p[k];
        }
        used += (size_t)snprintf(h->bells_env + used, cap - used, "%s%d:%d", i ? "," : "", p[0],
                                 p[1]);
    }
    h->nlocal = nlocal;
    snprintf(h->fd_env, sizeof h->fd_env, "%d", h->seg_fd);
    return 0;
}

void shm_host_child_setup(const struct shm_host *h, int index)
{
    if (!h || h->seg_fd < 0 || index < 0 || index >= h->nlocal)
        return;
    (void)fcntl(h->seg_fd, F_SETFD, 0);
    for (int i = 0; i < 2 * h->nlocal; i++)
        (void)fcntl(h->bells[i], F_SETFD, 0);
    char num[16];
    snprintf(num, sizeof num, "%d", index);
    setenv("BOLT_SHM_FD", h->fd_env, 1);
    setenv("BOLT_SHM_BELLS", h->bells_env, 1);
    setenv("BOLT_SHM_INDEX", num, 1);
}

void shm_host_close(struct shm_host *h)
{
    if (h->seg_fd >= 0)
        close(h->seg_fd);
    h->seg_fd = -1;
    for (int i = 0; h->bells && i < 2 * h->nlocal; i++)
        close(h->bells[i]);
    free(h->bells);
    free(h->bells_env);
    h->bells = NULL;
    h->bells_env = NULL;
    h->nlocal = 0;
}

/*
 * remote.h — bolt-cluster's side of every host: bolt-hostd started in check
 * mode the way boltrun starts it (the remote shell, launcher/rsh.h), its
 * INFO awaited, then requests sent and their answers gathered. A host that
 * cannot be reached, or that stops answering, is marked failed with the
 * remote shell's or the daemon's own words.
 */
#ifndef BOLT_CLUSTER_REMOTE_H
#define BOLT_CLUSTER_REMOTE_H

#include <stddef.h>
#include <stdint.h>

#include "cluster/check_wire.h"
#include "launcher/chan.h"
#include "launcher/rsh.h"

struct remote {
    char name[256];
    struct rsh_proc rp;
    struct chan ch;
    char errbuf[1024];
    size_t errlen;
    char lasterr[512];     /* the last line the remote shell or daemon wrote to stderr */
    int have_info, failed;
    char why[1024];        /* when failed */
    struct ck_info info;
    /* Answers to the current request. */
    struct ck_probed *probed;
    uint32_t nprobed, capprobed;
    uint32_t want_probed;  /* answers the current PROBE asks for */
    struct ck_rprobed *rprobed;
    uint32_t nrprobed, caprprobed;
    uint32_t want_rprobed;
    struct ck_measured measured;
    int have_measured;
};

/* Starts check-mode bolt-hostd on every host (index i gets CHECK with i). */
void remote_start_all(struct remote *r, int n, char *const *rsh_argv, const char *hostd,
                      const uint8_t secret[BOLT_SECRET_BYTES]);
/* Serves every channel until each host has sent INFO or failed, or for
 * `seconds`: then hosts still silent fail. */
void remote_wait_info(struct remote *r, int n, double seconds);
/* Serves every channel until `done(r + i)` holds, or the host failed, for
 * every i with want[i] set, for at most `seconds`. */
void remote_wait(struct remote *r, int n, const unsigned char *want, int (*done)(const struct remote *),
                 double seconds);
/* Ends every host's daemon (its channel closes) and reaps the shells. */
void remote_close_all(struct remote *r, int n);

#endif

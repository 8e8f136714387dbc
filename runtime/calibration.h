/*
 * calibration.h — reading the calibration file bolt-cluster writes (format in
 * cluster/outfiles.h: "bolt-calibration 1", then host and link records), and
 * what boltrun gives the ranks' collectives from it: every link between the
 * job's hosts (runtime/linkmap.h: the collectives' ring goes along the
 * fastest, the mesh algorithms need every link good) and the smallest L2
 * cache per core. boltrun and bolt-info read it.
 */
#ifndef BOLT_CALIBRATION_H
#define BOLT_CALIBRATION_H

#include <stddef.h>

struct calib_host {
    char name[256];
    unsigned long long l2;   /* bytes of one L2 (0: unknown) */
    int cores;               /* 0: unknown */
};

struct calib_link {
    char a[256], b[256];
    double alpha_us, beta_ab_ns, beta_ba_ns; /* ns per byte each way */
    int slow;                                /* flagged by bolt-cluster (slow=1) */
};

struct calibration {
    struct calib_host *host;
    int nhost;
    struct calib_link *link;
    int nlink;
};

/* Parses the file's text; messages name `fname`:line and the key. Returns 0,
 * or -1 with err. */
int calib_parse(struct calibration *c, const char *text, const char *fname, char *err, size_t cap);
int calib_load(struct calibration *c, const char *path, char *err, size_t cap);
void calib_free(struct calibration *c);

struct linkmap;
/* The link map of a job on hosts `names[0..nhost)` whose world rank r runs
 * on host host_of[r] (r < nrank): each pair's link from the file (the slower
 * way's beta; a pair the file has no link for is LINK_NONE), and the
 * smallest L2 of the hosts (0: unknown). 0, or -1 with err (a host name the
 * map cannot carry, out of memory). */
int calib_linkmap(const struct calibration *c, const char *const *names, int nhost, const int *host_of, int nrank,
                  struct linkmap *m, unsigned long long *l2, char *err, size_t cap);
/* 1 when the file has a host record or a link naming host `name`. */
int calib_knows(const struct calibration *c, const char *name);
/* A pair of hosts without a link in the file: 1 with *a, *b set (the first
 * such pair), else 0. */
int calib_missing(const struct linkmap *m, int *a, int *b);

#endif

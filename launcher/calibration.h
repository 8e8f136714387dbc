/*
 * calibration.h — reading the calibration file bolt-cluster writes (format in
 * cluster/outfiles.h: "bolt-calibration 1", then host and link records), and
 * what boltrun gives the ranks' collectives from it: the cost model's alpha
 * and beta of the slowest link among the job's hosts (a collective over
 * every host waits for it), and the smallest L2 cache per core.
 */
#ifndef BOLTRUN_CALIBRATION_H
#define BOLTRUN_CALIBRATION_H

#include <stddef.h>

struct calib_host {
    char name[256];
    unsigned long long l2;   /* bytes of one L2 (0: unknown) */
};

struct calib_link {
    char a[256], b[256];
    double alpha_us, beta_ab_ns, beta_ba_ns; /* ns per byte each way */
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

/* The model for a job on `names[0..n)`: 0 with the worst alpha (us) and beta
 * (ns per KiB) over every pair of them and the smallest L2 (0: unknown), or
 * -1 with err naming a pair the file has no link for. */
int calib_model(const struct calibration *c, const char *const *names, int n, double *alpha_us,
                double *beta_ns_per_kb, unsigned long long *l2, char *err, size_t cap);

#endif

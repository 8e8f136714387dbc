/*
 * calib_job.h — a calibration file turned into what a job's ranks get: the
 * link map of the hosts that have ranks (BOLT_COLL_LINKS's text, see
 * runtime/linkmap.h) and the smallest L2. boltrun hands them to the ranks;
 * bolt-info --coll shows what the collectives make of them.
 */
#ifndef BOLTRUN_CALIB_JOB_H
#define BOLTRUN_CALIB_JOB_H

#include <stddef.h>

struct hostlist;

/* For hl (ranks placed): 0 with *text (malloc'd; NULL when the ranks are
 * on one host) and *l2 (0: unknown), and in note a warning to print (empty
 * when none: a pair of hosts the file has no link for); -1 with err naming
 * the file. */
int calib_job_links(const char *path, const struct hostlist *hl, char **text, unsigned long long *l2, char *note,
                    size_t notecap, char *err, size_t cap);

/* The calibration file found beside a hostfile: CALIB_BESIDE_NAME in the
 * hostfile's directory. 1 with its path in out when there is one, else 0. */
#define CALIB_BESIDE_NAME "bolt.calibration"
int calib_job_beside(const char *hostfile, char *out, size_t cap);

#endif

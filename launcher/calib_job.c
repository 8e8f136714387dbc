/*
 * calib_job.c — the calibration's links for a job's hosts (calib_job.h).
 */
#include "launcher/calib_job.h"
#include "launcher/hostlist.h"
#include "runtime/calibration.h"
#include "runtime/errors.h"
#include "runtime/linkmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int calib_job_links(const char *path, const struct hostlist *hl, char **text, unsigned long long *l2, char *note,
                    size_t notecap, char *err, size_t cap)
{
    struct calibration c;
    *text = NULL;
    *l2 = 0;
    if (notecap)
        note[0] = '\0';
    if (calib_load(&c, path, err, cap) != 0)
        return -1;
    /* Hosts without ranks take no part: the map numbers those with ranks. */
    const char **names = calloc((size_t)hl->n + 1, sizeof *names);
    int *idx = calloc((size_t)hl->n + 1, sizeof *idx), *host_of = calloc((size_t)hl->np + 1, sizeof *host_of);
    int n = 0, rc = names && idx && host_of ? 0 : bolt_errbuf(err, cap, "out of memory");
    for (int i = 0; rc == 0 && i < hl->n; i++)
        if (hl->h[i].nranks > 0) {
            idx[i] = n;
            names[n++] = hl->h[i].name;
        }
    for (int r = 0; rc == 0 && r < hl->np; r++)
        host_of[r] = idx[hl->host_of[r]];
    for (int i = 0; rc == 0 && n > 1 && i < n; i++)
        if (!calib_knows(&c, names[i]))
            rc = bolt_errbuf(err, cap, "--calibration %s: the calibration does not know host %s (it describes "
                             "another cluster? run bolt-cluster check on these hosts again)", path, names[i]);
    struct linkmap m = {0};
    char why[600];
    if (rc == 0 && calib_linkmap(&c, names, n, host_of, hl->np, &m, l2, why, sizeof why) != 0)
        rc = bolt_errbuf(err, cap, "--calibration %s: %s", path, why);
    int a, b;
    if (rc == 0 && n > 1 && calib_missing(&m, &a, &b))
        snprintf(note, notecap, "the calibration %s has no link between %s and %s (not wired to each other, or not "
                 "measured): the collectives' ring avoids that pair and the mesh algorithms are not used", path,
                 names[a], names[b]);
    if (rc == 0 && n > 1 && linkmap_format(&m, text) != 0)
        rc = bolt_errbuf(err, cap, "out of memory");
    if (m.name)
        linkmap_free(&m);
    free(names);
    free(idx);
    free(host_of);
    calib_free(&c);
    return rc;
}

int calib_job_beside(const char *hostfile, char *out, size_t cap)
{
    const char *slash = strrchr(hostfile, '/');
    struct stat st;
    int n = slash ? snprintf(out, cap, "%.*s/%s", (int)(slash - hostfile), hostfile, CALIB_BESIDE_NAME)
                  : snprintf(out, cap, "%s", CALIB_BESIDE_NAME);
    return n > 0 && (size_t)n < cap && stat(out, &st) == 0 && S_ISREG(st.st_mode);
}

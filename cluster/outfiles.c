/*
 * outfiles.c — the hostfile and the calibration file a cluster check writes
 * (see outfiles.h). Each is written to a temporary name and renamed, so a
 * job never reads half a file.
 */
#include "cluster/outfiles.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static FILE *open_tmp(const char *path, char *tmp, size_t tcap, const char *what, char *err, size_t cap)
{
    int n = snprintf(tmp, tcap, "%s.tmp", path);
    FILE *f = n > 0 && (size_t)n < tcap ? fopen(tmp, "w") : NULL;
    if (f == NULL)
        snprintf(err, cap, "%s %s: cannot write it: %s", what, path, n > 0 && (size_t)n < tcap ? strerror(errno)
                                                                                                 : "path too long");
    return f;
}

static int finish(FILE *f, const char *tmp, const char *path, const char *what, char *err, size_t cap)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        snprintf(err, cap, "%s %s: write failed: %s", what, path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

int outfiles_hostfile(const char *path, const struct cl_check *c, char *err, size_t cap)
{
    char tmp[4200];
    FILE *f = open_tmp(path, tmp, sizeof tmp, "--write-hostfile", err, cap);
    if (f == NULL)
        return -1;
    fprintf(f, "# written by bolt-cluster check (Bolt %s): wiring %s; slots = cores\n", PACKAGE_VERSION,
            c->w.verdict);
    for (int i = 0; i < c->n; i++) {
        if (c->ok[i])
            fprintf(f, "%s slots=%u\n", c->names[i], c->info[i].cores);
        else
            fprintf(f, "# %s left out: unreachable\n", c->names[i]);
    }
    return finish(f, tmp, path, "--write-hostfile", err, cap);
}

static double ns_per_byte(double gbs)
{
    return gbs > 0 ? 1.0 / gbs : 0;
}

int outfiles_calibration(const char *path, const struct cl_check *c, char *err, size_t cap)
{
    char tmp[4200];
    FILE *f = open_tmp(path, tmp, sizeof tmp, "--write-calibration", err, cap);
    if (f == NULL)
        return -1;
    fprintf(f, "# written by bolt-cluster check (Bolt %s): wiring %s\n", PACKAGE_VERSION, c->w.verdict);
    fprintf(f, "# alpha: small-message half round trip; beta: ns per byte each way, both ways busy at once\n");
    fprintf(f, "bolt-calibration 1\n");
    for (int i = 0; i < c->n; i++) {
        const struct ck_info *in = &c->info[i];
        if (c->ok[i])
            fprintf(f, "host %s cores=%u pus=%u mem=%llu l1d=%llu l2=%llu l3=%llu\n", c->names[i], in->cores, in->pus,
                    (unsigned long long)in->mem, (unsigned long long)in->cache[0],
                    (unsigned long long)in->cache[1], (unsigned long long)in->cache[2]);
    }
    for (int i = 0; i < c->w.nlinks; i++) {
        const struct wr_link *l = &c->w.links[i];
        if (!l->measured)
            continue;
        fprintf(f, "link %s %s transport=tcp kind=%s a_if=%s a_addr=%s b_if=%s b_addr=%s alpha_us=%.2f "
                "beta_ab_ns=%.5f beta_ba_ns=%.5f%s\n", c->names[l->a], c->names[l->b], l->cable ? "cable" : "shared",
                l->a_if, l->a_addr, l->b_if, l->b_addr, l->lat_us, ns_per_byte(l->ab_gbs), ns_per_byte(l->ba_gbs),
                l->slow ? " slow=1" : "");
    }
    return finish(f, tmp, path, "--write-calibration", err, cap);
}

int outfiles_devmap(const char *path, const struct cl_check *c, char *err, size_t cap)
{
    char tmp[4200];
    FILE *f = open_tmp(path, tmp, sizeof tmp, "--write-devmap", err, cap);
    if (f == NULL)
        return -1;
    fprintf(f, "# written by bolt-cluster check (Bolt %s): RDMA device pairs proven both ways\n", PACKAGE_VERSION);
    fprintf(f, "# pair HOST_A DEV_A GID_A HOST_B DEV_B GID_B (the GIDs each end sends from)\n");
    fprintf(f, "bolt-devmap 1\n");
    int pairs = 0;
    for (int i = 0; i < c->rd.nlinks; i++) {
        const struct rd_link *l = &c->rd.links[i];
        const struct ck_rdma *x = &c->info[l->a].rdma[l->adev], *y = &c->info[l->b].rdma[l->bdev];
        if (!l->ab || !l->ba)
            continue;
        fprintf(f, "pair %s %s %s %s %s %s\n", c->names[l->a], x->name, x->gid, c->names[l->b], y->name, y->gid);
        pairs++;
    }
    if (pairs == 0)
        fprintf(f, "# no RDMA device pair was proven: the rdma transport matches devices by address\n");
    return finish(f, tmp, path, "--write-devmap", err, cap);
}

/*
 * rdma_paths.c — planning and judging the RDMA device-pair probes (see
 * rdma_paths.h).
 */
#include "cluster/rdma_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The TCP path from a to b the address probes proved ("" when none). */
static void tcp_path(const struct wr_result *w, int a, int b, char *src, char *dst)
{
    src[0] = dst[0] = '\0';
    for (int i = 0; i < w->nlinks; i++) {
        const struct wr_link *l = &w->links[i];
        if (l->a == a && l->b == b && l->ab) {
            snprintf(src, CK_ADDR, "%s", l->a_addr);
            snprintf(dst, CK_ADDR, "%s", l->b_addr);
        } else if (l->a == b && l->b == a && l->ba) {
            snprintf(src, CK_ADDR, "%s", l->b_addr);
            snprintf(dst, CK_ADDR, "%s", l->a_addr);
        }
    }
}

void rdpaths_plan(int n, const int *ok, const struct ck_info *info, const struct wr_result *w, int a,
                  struct rd_path *paths, int *np, struct ck_rprobe *req, uint32_t *nreq)
{
    *nreq = 0;
    for (int b = 0; b < n; b++) {
        if (b == a || !ok[a] || !ok[b])
            continue;
        char src[CK_ADDR], dst[CK_ADDR];
        tcp_path(w, a, b, src, dst);
        for (uint32_t i = 0; i < info[a].nrdma; i++) {
            if (!info[a].rdma[i].usable)
                continue;
            for (uint32_t j = 0; j < info[b].nrdma; j++) {
                if (!info[b].rdma[j].usable)
                    continue;
                struct rd_path *p = &paths[(*np)++];
                memset(p, 0, sizeof *p);
                p->a = a;
                p->b = b;
                p->adev = (int)i;
                p->bdev = (int)j;
                if (!src[0]) { /* nothing to swap queue pairs over: answered here */
                    snprintf(p->r.err, sizeof p->r.err, "no TCP path from the one to the other to swap queue "
                             "pair numbers over");
                    continue;
                }
                struct ck_rprobe *q = &req[(*nreq)++];
                memset(q, 0, sizeof *q);
                q->id = (uint32_t)(*np - 1);
                q->port = info[b].port;
                snprintf(q->src, sizeof q->src, "%s", src);
                snprintf(q->dst, sizeof q->dst, "%s", dst);
                snprintf(q->ldev, sizeof q->ldev, "%s", info[a].rdma[i].name);
                q->lgid_index = info[a].rdma[i].gid_index;
                snprintf(q->rdev, sizeof q->rdev, "%s", info[b].rdma[j].name);
                q->rgid_index = info[b].rdma[j].gid_index;
            }
        }
    }
}

static const struct rd_path *find(const struct rd_path *p, int np, int a, int ad, int b, int bd)
{
    for (int i = 0; i < np; i++)
        if (p[i].a == a && p[i].b == b && p[i].adev == ad && p[i].bdev == bd)
            return &p[i];
    return NULL;
}

static int usable_count(const struct ck_info *in)
{
    int k = 0;
    for (uint32_t i = 0; i < in->nrdma; i++)
        k += in->rdma[i].usable != 0;
    return k;
}

/* "h1 rxe_h1_h3 port 1 is DOWN; ..." for the unusable devices of a and b. */
static void unusable_text(const char *const *names, const struct ck_info *info, int a, int b, char *out,
                          size_t cap)
{
    size_t o = 0;
    out[0] = '\0';
    int h[2] = {a, b};
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < info[h[k]].nrdma && o < cap; i++)
            if (!info[h[k]].rdma[i].usable)
                o += (size_t)snprintf(out + o, cap - o, "%s%s %s: %s", o ? "; " : "", names[h[k]],
                                      info[h[k]].rdma[i].name, info[h[k]].rdma[i].note);
}

int rdpaths_judge(int n, const char *const *names, const int *ok, const struct ck_info *info,
                  const struct rd_path *paths, int np, struct wr_result *w, struct rd_result *out)
{
    memset(out, 0, sizeof *out);
    out->links = calloc((size_t)np + 1, sizeof *out->links);
    if (out->links == NULL)
        return -1;
    for (int a = 0; a < n; a++) {
        if (!ok[a])
            continue;
        out->probed |= usable_count(&info[a]) > 0;
        for (uint32_t i = 0; i < info[a].nrdma; i++)
            if (!info[a].rdma[i].usable)
                wiring_add_problem(w, 0, "%s's RDMA device %s is not usable: %s%s", names[a], info[a].rdma[i].name,
                                   info[a].rdma[i].note,
                                   strstr(info[a].rdma[i].note, "DOWN") ? " (is its cable plugged in, and the host "
                                   "at its other end on?)" : "");
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            if (!ok[a] || !ok[b] || (info[a].nrdma == 0 && info[b].nrdma == 0))
                continue;
            int both = 0, any = 0;
            const char *err = NULL;
            char pair[160] = "";
            for (uint32_t i = 0; i < info[a].nrdma; i++)
                for (uint32_t j = 0; j < info[b].nrdma; j++) {
                    const struct rd_path *f = find(paths, np, a, (int)i, b, (int)j);
                    const struct rd_path *r = find(paths, np, b, (int)j, a, (int)i);
                    int ab = f && f->r.ok, ba = r && r->r.ok;
                    if (!ab && !ba) {
                        if (f && !err)
                            err = f->r.err;
                        continue;
                    }
                    out->links[out->nlinks++] = (struct rd_link){a, b, (int)i, (int)j, ab, ba};
                    any++;
                    both += ab && ba;
                    if (!(ab && ba))
                        snprintf(pair, sizeof pair, "%s %s -> %s %s", names[ab ? a : b],
                                 info[ab ? a : b].rdma[ab ? i : j].name, names[ab ? b : a],
                                 info[ab ? b : a].rdma[ab ? j : i].name);
                }
            if (both)
                continue;
            char down[400];
            unusable_text(names, info, a, b, down, sizeof down);
            if (any)
                wiring_add_problem(w, 0, "RDMA between %s and %s works one way only (%s): ranks between them "
                                   "cannot use RDMA", names[a], names[b], pair);
            else if (usable_count(&info[a]) && usable_count(&info[b]))
                wiring_add_problem(w, 0, "no RDMA device of %s reaches one of %s (%s)%s%s: ranks between them "
                                   "cannot use RDMA; check the cable between them", names[a], names[b],
                                   err ? err : "not probed", down[0] ? "; " : "", down);
            else
                wiring_add_problem(w, 0, "no RDMA path between %s and %s: %s has no usable RDMA device", names[a],
                                   names[b], !usable_count(&info[a]) ? names[a] : names[b]);
        }
    return 0;
}

void rdpaths_free(struct rd_result *r)
{
    free(r->links);
    memset(r, 0, sizeof *r);
}

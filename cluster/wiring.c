/*
 * wiring.c — the cluster's wiring, judged from the probes (see wiring.h).
 */
#include "cluster/wiring.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A measured link is slow when its latency is above LAT_FACTOR times the
 * median and LAT_FLOOR_US more, or its bandwidth (the slower way) below
 * BW_FACTOR times the median: a Thunderbolt 4 cable among Thunderbolt 5
 * ones, a link that fell back to a slower path. */
#define LAT_FACTOR 3.0
#define LAT_FLOOR_US 100.0
#define BW_FACTOR 0.4

void wiring_add_problem(struct wr_result *w, int fatal, const char *fmt, ...)
{
    struct wr_problem *p = realloc(w->problems, (size_t)(w->nproblems + 1) * sizeof *p);
    if (p == NULL)
        return;
    w->problems = p;
    p = &p[w->nproblems++];
    p->fatal = fatal;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->text, sizeof p->text, fmt, ap);
    va_end(ap);
}

const char *wiring_ifname(const struct ck_info *in, const char *addr)
{
    for (uint32_t i = 0; in && i < in->nifs; i++)
        if (strcmp(in->ifs[i].addr, addr) == 0)
            return in->ifs[i].name;
    return "?";
}

/* How many different hosts host a reached from source address src. */
static int reached_from(const struct wr_path *paths, int np, int a, const char *src)
{
    unsigned long long seen = 0;
    int count = 0;
    for (int i = 0; i < np; i++)
        if (paths[i].a == a && paths[i].r.ok && strcmp(paths[i].src, src) == 0 && paths[i].r.who < 64 &&
            !(seen >> paths[i].r.who & 1)) {
            seen |= 1ull << paths[i].r.who;
            count++;
        }
    return count;
}

/* The best working path from a to b: both ends on a cable if there is one.
 * Returns its index or -1; *cable says which kind it is. */
static int best_path(const struct wr_path *paths, int np, int a, int b, int *cable)
{
    int best = -1;
    *cable = 0;
    for (int i = 0; i < np; i++) {
        const struct wr_path *p = &paths[i];
        if (p->a != a || !p->r.ok || (int)p->r.who != b)
            continue;
        int c = reached_from(paths, np, a, p->src) == 1;
        /* b's end: its probes from that address reach only a (when b probed). */
        int bc = reached_from(paths, np, b, p->dst);
        c = c && bc <= 1;
        if (best < 0 || (c && !*cable)) {
            best = i;
            *cable = c;
        }
    }
    return best;
}

/* The error of a failed attempt from b back to a over the same addresses,
 * or of any failed attempt from b to a. */
static const char *back_error(const struct wr_path *paths, int np, int b, int a, const struct wr_path *fwd)
{
    const char *any = "no path answered";
    for (int i = 0; i < np; i++) {
        const struct wr_path *p = &paths[i];
        if (p->a != b || p->b != a || p->r.ok)
            continue;
        if (fwd && strcmp(p->src, fwd->dst) == 0 && strcmp(p->dst, fwd->src) == 0)
            return p->r.err;
        any = p->r.err;
    }
    return any;
}

static int is_ring(int n, const int *ok, const unsigned char *cab)
{
    int hosts = 0, first = -1;
    for (int i = 0; i < n; i++) {
        if (!ok[i])
            continue;
        hosts++;
        if (first < 0)
            first = i;
        int deg = 0;
        for (int j = 0; j < n; j++)
            deg += ok[j] && cab[i * n + j];
        if (deg != 2)
            return 0;
    }
    if (first < 0)
        return 0;
    /* One cycle through every host, not two smaller ones (degree 2
     * everywhere takes three hosts or more). */
    int prev = -1, cur = first, len = 0;
    do {
        int next = -1;
        for (int j = 0; j < n && next < 0; j++)
            if (ok[j] && cab[cur * n + j] && j != prev)
                next = j;
        prev = cur;
        cur = next;
        len++;
    } while (cur != first && cur >= 0 && len <= hosts);
    return cur == first && len == hosts;
}

int wiring_judge(int n, const char *const *names, const int *ok, const struct ck_info *info,
                 const struct wr_path *paths, int npaths, struct wr_result *out)
{
    memset(out, 0, sizeof *out);
    out->connected = 1;
    unsigned char *cab = calloc((size_t)n * (size_t)n, 1);
    out->links = calloc((size_t)n * (size_t)n / 2 + 1, sizeof *out->links);
    if (cab == NULL || out->links == NULL) {
        free(cab);
        return -1;
    }
    /* Addresses answered by another host than the one that has them. */
    for (int i = 0; i < npaths; i++) {
        const struct wr_path *p = &paths[i];
        if (p->r.ok && (int)p->r.who != p->b && (int)p->r.who < n)
            wiring_add_problem(out, 0, "%s reached %s (an address of %s's %s) but %s answered there: a cable or "
                               "an address is not where the hostfile says",
                               names[p->a], p->dst, names[p->b], wiring_ifname(&info[p->b], p->dst),
                               names[p->r.who]);
    }
    int hosts = 0;
    for (int a = 0; a < n; a++) {
        hosts += ok[a] != 0;
        for (int b = a + 1; b < n; b++) {
            if (!ok[a] || !ok[b])
                continue;
            int cab_ab, cab_ba;
            int ab = best_path(paths, npaths, a, b, &cab_ab), ba = best_path(paths, npaths, b, a, &cab_ba);
            if (ab < 0 && ba < 0) {
                out->connected = 0;
                continue;
            }
            struct wr_link *l = &out->links[out->nlinks++];
            l->a = a;
            l->b = b;
            l->ab = ab >= 0;
            l->ba = ba >= 0;
            l->cable = (ab >= 0 && cab_ab) || (ba >= 0 && cab_ba);
            const struct wr_path *p = ab >= 0 ? &paths[ab] : &paths[ba];
            snprintf(l->a_addr, sizeof l->a_addr, "%s", ab >= 0 ? p->src : p->dst);
            snprintf(l->b_addr, sizeof l->b_addr, "%s", ab >= 0 ? p->dst : p->src);
            snprintf(l->a_if, sizeof l->a_if, "%s", wiring_ifname(&info[a], l->a_addr));
            snprintf(l->b_if, sizeof l->b_if, "%s", wiring_ifname(&info[b], l->b_addr));
            if (l->cable) {
                cab[a * n + b] = cab[b * n + a] = 1;
                out->ncables++;
            }
            if (!l->ab || !l->ba) {
                int from = l->ab ? a : b, to = l->ab ? b : a;
                out->connected = 0;
                wiring_add_problem(out, 1, "%s reaches %s (%s -> %s) but %s cannot reach %s (%s): the path works "
                                   "one way only; look for a firewall or a wrong route on %s",
                                   names[from], names[to], p->src, p->dst, names[to], names[from],
                                   back_error(paths, npaths, to, from, p), names[to]);
            }
        }
    }
    int pairs = hosts * (hosts - 1) / 2;
    if (hosts < 2)
        out->verdict = "single host";
    else if (out->ncables == pairs)
        out->verdict = "full mesh";
    else if (is_ring(n, ok, cab))
        out->verdict = "ring";
    else if (out->ncables == 0)
        out->verdict = "no cables";
    else
        out->verdict = "partial";
    int ring = strcmp(out->verdict, "ring") == 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            if (!ok[a] || !ok[b] || cab[a * n + b])
                continue;
            int linked = 0;
            for (int k = 0; k < out->nlinks; k++)
                linked |= out->links[k].a == a && out->links[k].b == b;
            if (!linked)
                wiring_add_problem(out, 1, "%s and %s are not connected: plug a cable between them", names[a],
                                   names[b]);
            else if (!ring && out->ncables > 0)
                wiring_add_problem(out, 0, "%s and %s have no cable between them (they reach each other through a "
                                   "shared network): plug a cable between them for a full mesh", names[a], names[b]);
            else if (ring)
                wiring_add_problem(out, 0, "%s and %s are not neighbours on the ring: a cable between them would "
                                   "make the mesh fuller", names[a], names[b]);
        }
    free(cab);
    return 0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int wiring_mark_slow(struct wr_result *w)
{
    double *lat = calloc((size_t)w->nlinks + 1, sizeof *lat), *bw = calloc((size_t)w->nlinks + 1, sizeof *bw);
    int m = 0, nslow = 0;
    for (int i = 0; lat && bw && i < w->nlinks; i++)
        if (w->links[i].measured) {
            const struct wr_link *l = &w->links[i];
            lat[m] = l->lat_us;
            bw[m++] = l->ab_gbs < l->ba_gbs ? l->ab_gbs : l->ba_gbs;
        }
    for (int i = 0; i < w->nlinks; i++)
        w->links[i].slow = 0;
    if (m >= 3) { /* siblings to compare with: two links cannot tell which is the odd one */
        double ml = median(lat, m), mb = median(bw, m);
        for (int i = 0; i < w->nlinks; i++) {
            struct wr_link *l = &w->links[i];
            if (!l->measured)
                continue;
            double slow_bw = l->ab_gbs < l->ba_gbs ? l->ab_gbs : l->ba_gbs;
            int by_lat = l->lat_us > LAT_FACTOR * ml && l->lat_us > ml + LAT_FLOOR_US;
            int by_bw = slow_bw < BW_FACTOR * mb;
            if (!by_lat && !by_bw)
                continue;
            l->slow = 1;
            nslow++;
            snprintf(l->slow_why, sizeof l->slow_why,
                     "latency %.1f us (median %.1f us), bandwidth %.3g / %.3g GB/s (median %.3g GB/s)", l->lat_us, ml,
                     l->ab_gbs, l->ba_gbs, mb);
        }
    }
    free(lat);
    free(bw);
    return nslow;
}

void wiring_flag_slow(struct wr_result *w, const char *const *names)
{
    wiring_mark_slow(w);
    for (int i = 0; i < w->nlinks; i++) {
        const struct wr_link *l = &w->links[i];
        if (l->slow)
            wiring_add_problem(w, 0, "the link %s-%s (%s %s - %s %s) is well below the others: %s; check its cable",
                               names[l->a], names[l->b], names[l->a], l->a_if, names[l->b], l->b_if, l->slow_why);
    }
}

void wiring_free(struct wr_result *w)
{
    free(w->links);
    free(w->problems);
    memset(w, 0, sizeof *w);
}

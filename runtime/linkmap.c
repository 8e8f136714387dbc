/*
 * linkmap.c — the job's links as one line of text (see linkmap.h).
 */
#include "runtime/linkmap.h"
#include "runtime/errors.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int linkmap_init(struct linkmap *m, int nhost, int nrank)
{
    memset(m, 0, sizeof *m);
    size_t hh = (size_t)nhost * (size_t)nhost;
    m->nhost = nhost;
    m->nrank = nrank;
    m->name = calloc((size_t)nhost, sizeof *m->name);
    m->host_of = calloc(nrank > 0 ? (size_t)nrank : 1, sizeof *m->host_of);
    m->alpha_us = calloc(hh, sizeof *m->alpha_us);
    m->beta_ns = calloc(hh, sizeof *m->beta_ns);
    m->state = malloc(hh);
    if (!m->name || !m->host_of || !m->alpha_us || !m->beta_ns || !m->state) {
        linkmap_free(m);
        return -1;
    }
    memset(m->state, LINK_NONE, hh);
    return 0;
}

void linkmap_free(struct linkmap *m)
{
    for (int i = 0; m->name && i < m->nhost; i++)
        free(m->name[i]);
    free(m->name);
    free(m->host_of);
    free(m->alpha_us);
    free(m->beta_ns);
    free(m->state);
    memset(m, 0, sizeof *m);
}

void linkmap_set(struct linkmap *m, int a, int b, double alpha_us, double beta_ns, enum linkmap_state st)
{
    size_t ab = (size_t)a * (size_t)m->nhost + (size_t)b, ba = (size_t)b * (size_t)m->nhost + (size_t)a;
    m->alpha_us[ab] = m->alpha_us[ba] = alpha_us;
    m->beta_ns[ab] = m->beta_ns[ba] = beta_ns;
    m->state[ab] = m->state[ba] = (unsigned char)st;
}

int linkmap_name(struct linkmap *m, int host, const char *name, char *err, size_t cap)
{
    if (*name == '\0' || strpbrk(name, ",/ \t\n") != NULL)
        return bolt_errbuf(err, cap, "host name '%s' cannot describe a link (it holds a comma, a slash or a blank)",
                           name);
    free(m->name[host]);
    m->name[host] = strdup(name);
    return m->name[host] ? 0 : bolt_errbuf(err, cap, "out of memory");
}

/* A growing string; sticky failure. */
struct sbuf {
    char *p;
    size_t len, cap;
    int failed;
};

static void sb_add(struct sbuf *s, const char *fmt, ...) BOLT_PRINTF(2, 3);
static void sb_add(struct sbuf *s, const char *fmt, ...)
{
    for (int tries = 0; !s->failed && tries < 2; tries++) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(s->p ? s->p + s->len : NULL, s->p ? s->cap - s->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            s->failed = 1;
        } else if (s->p && (size_t)n < s->cap - s->len) {
            s->len += (size_t)n;
            return;
        } else {
            size_t cap = (s->cap + (size_t)n + 1) * 2;
            char *p = realloc(s->p, cap);
            if (p == NULL)
                s->failed = 1;
            s->p = p ? p : s->p;
            s->cap = p ? cap : s->cap;
        }
    }
}

int linkmap_format(const struct linkmap *m, char **out)
{
    struct sbuf s = {0};
    sb_add(&s, "1 hosts=");
    for (int h = 0; h < m->nhost; h++)
        sb_add(&s, "%s%s", h ? "," : "", m->name[h] ? m->name[h] : "?");
    sb_add(&s, " ranks=");
    for (int r = 0; r < m->nrank;) {
        int k = 1;
        while (r + k < m->nrank && m->host_of[r + k] == m->host_of[r])
            k++;
        sb_add(&s, k > 1 ? "%s%d*%d" : "%s%d", r ? "," : "", m->host_of[r], k);
        r += k;
    }
    sb_add(&s, " links=");
    const char *sep = "";
    for (int a = 0; a < m->nhost; a++)
        for (int b = a + 1; b < m->nhost; b++, sep = ",") {
            size_t i = (size_t)a * (size_t)m->nhost + (size_t)b;
            if (m->state[i] == LINK_NONE)
                sb_add(&s, "%snone", sep);
            else
                sb_add(&s, "%s%.6g/%.6g%s", sep, m->alpha_us[i], m->beta_ns[i], m->state[i] == LINK_SLOW ? "/slow" : "");
        }
    if (s.failed) {
        free(s.p);
        s.p = NULL;
    }
    *out = s.p;
    return s.p ? 0 : -1;
}

static int count_items(const char *list)
{
    int n = 1;
    for (const char *p = list; *p; p++)
        n += *p == ',';
    return n;
}

static int parse_num(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return *s == '\0' || *end != '\0' || errno != 0 || !isfinite(*out) || *out < 0 ? -1 : 0;
}

static int parse_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

/* "H" or "H*K" items; the ranks they add up to must be nrank. */
static int parse_ranks(struct linkmap *m, char *list, int nrank_max, const char *what, char *err, size_t cap)
{
    char *save = NULL;
    int r = 0;
    for (char *it = strtok_r(list, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
        char *star = strchr(it, '*');
        int h, k = 1;
        if (star)
            *star = '\0';
        if (parse_int(it, 0, m->nhost - 1, &h) != 0 || (star && parse_int(star + 1, 1, nrank_max, &k) != 0) ||
            r + k > nrank_max)
            return bolt_errbuf(err, cap, "%s: ranks= item '%s%s%s' is not HOST or HOST*COUNT with HOST below %d",
                               what, it, star ? "*" : "", star ? star + 1 : "", m->nhost);
        for (int i = 0; i < k; i++)
            m->host_of[r++] = h;
    }
    m->nrank = r;
    return 0;
}

static int parse_links(struct linkmap *m, char *list, const char *what, char *err, size_t cap)
{
    char *save = NULL, *it = strtok_r(list, ",", &save);
    for (int a = 0; a < m->nhost; a++)
        for (int b = a + 1; b < m->nhost; b++, it = strtok_r(NULL, ",", &save)) {
            if (it == NULL)
                return bolt_errbuf(err, cap, "%s: links= has no item for hosts %d and %d (it needs %d)", what, a, b,
                                   m->nhost * (m->nhost - 1) / 2);
            if (strcmp(it, "none") == 0)
                continue;
            char *s1 = strchr(it, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
            double al, be;
            int bad = s1 == NULL || (s2 && strcmp(s2 + 1, "slow") != 0);
            if (s1)
                *s1 = '\0';
            if (s2)
                *s2 = '\0';
            if (bad || parse_num(it, &al) != 0 || parse_num(s1 + 1, &be) != 0)
                return bolt_errbuf(err, cap, "%s: links= item %d (hosts %d and %d) is not ALPHA_US/BETA_NS[/slow] or "
                                   "none", what, a * m->nhost - a * (a + 1) / 2 + (b - a - 1) + 1, a, b);
            linkmap_set(m, a, b, al, be, s2 ? LINK_SLOW : LINK_OK);
        }
    if (it != NULL)
        return bolt_errbuf(err, cap, "%s: links= has more items than the %d pairs of %d hosts", what,
                           m->nhost * (m->nhost - 1) / 2, m->nhost);
    return 0;
}

int linkmap_parse(struct linkmap *m, const char *text, const char *what, char *err, size_t cap)
{
    char *copy = strdup(text), *save = NULL;
    char *hosts = NULL, *ranks = NULL, *links = NULL;
    int rc = copy ? 0 : bolt_errbuf(err, cap, "out of memory");
    memset(m, 0, sizeof *m);
    char *w = rc ? NULL : strtok_r(copy, " ", &save);
    if (rc == 0 && (w == NULL || strcmp(w, "1") != 0))
        rc = bolt_errbuf(err, cap, "%s: not a link map of format 1 (boltrun --calibration sets it; unset it or run "
                         "through boltrun)", what);
    for (w = rc ? NULL : strtok_r(NULL, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (strncmp(w, "hosts=", 6) == 0)
            hosts = w + 6;
        else if (strncmp(w, "ranks=", 6) == 0)
            ranks = w + 6;
        else if (strncmp(w, "links=", 6) == 0)
            links = w + 6;
        /* other keys: a later boltrun's, skipped */
    }
    if (rc == 0 && (!hosts || !ranks || !links || !*hosts || !*ranks))
        rc = bolt_errbuf(err, cap, "%s: needs hosts=, ranks= and links=", what);
    const long nrank_max = 1 << 24;
    if (rc == 0 && count_items(hosts) > LINKMAP_MAX_HOSTS)
        rc = bolt_errbuf(err, cap, "%s: more than %d hosts", what, LINKMAP_MAX_HOSTS);
    if (rc == 0 && linkmap_init(m, count_items(hosts), 0) != 0)
        rc = bolt_errbuf(err, cap, "out of memory");
    if (rc == 0) {
        char *hs = NULL;
        int h = 0;
        for (char *n = strtok_r(hosts, ",", &hs); rc == 0 && n; n = strtok_r(NULL, ",", &hs))
            rc = linkmap_name(m, h++, n, err, cap);
        if (rc == 0 && h != m->nhost)
            rc = bolt_errbuf(err, cap, "%s: hosts= has an empty name", what);
    }
    if (rc == 0) {
        /* ranks: sized by the sum of the items */
        long total = 0;
        for (const char *p = ranks; *p;) {
            size_t len = strcspn(p, ",");
            const char *star = memchr(p, '*', len);
            long k = star ? strtol(star + 1, NULL, 10) : 1;
            total += k > 0 && k <= nrank_max ? k : k > 0 ? nrank_max + 1 : 1;
            if (total > nrank_max)
                break;
            p += p[len] ? len + 1 : len;
        }
        if (total > nrank_max)
            rc = bolt_errbuf(err, cap, "%s: ranks= describes more than %ld ranks", what, nrank_max);
        int *ho = rc ? NULL : calloc((size_t)total, sizeof *ho);
        if (rc == 0 && ho == NULL)
            rc = bolt_errbuf(err, cap, "out of memory");
        if (ho) {
            free(m->host_of);
            m->host_of = ho;
            rc = parse_ranks(m, ranks, (int)total, what, err, cap);
        }
    }
    if (rc == 0)
        rc = parse_links(m, links, what, err, cap);
    if (rc != 0 && m->name)
        linkmap_free(m);
    free(copy);
    return rc;
}

/*
 * calibration.c — the calibration file, read for boltrun (see
 * calibration.h). Unknown keys are skipped (later versions may add some);
 * a bad value of a known key is an error naming file:line and the key.
 */
#include "runtime/calibration.h"
#include "runtime/errors.h"
#include "runtime/linkmap.h"
#include "runtime/textfile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALIB_MAX (64 << 20) /* bytes: thousands of hosts and links fit */

void calib_free(struct calibration *c)
{
    free(c->host);
    free(c->link);
    memset(c, 0, sizeof *c);
}

/* The value of `key=` among the line's words, or NULL. */
static const char *value_of(char **w, int nw, const char *key)
{
    size_t n = strlen(key);
    for (int i = 0; i < nw; i++)
        if (strncmp(w[i], key, n) == 0 && w[i][n] == '=')
            return w[i] + n + 1;
    return NULL;
}

static int number(char **w, int nw, const char *key, double *out, const char *fname, int line, char *err, size_t cap)
{
    const char *v = value_of(w, nw, key);
    char *end;
    if (v == NULL)
        return bolt_errbuf(err, cap, "%s:%d: %s= is missing", fname, line, key);
    errno = 0;
    *out = strtod(v, &end);
    if (*v == '\0' || *end != '\0' || errno != 0 || !isfinite(*out) || *out < 0)
        return bolt_errbuf(err, cap, "%s:%d: %s= expects a number of 0 or more, got '%s'", fname, line, key, v);
    return 0;
}

static int parse_line(struct calibration *c, char **w, int nw, const char *fname, int line, char *err, size_t cap)
{
    if (strcmp(w[0], "host") == 0) {
        double l2 = 0, cores = 0;
        if (nw < 2 || strchr(w[1], '=') != NULL)
            return bolt_errbuf(err, cap, "%s:%d: a host record starts 'host NAME'", fname, line);
        if ((value_of(w, nw, "l2") && number(w, nw, "l2", &l2, fname, line, err, cap) != 0) ||
            (value_of(w, nw, "cores") && number(w, nw, "cores", &cores, fname, line, err, cap) != 0))
            return -1;
        struct calib_host *h = realloc(c->host, (size_t)(c->nhost + 1) * sizeof *h);
        if (h == NULL)
            return bolt_errbuf(err, cap, "out of memory reading %s", fname);
        c->host = h;
        h = &h[c->nhost++];
        snprintf(h->name, sizeof h->name, "%s", w[1]);
        h->l2 = (unsigned long long)l2;
        h->cores = cores < 1e6 ? (int)cores : 1000000;
        return 0;
    }
    if (strcmp(w[0], "link") == 0) {
        struct calib_link l;
        memset(&l, 0, sizeof l);
        if (nw < 3 || strchr(w[1], '=') != NULL || strchr(w[2], '=') != NULL)
            return bolt_errbuf(err, cap, "%s:%d: a link record starts 'link HOST HOST'", fname, line);
        if (number(w, nw, "alpha_us", &l.alpha_us, fname, line, err, cap) != 0 ||
            number(w, nw, "beta_ab_ns", &l.beta_ab_ns, fname, line, err, cap) != 0 ||
            number(w, nw, "beta_ba_ns", &l.beta_ba_ns, fname, line, err, cap) != 0)
            return -1;
        const char *slow = value_of(w, nw, "slow");
        if (slow && strcmp(slow, "0") != 0 && strcmp(slow, "1") != 0)
            return bolt_errbuf(err, cap, "%s:%d: slow= expects 0 or 1, got '%s'", fname, line, slow);
        l.slow = slow && strcmp(slow, "1") == 0;
        snprintf(l.a, sizeof l.a, "%s", w[1]);
        snprintf(l.b, sizeof l.b, "%s", w[2]);
        struct calib_link *p = realloc(c->link, (size_t)(c->nlink + 1) * sizeof *p);
        if (p == NULL)
            return bolt_errbuf(err, cap, "out of memory reading %s", fname);
        c->link = p;
        p[c->nlink++] = l;
        return 0;
    }
    return bolt_errbuf(err, cap, "%s:%d: unknown record '%s' (host or link)", fname, line, w[0]);
}

struct calib_walk {
    struct calibration *c;
    const char *fname;
    char *err;
    size_t cap;
    int seen_header;
};

static int calib_line(void *arg, char **w, int nw, int line)
{
    struct calib_walk *k = arg;
    if (k->seen_header)
        return parse_line(k->c, w, nw, k->fname, line, k->err, k->cap);
    k->seen_header = 1;
    if (nw != 2 || strcmp(w[0], "bolt-calibration") != 0)
        return bolt_errbuf(k->err, k->cap, "%s:%d: not a calibration file (it starts 'bolt-calibration 1'; bolt-cluster "
                           "check --write-calibration writes one)", k->fname, line);
    if (strcmp(w[1], "1") != 0)
        return bolt_errbuf(k->err, k->cap, "%s:%d: calibration format %s; this boltrun reads format 1", k->fname, line,
                           w[1]);
    return 0;
}

int calib_parse(struct calibration *c, const char *text, const char *fname, char *err, size_t cap)
{
    memset(c, 0, sizeof *c);
    struct calib_walk k = {c, fname, err, cap, 0};
    int rc = bolt_textfile_lines(text, fname, calib_line, &k, err, cap);
    if (rc == 0 && !k.seen_header)
        rc = bolt_errbuf(err, cap, "%s: empty calibration file", fname);
    if (rc != 0)
        calib_free(c);
    return rc;
}

int calib_load(struct calibration *c, const char *path, char *err, size_t cap)
{
    char *text;
    const int e = bolt_textfile_read(path, CALIB_MAX, &text);
    if (e != 0) {
        memset(c, 0, sizeof *c);
        return e == EFBIG ? bolt_errbuf(err, cap, "%s: larger than %d bytes: not a calibration file", path, CALIB_MAX)
                          : bolt_errbuf(err, cap, "cannot read the calibration file %s: %s", path, strerror(e));
    }
    const int rc = calib_parse(c, text, path, err, cap);
    free(text);
    return rc;
}

static const struct calib_link *find_link(const struct calibration *c, const char *a, const char *b)
{
    for (int i = 0; i < c->nlink; i++)
        if ((strcmp(c->link[i].a, a) == 0 && strcmp(c->link[i].b, b) == 0) ||
            (strcmp(c->link[i].a, b) == 0 && strcmp(c->link[i].b, a) == 0))
            return &c->link[i];
    return NULL;
}

int calib_linkmap(const struct calibration *c, const char *const *names, int nhost, const int *host_of, int nrank,
                  struct linkmap *m, unsigned long long *l2, char *err, size_t cap)
{
    unsigned long long cache = 0;
    int rc = linkmap_init(m, nhost, nrank) == 0 ? 0 : bolt_errbuf(err, cap, "out of memory");
    for (int i = 0; rc == 0 && i < nhost; i++) {
        rc = linkmap_name(m, i, names[i], err, cap);
        for (int j = i + 1; rc == 0 && j < nhost; j++) {
            const struct calib_link *l = find_link(c, names[i], names[j]);
            double beta = l && l->beta_ab_ns > l->beta_ba_ns ? l->beta_ab_ns : l ? l->beta_ba_ns : 0;
            if (l)
                linkmap_set(m, i, j, l->alpha_us, beta, l->slow ? LINK_SLOW : LINK_OK);
        }
        for (int k = 0; k < c->nhost; k++)
            if (strcmp(c->host[k].name, names[i]) == 0 && c->host[k].l2 && (cache == 0 || c->host[k].l2 < cache))
                cache = c->host[k].l2;
    }
    for (int r = 0; rc == 0 && r < nrank; r++)
        m->host_of[r] = host_of[r];
    if (rc != 0 && m->name)
        linkmap_free(m);
    *l2 = cache;
    return rc;
}

int calib_knows(const struct calibration *c, const char *name)
{
    for (int k = 0; k < c->nhost; k++)
        if (strcmp(c->host[k].name, name) == 0)
            return 1;
    for (int k = 0; k < c->nlink; k++)
        if (strcmp(c->link[k].a, name) == 0 || strcmp(c->link[k].b, name) == 0)
            return 1;
    return 0;
}

int calib_missing(const struct linkmap *m, int *a, int *b)
{
    for (int i = 0; i < m->nhost; i++)
        for (int j = i + 1; j < m->nhost; j++)
            if (m->state[(size_t)i * (size_t)m->nhost + (size_t)j] == LINK_NONE) {
                *a = i;
                *b = j;
                return 1;
            }
    return 0;
}

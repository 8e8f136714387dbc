/*
 * calibration.c — the calibration file, read for boltrun (see
 * calibration.h). Unknown keys are skipped (later versions may add some);
 * a bad value of a known key is an error naming file:line and the key.
 */
#include "launcher/calibration.h"
#include "runtime/errors.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        double l2 = 0;
        if (nw < 2 || strchr(w[1], '=') != NULL)
            return bolt_errbuf(err, cap, "%s:%d: a host record starts 'host NAME'", fname, line);
        if (value_of(w, nw, "l2") && number(w, nw, "l2", &l2, fname, line, err, cap) != 0)
            return -1;
        struct calib_host *h = realloc(c->host, (size_t)(c->nhost + 1) * sizeof *h);
        if (h == NULL)
            return bolt_errbuf(err, cap, "out of memory reading %s", fname);
        c->host = h;
        h = &h[c->nhost++];
        snprintf(h->name, sizeof h->name, "%s", w[1]);
        h->l2 = (unsigned long long)l2;
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

int calib_parse(struct calibration *c, const char *text, const char *fname, char *err, size_t cap)
{
    memset(c, 0, sizeof *c);
    int line = 0, seen_header = 0, rc = 0;
    for (const char *p = text; *p && rc == 0;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char buf[4096], *w[64];
        int nw = 0;
        line++;
        if (len >= sizeof buf) {
            rc = bolt_errbuf(err, cap, "%s:%d: line too long", fname, line);
            break;
        }
        memcpy(buf, p, len);
        buf[len] = '\0';
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        for (char *save = NULL, *t = strtok_r(buf, " \t\r", &save); t && nw < 64; t = strtok_r(NULL, " \t\r", &save))
            w[nw++] = t;
        p += len + (nl != NULL);
        if (nw == 0)
            continue;
        if (!seen_header) {
            if (nw != 2 || strcmp(w[0], "bolt-calibration") != 0)
                rc = bolt_errbuf(err, cap, "%s:%d: not a calibration file (it starts 'bolt-calibration 1'; bolt-cluster "
                          "check --write-calibration writes one)", fname, line);
            else if (strcmp(w[1], "1") != 0)
                rc = bolt_errbuf(err, cap, "%s:%d: calibration format %s; this boltrun reads format 1", fname, line, w[1]);
            seen_header = 1;
            continue;
        }
        rc = parse_line(c, w, nw, fname, line, err, cap);
    }
    if (rc == 0 && !seen_header)
        rc = bolt_errbuf(err, cap, "%s: empty calibration file", fname);
    if (rc != 0)
        calib_free(c);
    return rc;
}

int calib_load(struct calibration *c, const char *path, char *err, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return bolt_errbuf(err, cap, "cannot read the calibration file %s: %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0, have = 0;
    int rc = 0;
    for (;;) {
        if (have - len < 4096) {
            char *n = realloc(text, have + 65536);
            if (n == NULL) {
                rc = bolt_errbuf(err, cap, "out of memory reading %s", path);
                break;
            }
            text = n;
            have += 65536;
        }
        size_t r = fread(text + len, 1, have - len - 1, f);
        len += r;
        if (r == 0)
            break;
    }
    if (rc == 0 && ferror(f))
        rc = bolt_errbuf(err, cap, "cannot read the calibration file %s: %s", path, strerror(errno));
    fclose(f);
    if (rc == 0) {
        text[len] = '\0';
        rc = calib_parse(c, text, path, err, cap);
    }
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

int calib_model(const struct calibration *c, const char *const *names, int n, double *alpha_us,
                double *beta_ns_per_kb, unsigned long long *l2, char *err, size_t cap)
{
    double a = 0, b = 0;
    unsigned long long cache = 0;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            const struct calib_link *l = find_link(c, names[i], names[j]);
            if (l == NULL)
                return bolt_errbuf(err, cap, "the calibration has no link between %s and %s (run bolt-cluster check on "
                            "these hosts again)", names[i], names[j]);
            a = l->alpha_us > a ? l->alpha_us : a;
            b = l->beta_ab_ns > b ? l->beta_ab_ns : b;
            b = l->beta_ba_ns > b ? l->beta_ba_ns : b;
        }
        for (int k = 0; k < c->nhost; k++)
            if (strcmp(c->host[k].name, names[i]) == 0 && c->host[k].l2 && (cache == 0 || c->host[k].l2 < cache))
                cache = c->host[k].l2;
    }
    *alpha_us = a;
    *beta_ns_per_kb = b * 1024;
    *l2 = cache;
    return 0;
}

/*
 * hostlist.c — parsing --host and hostfiles, and placing ranks on hosts
 * (see hostlist.h). Names follow Open MPI's mpirun.
 */
#include "launcher/hostlist.h"
#include "runtime/errors.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SLOTS 100000

void hostlist_init(struct hostlist *l)
{
    memset(l, 0, sizeof *l);
}

void hostlist_free(struct hostlist *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->h[i].ranks);
    free(l->h);
    free(l->host_of);
    memset(l, 0, sizeof *l);
}

/* A host name: letters, digits, '-', '.', '_' (and ':' is the slot separator). */
static int valid_name(const char *s, size_t n)
{
    if (n == 0 || n > HOSTLIST_MAX_NAME)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
              c == '.' || c == '_'))
            return 0;
    }
    return 1;
}

static int add_host(struct hostlist *l, const char *name, size_t n, int slots, char *err, size_t cap)
{
    for (int i = 0; i < l->n; i++)
        if (strlen(l->h[i].name) == n && memcmp(l->h[i].name, name, n) == 0) {
            if (l->h[i].slots + slots > MAX_SLOTS)
                return bolt_errbuf(err, cap, "host %s has more than %d slots", l->h[i].name, MAX_SLOTS);
            l->h[i].slots += slots;
            l->total_slots += slots;
            return 0;
        }
    if (l->n == l->cap) {
        int nc = l->cap ? 2 * l->cap : 8;
        struct hostlist_host *h = realloc(l->h, (size_t)nc * sizeof *h);
        if (h == NULL)
            return bolt_errbuf(err, cap, "out of memory for the host list");
        l->h = h;
        l->cap = nc;
    }
    struct hostlist_host *h = &l->h[l->n++];
    memset(h, 0, sizeof *h);
    memcpy(h->name, name, n);
    h->name[n] = '\0';
    h->slots = slots;
    l->total_slots += slots;
    return 0;
}

static int parse_count(const char *s, size_t n, int *out)
{
    if (n == 0 || n > 6)
        return -1;
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v <= 0 || v > MAX_SLOTS)
        return -1;
    *out = v;
    return 0;
}

int hostlist_add_spec(struct hostlist *l, const char *spec, char *err, size_t cap)
{
    const char *p = spec;
    if (*p == '\0')
        return bolt_errbuf(err, cap, "--host expects HOST[:SLOTS][,HOST[:SLOTS]...], got an empty list");
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        size_t nl = colon ? (size_t)(colon - p) : len;
        int slots = 1;
        if (!valid_name(p, nl))
            return bolt_errbuf(err, cap, "--host: '%.*s' is not a host name (letters, digits, '-', '.', '_')", (int)len,
                        p);
        if (colon && parse_count(colon + 1, len - nl - 1, &slots) != 0)
            return bolt_errbuf(err, cap, "--host: '%.*s': the slot count after ':' must be a positive integer", (int)len,
                        p);
        if (add_host(l, p, nl, slots, err, cap) != 0)
            return -1;
        if (!end)
            return 0;
        p = end + 1;
    }
}

int hostlist_add_text(struct hostlist *l, const char *text, const char *fname, char *err, size_t cap)
{
    int line = 0;
    const char *p = text;
    while (*p) {
        line++;
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *hash = memchr(p, '#', len);
        if (hash)
            len = (size_t)(hash - p);
        /* Fields separated by blanks: the host, then key=value pairs. */
        const char *q = p, *stop = p + len;
        const char *name = NULL;
        size_t nl = 0;
        int slots = 1;
        while (q < stop) {
            while (q < stop && (*q == ' ' || *q == '\t' || *q == '\r'))
                q++;
            if (q >= stop)
                break;
            const char *f = q;
            while (q < stop && *q != ' ' && *q != '\t' && *q != '\r')
                q++;
            size_t fl = (size_t)(q - f);
            if (name == NULL) {
                if (!valid_name(f, fl))
                    return bolt_errbuf(err, cap, "%s:%d: '%.*s' is not a host name", fname, line, (int)fl, f);
                name = f;
                nl = fl;
            } else if (fl > 6 && memcmp(f, "slots=", 6) == 0) {
                if (parse_count(f + 6, fl - 6, &slots) != 0)
                    return bolt_errbuf(err, cap, "%s:%d: slots= expects a positive integer, got '%.*s'", fname, line,
                                (int)(fl - 6), f + 6);
            } else if (fl > 10 && memcmp(f, "max_slots=", 10) == 0) {
                int ignored;
                if (parse_count(f + 10, fl - 10, &ignored) != 0)
                    return bolt_errbuf(err, cap, "%s:%d: max_slots= expects a positive integer, got '%.*s'", fname,
                                line, (int)(fl - 10), f + 10);
            } else {
                return bolt_errbuf(err, cap, "%s:%d: unknown field '%.*s' (expected slots=N)", fname, line, (int)fl,
                            f);
            }
        }
        if (name && add_host(l, name, nl, slots, err, cap) != 0)
            return -1;
        if (!eol)
            break;
        p = eol + 1;
    }
    return 0;
}

int hostlist_add_file(struct hostlist *l, const char *path, char *err, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return bolt_errbuf(err, cap, "cannot open hostfile %s: %s", path, strerror(errno));
    size_t n = 0, c = 4096;
    char *buf = malloc(c);
    for (;;) {
        if (buf == NULL) {
            fclose(f);
            return bolt_errbuf(err, cap, "out of memory reading hostfile %s", path);
        }
        n += fread(buf + n, 1, c - n - 1, f);
        if (n < c - 1)
            break;
        if (c > (1u << 24)) {
            free(buf);
            fclose(f);
            return bolt_errbuf(err, cap, "hostfile %s is larger than 16 MiB", path);
        }
        c *= 2;
        char *nb = realloc(buf, c);
        if (nb == NULL)
            free(buf);
        buf = nb;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return bolt_errbuf(err, cap, "cannot read hostfile %s", path);
    }
    buf[n] = '\0';
    if (strlen(buf) != n) {
        free(buf);
        return bolt_errbuf(err, cap, "hostfile %s contains a NUL byte; is it a text file?", path);
    }
    int rc = hostlist_add_text(l, buf, path, err, cap);
    free(buf);
    if (rc == 0 && l->n == 0)
        return bolt_errbuf(err, cap, "hostfile %s names no host", path);
    return rc;
}

int hostlist_place(struct hostlist *l, int np, int by_node, char *err, size_t cap)
{
    if (l->n == 0)
        return bolt_errbuf(err, cap, "no hosts to place ranks on");
    if (np <= 0)
        np = l->total_slots;
    if (np > l->total_slots)
        return bolt_errbuf(err, cap, "-np %d is more than the %d slot(s) of the hosts given; add slots (host:N or "
                              "slots=N) or start fewer ranks", np, l->total_slots);
    free(l->host_of);
    l->host_of = malloc((size_t)np * sizeof *l->host_of);
    if (l->host_of == NULL)
        return bolt_errbuf(err, cap, "out of memory placing %d ranks", np);
    for (int i = 0; i < l->n; i++) {
        free(l->h[i].ranks);
        l->h[i].ranks = NULL;
        l->h[i].nranks = 0;
    }
    int host = 0;
    for (int r = 0; r < np; r++) {
        if (by_node) {
            while (l->h[host].nranks == l->h[host].slots)
                host = (host + 1) % l->n;
        } else {
            while (l->h[host].nranks == l->h[host].slots)
                host++;
        }
        l->host_of[r] = host;
        l->h[host].nranks++;
        if (by_node)
            host = (host + 1) % l->n;
    }
    for (int i = 0; i < l->n; i++) {
        l->h[i].ranks = malloc((size_t)(l->h[i].nranks ? l->h[i].nranks : 1) * sizeof(int));
        if (l->h[i].ranks == NULL)
            return bolt_errbuf(err, cap, "out of memory placing %d ranks", np);
        l->h[i].nranks = 0;
    }
    for (int r = 0; r < np; r++) {
        struct hostlist_host *h = &l->h[l->host_of[r]];
        h->ranks[h->nranks++] = r;
    }
    l->np = np;
    return 0;
}

/* topo.c — the topology summary: loading through a backend, printing. */
#include "runtime/topo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bolt.h"
#include "runtime/hostid.h"

int bolt_topo_load(struct bolt_topo *t)
{
    memset(t, 0, sizeof *t);
    if (gethostname(t->host, sizeof t->host - 1) != 0)
        snprintf(t->host, sizeof t->host, "unknown-host");
    /* An identity that cannot be read is not fatal: topology is still useful. */
    if (bolt_host_id(t->host_id, sizeof t->host_id) != BOLT_OK)
        snprintf(t->host_id, sizeof t->host_id, "unknown");
    int rc = bolt_topo_backend_load(t);
    if (rc != BOLT_OK) {
        bolt_topo_free(t);
        return rc;
    }
    t->bound = t->pus_avail < t->pus;
    return BOLT_OK;
}

int bolt_topo_local(int *cores, int *bound)
{
    struct bolt_topo t;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    *cores = n > 0 ? (int)n : 1;
    *bound = 0;
    int rc = bolt_topo_load(&t);
    if (rc == BOLT_OK) {
        *cores = t.cores_avail;
        *bound = t.bound;
        bolt_topo_free(&t);
    }
    const char *env = getenv("BOLT_LOCAL_CORES");
    if (env != NULL) {
        char *end;
        errno = 0;
        long v = strtol(env, &end, 10);
        if (*env != '\0' && *end == '\0' && errno == 0 && v > 0 && v < (1L << 24))
            *cores = (int)v;
    }
    return rc;
}

void bolt_topo_free(struct bolt_topo *t)
{
    free(t->core);
    free(t->pu);
    t->core = NULL;
    t->pu = NULL;
    t->ncore = t->npu = 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void append(char *out, size_t cap, size_t *len, const char *fmt, int a, int b)
{
    if (*len >= cap)
        return;
    int w = snprintf(out + *len, cap - *len, fmt, *len ? "," : "", a, b);
    *len = w < 0 ? cap : *len + (size_t)w;
}

char *bolt_topo_cpulist(const int *pus, int n, char *out, size_t cap)
{
    size_t len = 0;
    if (cap == 0)
        return out;
    out[0] = '\0';
    /* Sorted, and runs as "a-b": the kernel's Cpus_allowed_list format. */
    int *s = n > 0 ? malloc((size_t)n * sizeof *s) : NULL;
    if (s == NULL) {
        if (n > 0)
            snprintf(out, cap, "?");
        return out;
    }
    memcpy(s, pus, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_int);
    for (int i = 0; i < n; i++) {
        int j = i;
        while (j + 1 < n && s[j + 1] == s[j] + 1)
            j++;
        if (j > i) {
            append(out, cap, &len, "%s%d-%d", s[i], s[j]);
            i = j;
        } else {
            append(out, cap, &len, "%s%d", s[i], 0);
        }
    }
    free(s);
    return out;
}

static void plural(FILE *out, int n, const char *what, const char *sep)
{
    if (n > 0)
        fprintf(out, "%s%d %s%s", sep, n, what, n == 1 ? "" : "s");
}

void bolt_topo_print_summary(FILE *out, const struct bolt_topo *t)
{
    fprintf(out, "%d core%s, %d PU%s", t->cores, t->cores == 1 ? "" : "s", t->pus, t->pus == 1 ? "" : "s");
    plural(out, t->packages, "package", ", ");
    plural(out, t->numa_nodes, "NUMA node", ", ");
    fprintf(out, " (%s)", t->from_hwloc ? "hwloc" : "sysconf; build with hwloc for more");
}

static void print_size(FILE *out, unsigned long long b)
{
    if (b >= (1ULL << 20) && b % (1ULL << 20) == 0)
        fprintf(out, "%llu MiB", b >> 20);
    else if (b >= 1024)
        fprintf(out, "%llu KiB", b >> 10);
    else
        fprintf(out, "%llu B", b);
}

void bolt_topo_print(FILE *out, const struct bolt_topo *t)
{
    static const char *const cache_name[BOLT_TOPO_CACHE_LEVELS] = {"L1d", "L2", "L3"};
    fprintf(out, "host        : %s\n", t->host);
    fprintf(out, "host id     : %s\n", t->host_id);
    fprintf(out, "source      : %s\n", t->from_hwloc ? "hwloc" : "sysconf (this Bolt was built without hwloc)");
    if (t->packages > 0)
        fprintf(out, "packages    : %d\n", t->packages);
    else
        fprintf(out, "packages    : unknown\n");
    if (t->numa_nodes > 0)
        fprintf(out, "NUMA nodes  : %d\n", t->numa_nodes);
    else
        fprintf(out, "NUMA nodes  : unknown\n");
    fprintf(out, "cores       : %d\n", t->cores);
    fprintf(out, "PUs         : %d\n", t->pus);
    for (int l = 0; l < BOLT_TOPO_CACHE_LEVELS; l++) {
        if (t->cache_count[l] == 0)
            continue;
        fprintf(out, "%-11s : %d x ", cache_name[l], t->cache_count[l]);
        print_size(out, t->cache_bytes[l]);
        fputc('\n', out);
    }
    fprintf(out, "usable here : %d core%s, %d PU%s%s\n", t->cores_avail, t->cores_avail == 1 ? "" : "s",
            t->pus_avail, t->pus_avail == 1 ? "" : "s", t->bound ? " (this process is bound)" : "");
    if (t->npu > 0) {
        char list[1024];
        fprintf(out, "PUs here    : %s\n", bolt_topo_cpulist(t->pu, t->npu, list, sizeof list));
    }
    fprintf(out, "binding     : %s\n", t->can_bind ? "supported" : "not supported on this host or build");
}

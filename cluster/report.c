/*
 * report.c — a cluster check for people: the hosts, the wiring and its
 * problems, a map in the terminal, and the map for graphviz (see report.h).
 */
#include "cluster/report.h"

#include <errno.h>
#include <string.h>

static void human_bytes(uint64_t b, char *out, size_t cap)
{
    if (b >= (1ull << 30))
        snprintf(out, cap, "%.1f GiB", b / 1073741824.0);
    else
        snprintf(out, cap, "%.0f MiB", b / 1048576.0);
}

static const char *port_state(uint32_t s)
{
    static const char *const names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
    return s < sizeof names / sizeof names[0] ? names[s] : "?";
}

static void host_text(FILE *f, const struct cl_check *c, int i)
{
    const struct ck_info *in = &c->info[i];
    if (!c->ok[i]) {
        fprintf(f, "%s: UNREACHABLE: %s\n", c->names[i], c->why[i]);
        return;
    }
    char mem[32];
    human_bytes(in->mem, mem, sizeof mem);
    fprintf(f, "%s: %s %s %s, Bolt %s%s, %u cores, %s memory\n", c->names[i], in->os, in->os_release, in->machine,
            in->version, strcmp(in->version, PACKAGE_VERSION) ? " (DIFFERS)" : "", in->cores, mem);
    if (in->cache[0] || in->cache[1] || in->cache[2])
        fprintf(f, "  %u PUs; caches: L1d %llu KiB, L2 %llu KiB, L3 %llu KiB\n", in->pus,
                (unsigned long long)in->cache[0] >> 10, (unsigned long long)in->cache[1] >> 10,
                (unsigned long long)in->cache[2] >> 10);
    if (in->nrdma == 0)
        fprintf(f, "  rdma: none (%s)\n", in->rdma_note);
    for (uint32_t k = 0; k < in->nrdma; k++) {
        const struct ck_rdma *d = &in->rdma[k];
        fprintf(f, "  rdma: %s port 1 %s, %s, MTU %u%s", d->name, port_state(d->port_state), d->link_layer, d->mtu,
                d->ngids ? ", GID" : "");
        for (uint32_t g = 0; g < d->ngids; g++)
            fprintf(f, " %s", d->gids[g]);
        if (d->usable)
            fprintf(f, "; probed from %s", d->gid);
        else
            fprintf(f, "; not usable: %s", d->note);
        fputc('\n', f);
    }
    if (in->nrdma > 0 && in->rdma_note[0])
        fprintf(f, "  rdma: %s\n", in->rdma_note);
    fprintf(f, "  interfaces:");
    for (uint32_t k = 0; k < in->nifs; k++)
        fprintf(f, " %s %s/%u%s", in->ifs[k].name, in->ifs[k].addr, in->ifs[k].prefix,
                in->ifs[k].flags & CK_IF_UP ? "" : " (down)");
    fputc('\n', f);
}

static const struct wr_link *link_of(const struct cl_check *c, int a, int b)
{
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    for (int i = 0; i < c->w.nlinks; i++)
        if (c->w.links[i].a == a && c->w.links[i].b == b)
            return &c->w.links[i];
    return NULL;
}

static void link_text(FILE *f, const struct cl_check *c, const struct wr_link *l)
{
    fprintf(f, "  %s %s %s <-> %s %s %s: %s%s", c->names[l->a], l->a_if, l->a_addr, c->names[l->b], l->b_if,
            l->b_addr, l->cable ? "cable" : "shared network", l->ab && l->ba ? "" : ", ONE WAY ONLY");
    if (l->measured)
        fprintf(f, ", %.1f us, %.3g GB/s %s->%s, %.3g GB/s %s->%s%s", l->lat_us, l->ab_gbs, c->names[l->a],
                c->names[l->b], l->ba_gbs, c->names[l->b], c->names[l->a], l->slow ? "  SLOW" : "");
    fputc('\n', f);
}

void report_map(FILE *f, const struct cl_check *c)
{
    int w = 6;
    for (int i = 0; i < c->n; i++)
        if ((int)strlen(c->names[i]) + 1 > w)
            w = (int)strlen(c->names[i]) + 1;
    int cell = c->measured ? 16 : 8;
    fprintf(f, "map (== cable, -- shared network, -> one way only, XX not connected, ?? host unreachable%s):\n",
            c->measured ? "; us / GB/s the slower way, ! slow" : "");
    fprintf(f, "  %*s", w, "");
    for (int j = 0; j < c->n; j++)
        fprintf(f, " %-*s", cell, c->names[j]);
    fputc('\n', f);
    for (int i = 0; i < c->n; i++) {
        fprintf(f, "  %-*s", w, c->names[i]);
        for (int j = 0; j < c->n; j++) {
            char s[64];
            const struct wr_link *l = i == j ? NULL : link_of(c, i, j);
            if (i == j)
                snprintf(s, sizeof s, ".");
            else if (!c->ok[i] || !c->ok[j])
                snprintf(s, sizeof s, "??");
            else if (l == NULL)
                snprintf(s, sizeof s, "XX");
            else {
                const char *k = !(l->ab && l->ba) ? "->" : l->cable ? "==" : "--";
                if (l->measured)
                    snprintf(s, sizeof s, "%s %.0f/%.3g%s", k, l->lat_us,
                             l->ab_gbs < l->ba_gbs ? l->ab_gbs : l->ba_gbs, l->slow ? "!" : "");
                else
                    snprintf(s, sizeof s, "%s", k);
            }
            fprintf(f, " %-*s", cell, s);
        }
        fputc('\n', f);
    }
}

void report_text(FILE *f, const struct cl_check *c)
{
    int reached = 0;
    for (int i = 0; i < c->n; i++)
        reached += c->ok[i];
    fprintf(f, "hosts (%d of %d reached):\n", reached, c->n);
    for (int i = 0; i < c->n; i++)
        host_text(f, c, i);
    fprintf(f, "wiring: %s (%d cable%s between %d reachable hosts)\n", c->w.verdict, c->w.ncables,
            c->w.ncables == 1 ? "" : "s", reached);
    if (c->w.nlinks)
        fprintf(f, "links:\n");
    for (int i = 0; i < c->w.nlinks; i++)
        link_text(f, c, &c->w.links[i]);
    if (c->rd.nlinks)
        fprintf(f, "rdma (device pairs proven by an authenticated RDMA send):\n");
    for (int i = 0; i < c->rd.nlinks; i++) {
        const struct rd_link *l = &c->rd.links[i];
        fprintf(f, "  %s %s <-> %s %s: %s\n", c->names[l->a], c->info[l->a].rdma[l->adev].name, c->names[l->b],
                c->info[l->b].rdma[l->bdev].name, l->ab && l->ba ? "both ways" : "ONE WAY ONLY");
    }
    report_map(f, c);
    for (int i = 0; i < c->w.nproblems; i++)
        fprintf(f, "%s: %s\n", c->w.problems[i].fatal ? "problem" : "warning", c->w.problems[i].text);
    if (c->can_run)
        fprintf(f, "bolt-cluster: a job can run on these %d hosts\n", c->n);
    else
        fprintf(f, "bolt-cluster: a job cannot run on these hosts as wired (see the problems above)\n");
}

int report_dot(const char *path, const struct cl_check *c, char *err, size_t cap)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        snprintf(err, cap, "--dot %s: cannot write it: %s", path, strerror(errno));
        return -1;
    }
    /* Hosts on a circle; curved edges keep a mesh's crossing diagonals'
     * labels apart. */
    fprintf(f, "graph cluster {\n  layout=circo;\n  mindist=2.2;\n  splines=curved;\n"
               "  node [shape=box, style=rounded, fontsize=12];\n  edge [fontsize=10];\n");
    for (int i = 0; i < c->n; i++) {
        if (c->ok[i])
            fprintf(f, "  \"%s\" [label=\"%s\\n%u cores\"];\n", c->names[i], c->names[i], c->info[i].cores);
        else
            fprintf(f, "  \"%s\" [label=\"%s\\nunreachable\", color=red, fontcolor=red];\n", c->names[i],
                    c->names[i]);
    }
    for (int a = 0; a < c->n; a++)
        for (int b = a + 1; b < c->n; b++) {
            const struct wr_link *l = link_of(c, a, b);
            if (l == NULL) {
                if (c->ok[a] && c->ok[b])
                    fprintf(f, "  \"%s\" -- \"%s\" [style=dashed, color=red, fontcolor=red, label=\"missing\"];\n",
                            c->names[a], c->names[b]);
                continue;
            }
            char label[512];
            int o = snprintf(label, sizeof label, "%s %s - %s", l->cable ? "tcp" : "tcp (shared)", l->a_if, l->b_if);
            if (l->measured && o > 0 && (size_t)o < sizeof label)
                snprintf(label + o, sizeof label - (size_t)o, "\\n%.1f us, %.3g/%.3g GB/s", l->lat_us, l->ab_gbs,
                         l->ba_gbs);
            for (int k = 0; k < c->rd.nlinks; k++) {
                const struct rd_link *r = &c->rd.links[k];
                size_t used = strlen(label);
                if (r->a == a && r->b == b && r->ab && r->ba && used < sizeof label)
                    snprintf(label + used, sizeof label - used, "\\nrdma %s - %s", c->info[a].rdma[r->adev].name,
                             c->info[b].rdma[r->bdev].name);
            }
            fprintf(f, "  \"%s\" -- \"%s\" [label=\"%s\"%s%s%s];\n", c->names[a], c->names[b], label,
                    l->cable ? ", penwidth=2" : ", style=dotted", l->slow ? ", color=orange, fontcolor=orange" : "",
                    l->ab && l->ba ? "" : ", dir=forward, color=red");
        }
    fprintf(f, "}\n");
    int rc = ferror(f) ? -1 : 0;
    if (fclose(f) != 0 || rc != 0) {
        snprintf(err, cap, "--dot %s: write failed: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

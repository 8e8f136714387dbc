/*
 * bolt_cluster.c — bolt-cluster: checks a cluster before a job runs on it.
 *
 *   bolt-cluster check --hostfile H [--json] [--dot FILE] [--no-measure]
 *
 * It reaches every host as boltrun does (the remote shell, BOLT_RSH, starts
 * bolt-hostd, BOLT_HOSTD, which answers in check mode), reports each host,
 * proves which host is wired to which by an authenticated exchange over
 * every pair of addresses (cluster/probe.h) and every pair of RDMA devices
 * (cluster/rdma_paths.h), judges the wiring
 * (cluster/wiring.h), measures every link, and exits 0 only when a job can
 * run on the hosts as wired.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bolt.h"
#include "cluster/check.h"
#include "cluster/outfiles.h"
#include "cluster/remote.h"
#include "cluster/report.h"
#include "launcher/hostlist.h"
#include "launcher/rsh.h"
#include "runtime/config.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Probes: connect (1 s) plus the exchange (3 s; RDMA's 10 s at most), all
 * at once per host. */
#define PROBE_WAIT_S 15.0
#define MEASURE_WAIT_S 12.0
#define PINGS 200
#define MEASURE_BYTES (16u << 20)
#define SLOW_LOOKS 3 /* measurements of a link before it is called slow */

static const char usage[] =
    "usage: bolt-cluster check (--hostfile FILE | --host H1,H2,...) [options]\n"
    "  Reaches every host as boltrun does (BOLT_RSH, BOLT_HOSTD), reports each one (OS, Bolt version, cores,\n"
    "  memory, RDMA devices, interfaces), proves which host is wired to which, measures every link, and\n"
    "  exits 0 only when a job can run on the hosts as wired (1 when not, 2 on a usage error).\n"
    "options:\n"
    "  --hostfile FILE   hosts, one per line, as boltrun takes them (slots= is ignored here)\n"
    "  --host LIST       hosts, comma-separated\n"
    "  --json            one JSON object on stdout instead of the text report\n"
    "  --dot FILE        also write the map as a graphviz graph (dot -Tsvg FILE -o map.svg)\n"
    "  --no-measure      prove the paths only; do not measure latency and bandwidth\n"
    "  --timeout SEC     seconds each host has to answer (default BOLT_LAUNCH_TIMEOUT, 30)\n"
    "  --write-hostfile FILE     a hostfile for boltrun: the reachable hosts, slots = cores\n"
    "  --write-calibration FILE  per-host cores and caches, per-link alpha/beta (needs the measurement)\n"
    "  --write-devmap FILE       the RDMA device pairs proven both ways, for the rdma transport\n"
    "                            (BOLT_RDMA_DEVMAP=FILE in the job's environment)\n"
    "  -h, --help, --version\n";

struct opts {
    const char *hostfile, *hosts, *dot, *out_hosts, *out_calib, *out_devmap;
    int json, measure;
    double timeout;
};

static int parse(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {{"hostfile", 1, NULL, 'f'}, {"host", 1, NULL, 'H'},
                                       {"json", 0, NULL, 'j'},     {"dot", 1, NULL, 'd'},
                                       {"no-measure", 0, NULL, 'n'}, {"timeout", 1, NULL, 't'},
                                       {"help", 0, NULL, 'h'},     {"version", 0, NULL, 'V'},
                                       {"write-hostfile", 1, NULL, 'w'}, {"write-calibration", 1, NULL, 'c'},
                                       {"write-devmap", 1, NULL, 'm'},
                                       {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->measure = 1;
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf("bolt-cluster (Bolt) %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "check") != 0) {
        fprintf(stderr, "bolt-cluster: %s%s%s\n%s", argc < 2 ? "no command given" : "unknown command '",
                argc < 2 ? "" : argv[1], argc < 2 ? "" : "' (the command is 'check')", usage);
        return 2;
    }
    optind = 2;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'f': o->hostfile = optarg; break;
        case 'H': o->hosts = optarg; break;
        case 'j': o->json = 1; break;
        case 'd': o->dot = optarg; break;
        case 'n': o->measure = 0; break;
        case 'w': o->out_hosts = optarg; break;
        case 'c': o->out_calib = optarg; break;
        case 'm': o->out_devmap = optarg; break;
        case 't':
            o->timeout = strtod(optarg, &end);
            if (*end || end == optarg || !(o->timeout > 0)) {
                fprintf(stderr, "bolt-cluster: --timeout expects a positive number of seconds, got '%s'\n", optarg);
                return 2;
            }
            break;
        case 'h': fputs(usage, stdout); return 0;
        default:
            fprintf(stderr, "bolt-cluster: %s '%s'\n%s",
                    optopt ? "option needs a value or is unknown:" : "unknown option", argv[optind - 1], usage);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "bolt-cluster: unexpected argument '%s'\n%s", argv[optind], usage);
        return 2;
    }
    if (o->out_calib && !o->measure) {
        fprintf(stderr, "bolt-cluster: --write-calibration needs the links measured: drop --no-measure\n");
        return 2;
    }
#ifndef BOLT_HAVE_JANSSON
    if (o->json) {
        fprintf(stderr, "bolt-cluster: --json: this build has no JSON writer (configure found no jansson; "
                "scripts/deps installs it)\n");
        return 2;
    }
#endif
    if (!o->hostfile && !o->hosts) {
        fprintf(stderr, "bolt-cluster: check needs the hosts: --hostfile FILE or --host H1,H2,...\n");
        return 2;
    }
    return -1;
}

static int usable_addr(const struct ck_if *f)
{
    return (f->flags & CK_IF_UP) && !(f->flags & CK_IF_LOOPBACK) && strncmp(f->addr, "127.", 4) != 0;
}

static int probes_done(const struct remote *r)
{
    return r->nprobed == r->want_probed;
}

static int rprobes_done(const struct remote *r)
{
    return r->nrprobed == r->want_rprobed;
}

static int measured_done(const struct remote *r)
{
    return r->have_measured;
}

/* Every host probes every address of every other host from each of its
 * own, all hosts at once. */
static int run_probes(struct cl_check *c, struct remote *r)
{
    int n = c->n, total = 0;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            if (a != b && c->ok[a] && c->ok[b])
                total += (int)(c->info[a].nifs * c->info[b].nifs);
    c->paths = calloc((size_t)total + 1, sizeof *c->paths);
    unsigned char *want = calloc((size_t)n, 1);
    if (c->paths == NULL || want == NULL) {
        free(want);
        return -1;
    }
    for (int a = 0; a < n; a++) {
        if (!c->ok[a])
            continue;
        struct chan_buf b = {0}, list = {0};
        uint32_t count = 0;
        int first = c->npaths;
        for (int bh = 0; bh < n; bh++) {
            if (bh == a || !c->ok[bh])
                continue;
            for (uint32_t i = 0; i < c->info[a].nifs; i++) {
                if (!usable_addr(&c->info[a].ifs[i]))
                    continue;
                for (uint32_t k = 0; k < c->info[bh].nifs; k++) {
                    if (!usable_addr(&c->info[bh].ifs[k]))
                        continue;
                    struct wr_path *p = &c->paths[c->npaths];
                    p->a = a;
                    p->b = bh;
                    snprintf(p->src, sizeof p->src, "%s", c->info[a].ifs[i].addr);
                    snprintf(p->dst, sizeof p->dst, "%s", c->info[bh].ifs[k].addr);
                    struct ck_probe pr = {.id = (uint32_t)(c->npaths - first), .port = c->info[bh].port};
                    memcpy(pr.src, p->src, sizeof pr.src);
                    memcpy(pr.dst, p->dst, sizeof pr.dst);
                    ck_probe_encode(&list, &pr);
                    c->npaths++;
                    count++;
                }
            }
        }
        chan_buf_u32(&b, count);
        chan_buf_raw(&b, list.p, list.len);
        r[a].nprobed = 0;
        r[a].want_probed = count;
        chan_send(&r[a].ch, CK_PROBE, b.p, b.len);
        chan_flush(&r[a].ch);
        chan_buf_free(&b);
        chan_buf_free(&list);
        want[a] = 1;
    }
    remote_wait(r, n, want, probes_done, PROBE_WAIT_S);
    /* Answers back into the paths (ids count from each host's first). */
    for (int a = 0, base = 0; a < n; a++) {
        int mine = 0;
        for (int i = 0; i < c->npaths; i++)
            mine += c->paths[i].a == a;
        for (uint32_t k = 0; k < r[a].nprobed; k++)
            if (r[a].probed[k].id < (uint32_t)mine)
                c->paths[base + (int)r[a].probed[k].id].r = r[a].probed[k];
        for (int i = 0; i < mine; i++) {
            struct ck_probed *pr = &c->paths[base + i].r;
            if (!pr->ok && !pr->err[0])
                snprintf(pr->err, sizeof pr->err, "no answer from %s: %s", c->names[a],
                         r[a].failed ? r[a].why : "it did not report this probe");
        }
        base += mine;
    }
    free(want);
    return 0;
}

/* Every host probes every pair of its usable RDMA devices and every other
 * host's, all hosts at once; queue pair numbers go over the TCP paths the
 * address probes proved. */
static int run_rdma_probes(struct cl_check *c, struct remote *r)
{
    int n = c->n, total = 0;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            if (a != b && c->ok[a] && c->ok[b])
                total += (int)(c->info[a].nrdma * c->info[b].nrdma);
    c->rpaths = calloc((size_t)total + 1, sizeof *c->rpaths);
    struct ck_rprobe *req = calloc((size_t)total + 1, sizeof *req);
    unsigned char *want = calloc((size_t)n, 1);
    int rc = c->rpaths && req && want ? 0 : -1;
    for (int a = 0; rc == 0 && a < n; a++) {
        uint32_t nreq = 0;
        rdpaths_plan(n, c->ok, c->info, &c->w, a, c->rpaths, &c->nrpaths, req, &nreq);
        if (nreq == 0)
            continue;
        struct chan_buf b = {0};
        chan_buf_u32(&b, nreq);
        for (uint32_t k = 0; k < nreq; k++)
            ck_rprobe_encode(&b, &req[k]);
        r[a].nrprobed = 0;
        r[a].want_rprobed = nreq;
        chan_send(&r[a].ch, CK_RPROBE, b.p, b.len);
        chan_flush(&r[a].ch);
        chan_buf_free(&b);
        want[a] = 1;
    }
    if (rc == 0)
        remote_wait(r, n, want, rprobes_done, PROBE_WAIT_S);
    /* Answers back into the paths (ids are path indexes). */
    for (int a = 0; rc == 0 && a < n; a++) {
        for (uint32_t k = 0; k < r[a].nrprobed; k++) {
            const struct ck_rprobed *pr = &r[a].rprobed[k];
            if (pr->id < (uint32_t)c->nrpaths && c->rpaths[pr->id].a == a)
                c->rpaths[pr->id].r = *pr;
        }
        for (int i = 0; want[a] && i < c->nrpaths; i++) {
            struct ck_rprobed *pr = &c->rpaths[i].r;
            if (c->rpaths[i].a == a && !pr->ok && !pr->err[0])
                snprintf(pr->err, sizeof pr->err, "no answer from %s: %s", c->names[a],
                         r[a].failed ? r[a].why : "it did not report this probe");
        }
    }
    if (rc == 0)
        rc = rdpaths_judge(n, c->names, c->ok, c->info, c->rpaths, c->nrpaths, &c->w, &c->rd);
    free(req);
    free(want);
    return rc;
}

/* Measures link i (its prober sends CK_MEASURE and waits). A first
 * measurement sets the link's numbers; a second look keeps the better of
 * each (the lower latency, the higher bandwidth each way: load elsewhere on
 * a host only ever makes a link look worse) and never undoes the first. */
static void measure_link(struct cl_check *c, struct remote *r, unsigned char *want, int i, int again)
{
    struct wr_link *l = &c->w.links[i];
    int from = l->ab ? l->a : l->b, to = l->ab ? l->b : l->a;
    struct ck_measure m = {.id = (uint32_t)i, .port = c->info[to].port, .pings = PINGS, .bytes = MEASURE_BYTES};
    snprintf(m.src, sizeof m.src, "%s", l->ab ? l->a_addr : l->b_addr);
    snprintf(m.dst, sizeof m.dst, "%s", l->ab ? l->b_addr : l->a_addr);
    if (r[from].failed)
        return;
    struct chan_buf b = {0};
    ck_measure_encode(&b, &m);
    r[from].have_measured = 0;
    chan_send(&r[from].ch, CK_MEASURE, b.p, b.len);
    chan_flush(&r[from].ch);
    chan_buf_free(&b);
    memset(want, 0, (size_t)c->n);
    want[from] = 1;
    remote_wait(r, c->n, want, measured_done, MEASURE_WAIT_S);
    const struct ck_measured *res = &r[from].measured;
    if (!r[from].have_measured || !res->ok) {
        const char *why = r[from].have_measured ? res->err : r[from].why;
        if (again) { /* the first numbers stand */
            wiring_add_problem(&c->w, 0, "the link %s-%s could not be measured again: %s", c->names[l->a],
                               c->names[l->b], why);
            return;
        }
        snprintf(l->measure_err, sizeof l->measure_err, "%.*s", (int)sizeof l->measure_err - 1, why);
        wiring_add_problem(&c->w, 0, "the link %s-%s could not be measured: %s", c->names[l->a], c->names[l->b],
                           l->measure_err);
        return;
    }
    /* tx is from the prober: a->b when a measured. */
    double lat = res->lat_ns / 1000.0, tx = res->tx_kbs / 1e6, rx = res->rx_kbs / 1e6;
    double ab = l->ab ? tx : rx, ba = l->ab ? rx : tx;
    if (again) {
        lat = lat < l->lat_us ? lat : l->lat_us;
        ab = ab > l->ab_gbs ? ab : l->ab_gbs;
        ba = ba > l->ba_gbs ? ba : l->ba_gbs;
    }
    l->measured = 1;
    l->lat_us = lat;
    l->ab_gbs = ab;
    l->ba_gbs = ba;
}

/* Latency and bandwidth of each link, one at a time (they would share the
 * hosts' cores and memory otherwise). A link that looks well below the
 * others is measured again, up to SLOW_LOOKS times in all, before it is
 * called slow: on hosts busy with other work a burst of load during one
 * link's turn would otherwise name a sound cable. Better numbers move the
 * medians, which can make another link look slow: it gets its looks too. */
static void run_measure(struct cl_check *c, struct remote *r)
{
    unsigned char *want = calloc((size_t)c->n, 1), *looks = calloc((size_t)c->w.nlinks + 1, 1);
    if (want == NULL || looks == NULL)
        goto out;
    for (int i = 0; i < c->w.nlinks; i++) {
        measure_link(c, r, want, i, 0);
        looks[i] = 1;
    }
    for (int again = 1; again;) {
        again = 0;
        wiring_mark_slow(&c->w);
        for (int i = 0; i < c->w.nlinks; i++)
            if (c->w.links[i].slow && looks[i] < SLOW_LOOKS) {
                measure_link(c, r, want, i, 1);
                looks[i]++;
                again = 1;
            }
    }
    c->measured = 1;
out:
    free(want);
    free(looks);
}

int main(int argc, char **argv)
{
    struct opts o;
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    struct hostlist hl;
    char err[PATH_MAX + 256];
    hostlist_init(&hl);
    if ((o.hosts && hostlist_add_spec(&hl, o.hosts, err, sizeof err) != 0) ||
        (o.hostfile && hostlist_add_file(&hl, o.hostfile, err, sizeof err) != 0)) {
        fprintf(stderr, "bolt-cluster: %s\n", err);
        hostlist_free(&hl);
        return 2;
    }
    if (bolt_config_load() != BOLT_OK) {
        fprintf(stderr, "bolt-cluster: %s\n", bolt_error_message());
        hostlist_free(&hl);
        return 2;
    }
    char hostd[PATH_MAX];
    const char *hp = bolt_param_string(BOLT_P_HOSTD);
    if (hp && *hp)
        snprintf(hostd, sizeof hostd, "%s", hp);
    else if (rsh_hostd_default(argv[0], hostd, sizeof hostd) != 0) {
        fprintf(stderr, "bolt-cluster: cannot tell where bolt-hostd is (bolt-cluster's own path is unknown); set "
                "BOLT_HOSTD to its path on the hosts\n");
        hostlist_free(&hl);
        return 2;
    }
    const char *rsh = bolt_param_string(BOLT_P_RSH);
    char **rsh_argv = rsh_split_words(rsh && *rsh ? rsh : "ssh -o BatchMode=yes");
    int n = hl.n;
    struct cl_check c = {.n = n};
    struct remote *r = calloc((size_t)n, sizeof *r);
    c.names = calloc((size_t)n, sizeof *c.names);
    c.why = calloc((size_t)n, sizeof *c.why);
    c.ok = calloc((size_t)n, sizeof *c.ok);
    c.info = calloc((size_t)n, sizeof *c.info);
    uint8_t secret[BOLT_SECRET_BYTES];
    if (rsh_argv == NULL || r == NULL || c.names == NULL || c.why == NULL || c.ok == NULL || c.info == NULL ||
        bolt_random_bytes(secret, sizeof secret) != 0) {
        fprintf(stderr, "bolt-cluster: %s\n", rsh_argv ? "out of memory, or no random bytes for the check's secret"
                                                       : "BOLT_RSH names no remote shell");
        rc = 2;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        snprintf(r[i].name, sizeof r[i].name, "%s", hl.h[i].name);
        c.names[i] = r[i].name;
    }
    double lt = o.timeout > 0 ? o.timeout : bolt_param_double(BOLT_P_LAUNCH_TIMEOUT);
    remote_start_all(r, n, rsh_argv, hostd, secret);
    remote_wait_info(r, n, lt > 0 ? lt : 30.0);
    for (int i = 0; i < n; i++) {
        c.ok[i] = !r[i].failed && r[i].have_info;
        c.info[i] = r[i].info;
        c.why[i] = r[i].why;
    }
    int probed = run_probes(&c, r);
    for (int i = 0; i < n; i++)
        c.ok[i] = c.ok[i] && !r[i].failed; /* a host lost during the probes is not judged for cables */
    if (probed != 0 || wiring_judge(n, c.names, c.ok, c.info, c.paths, c.npaths, &c.w) != 0) {
        fprintf(stderr, "bolt-cluster: out of memory for the probes\n");
        rc = 1;
        goto out;
    }
    if (run_rdma_probes(&c, r) != 0) {
        fprintf(stderr, "bolt-cluster: out of memory for the RDMA probes\n");
        rc = 1;
        goto out;
    }
    for (int i = 0; i < n; i++)
        c.ok[i] = c.ok[i] && !r[i].failed;
    int fatal = 0;
    for (int i = 0; i < n; i++) {
        if (!c.ok[i])
            wiring_add_problem(&c.w, 1, "%s is unreachable: %s", c.names[i], c.why[i]);
        else if (strcmp(c.info[i].version, PACKAGE_VERSION) != 0)
            wiring_add_problem(&c.w, 1, "%s runs Bolt %s, bolt-cluster here is Bolt %s: install the same version on "
                               "every host", c.names[i], c.info[i].version, PACKAGE_VERSION);
    }
    if (o.measure) {
        run_measure(&c, r);
        wiring_flag_slow(&c.w, c.names);
    }
    for (int i = 0; i < c.w.nproblems; i++)
        fatal += c.w.problems[i].fatal;
    c.can_run = fatal == 0 && c.w.connected;
    if (o.json) {
        if (report_json(stdout, &c, err, sizeof err) != 0) {
            fprintf(stderr, "bolt-cluster: %s\n", err);
            rc = 2;
            goto out;
        }
    } else {
        report_text(stdout, &c);
    }
    if (o.dot && report_dot(o.dot, &c, err, sizeof err) != 0) {
        fprintf(stderr, "bolt-cluster: %s\n", err);
        rc = 1;
        goto out;
    }
    if ((o.out_hosts && outfiles_hostfile(o.out_hosts, &c, err, sizeof err) != 0) ||
        (o.out_calib && outfiles_calibration(o.out_calib, &c, err, sizeof err) != 0) ||
        (o.out_devmap && outfiles_devmap(o.out_devmap, &c, err, sizeof err) != 0)) {
        fprintf(stderr, "bolt-cluster: %s\n", err);
        rc = 1;
        goto out;
    }
    rc = c.can_run ? 0 : 1;
out:
    if (r)
        remote_close_all(r, n);
    wiring_free(&c.w);
    rdpaths_free(&c.rd);
    free(c.rpaths);
    free(c.paths);
    free(c.info);
    free(c.ok);
    free(c.why);
    free(c.names);
    free(r);
    rsh_free_words(rsh_argv);
    hostlist_free(&hl);
    return rc;
}

/* Unit tests: judging a cluster's wiring from probe results (cluster/wiring.c),
 * the check messages' round trips (cluster/check_wire.c), and the probes'
 * authenticated exchange and measurement over loopback (cluster/probe.c). Host i's end of
 * its cable to j has address 10.0.<i>.<j> on interface tb<j>; a LAN, when
 * there is one, gives host i 10.9.0.<i>. */
#include <check.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/check_wire.h"
#include "cluster/probe.h"
#include "cluster/rdma_paths.h"
#include "runtime/calibration.h"
#include "runtime/linkmap.h"
#include "cluster/wiring.h"

#define N 4
static const char *const names[N] = {"h1", "h2", "h3", "h4"};
static struct ck_info info[N];
static struct wr_path paths[4096];
static int npaths;
static int ok[N] = {1, 1, 1, 1};

/* cab[a][b]: a's packets reach b over their cable (both ends present). */
static int cab[N][N];
static int lan;

static void hosts(void)
{
    memset(info, 0, sizeof info);
    for (int i = 0; i < N; i++) {
        ok[i] = 1;
        for (int j = 0; j < N; j++) {
            if (i == j)
                continue;
            struct ck_if *f = &info[i].ifs[info[i].nifs++];
            snprintf(f->name, sizeof f->name, "tb%d", j + 1);
            snprintf(f->addr, sizeof f->addr, "10.0.%d.%d", i + 1, j + 1);
            f->flags = CK_IF_UP;
        }
        if (lan) {
            struct ck_if *f = &info[i].ifs[info[i].nifs++];
            snprintf(f->name, sizeof f->name, "lan0");
            snprintf(f->addr, sizeof f->addr, "10.9.0.%d", i + 1);
            f->flags = CK_IF_UP;
        }
    }
}

static void mesh(void)
{
    for (int a = 0; a < N; a++)
        for (int b = 0; b < N; b++)
            cab[a][b] = a != b;
}

/* Which host answers a probe from a's src to b's dst (-1: none). */
static int answer(int a, const struct ck_if *s, int b, const struct ck_if *d)
{
    int sl = strncmp(s->name, "lan", 3) == 0, dl = strncmp(d->name, "lan", 3) == 0;
    if (sl || dl)
        return sl && dl ? b : -1;
    int sj = s->name[2] - '1', dj = d->name[2] - '1';
    return sj == b && dj == a && cab[a][b] ? b : -1;
}

static void probe_all(void)
{
    npaths = 0;
    for (int a = 0; a < N; a++)
        for (int b = 0; b < N; b++) {
            if (a == b || !ok[a] || !ok[b])
                continue;
            for (uint32_t i = 0; i < info[a].nifs; i++)
                for (uint32_t k = 0; k < info[b].nifs; k++) {
                    struct wr_path *p = &paths[npaths++];
                    memset(p, 0, sizeof *p);
                    p->a = a;
                    p->b = b;
                    snprintf(p->src, sizeof p->src, "%s", info[a].ifs[i].addr);
                    snprintf(p->dst, sizeof p->dst, "%s", info[b].ifs[k].addr);
                    int who = answer(a, &info[a].ifs[i], b, &info[b].ifs[k]);
                    p->r.ok = who >= 0;
                    p->r.who = who >= 0 ? (uint32_t)who : 0;
                    if (who < 0)
                        snprintf(p->r.err, sizeof p->r.err, "No route to host");
                }
        }
}

static int judge(struct wr_result *w)
{
    hosts();
    probe_all();
    return wiring_judge(N, names, ok, info, paths, npaths, w);
}

static int has_problem(const struct wr_result *w, int fatal, const char *text)
{
    for (int i = 0; i < w->nproblems; i++)
        if (w->problems[i].fatal == fatal && strstr(w->problems[i].text, text))
            return 1;
    return 0;
}

START_TEST(full_mesh)
{
    struct wr_result w;
    lan = 0;
    mesh();
    ck_assert_int_eq(judge(&w), 0);
    ck_assert_str_eq(w.verdict, "full mesh");
    ck_assert_int_eq(w.ncables, 6);
    ck_assert_int_eq(w.nlinks, 6);
    ck_assert_int_eq(w.nproblems, 0);
    ck_assert_int_eq(w.connected, 1);
    /* The link h2-h4 is at h2's tb4 and h4's tb2. */
    for (int i = 0; i < w.nlinks; i++)
        if (w.links[i].a == 1 && w.links[i].b == 3) {
            ck_assert_str_eq(w.links[i].a_if, "tb4");
            ck_assert_str_eq(w.links[i].b_addr, "10.0.4.2");
        }
    wiring_free(&w);
}
END_TEST

START_TEST(one_missing)
{
    struct wr_result w;
    lan = 0;
    mesh();
    cab[1][3] = cab[3][1] = 0;
    ck_assert_int_eq(judge(&w), 0);
    ck_assert_str_eq(w.verdict, "partial");
    ck_assert_int_eq(w.ncables, 5);
    ck_assert_int_eq(w.nproblems, 1);
    ck_assert_str_eq(w.problems[0].text, "h2 and h4 are not connected: plug a cable between them");
    ck_assert_int_eq(w.problems[0].fatal, 1);
    ck_assert_int_eq(w.connected, 0);
    wiring_free(&w);
}
END_TEST

START_TEST(ring)
{
    struct wr_result w;
    lan = 1; /* the diagonals talk over the LAN */
    memset(cab, 0, sizeof cab);
    for (int i = 0; i < N; i++)
        cab[i][(i + 1) % N] = cab[(i + 1) % N][i] = 1;
    ck_assert_int_eq(judge(&w), 0);
    ck_assert_str_eq(w.verdict, "ring");
    ck_assert_int_eq(w.ncables, 4);
    ck_assert_int_eq(w.connected, 1);
    ck_assert(has_problem(&w, 0, "h1 and h3 are not neighbours on the ring"));
    ck_assert(has_problem(&w, 0, "h2 and h4 are not neighbours on the ring"));
    /* Two rings of two are no ring of four: h1-h2, h3-h4 only. */
    wiring_free(&w);
    memset(cab, 0, sizeof cab);
    cab[0][1] = cab[1][0] = cab[2][3] = cab[3][2] = 1;
    ck_assert_int_eq(judge(&w), 0);
    ck_assert_str_eq(w.verdict, "partial");
    ck_assert(has_problem(&w, 0, "h1 and h3 have no cable between them"));
    wiring_free(&w);
    lan = 0;
}
END_TEST

START_TEST(lan_only)
{
    struct wr_result w;
    lan = 1;
    memset(cab, 0, sizeof cab);
    ck_assert_int_eq(judge(&w), 0);
    ck_assert_str_eq(w.verdict, "no cables");
    ck_assert_int_eq(w.nlinks, 6);
    ck_assert_int_eq(w.links[0].cable, 0);
    ck_assert_int_eq(w.connected, 1);
    wiring_free(&w);
    lan = 0;
}
END_TEST

START_TEST(one_way)
{
    struct wr_result w;
    lan = 0;
    mesh();
    cab[2][0] = 0; /* h3 cannot reach h1; h1 reaches h3 */
    ck_assert_int_eq(judge(&w), 0);
    ck_assert_int_eq(w.connected, 0);
    ck_assert(has_problem(&w, 1, "h1 reaches h3 (10.0.1.3 -> 10.0.3.1) but h3 cannot reach h1 (No route to host): "
                                 "the path works one way only"));
    wiring_free(&w);
}
END_TEST

START_TEST(answered_elsewhere)
{
    struct wr_result w;
    lan = 0;
    mesh();
    hosts();
    probe_all();
    /* h1's probe to h2's tb1 address came back from h4. */
    for (int i = 0; i < npaths; i++)
        if (paths[i].a == 0 && strcmp(paths[i].dst, "10.0.2.1") == 0 && strcmp(paths[i].src, "10.0.1.2") == 0)
            paths[i].r.who = 3;
    ck_assert_int_eq(wiring_judge(N, names, ok, info, paths, npaths, &w), 0);
    ck_assert(has_problem(&w, 0, "h1 reached 10.0.2.1 (an address of h2's tb1) but h4 answered there"));
    wiring_free(&w);
}
END_TEST

START_TEST(unreachable_host)
{
    struct wr_result w;
    lan = 0;
    mesh();
    hosts();
    ok[2] = 0;
    probe_all();
    ck_assert_int_eq(wiring_judge(N, names, ok, info, paths, npaths, &w), 0);
    ck_assert_str_eq(w.verdict, "full mesh"); /* of the three reached */
    ck_assert_int_eq(w.ncables, 3);
    ck_assert_int_eq(w.nproblems, 0);          /* bolt-cluster names h3 itself */
    wiring_free(&w);
}
END_TEST

START_TEST(slow_link)
{
    struct wr_result w;
    lan = 0;
    mesh();
    ck_assert_int_eq(judge(&w), 0);
    for (int i = 0; i < w.nlinks; i++) {
        w.links[i].measured = 1;
        w.links[i].lat_us = 20 + i;
        w.links[i].ab_gbs = w.links[i].ba_gbs = 5.0 + 0.1 * i;
    }
    w.links[4].ab_gbs = 1.2; /* a Thunderbolt 4 cable among Thunderbolt 5 ones */
    wiring_flag_slow(&w, names);
    ck_assert_int_eq(w.nproblems, 1);
    ck_assert_int_eq(w.links[4].slow, 1);
    ck_assert(has_problem(&w, 0, "bandwidth 1.2 / 5.4 GB/s"));
    /* Marking alone names no problem, and a link measured better on a
     * second look is no longer marked. */
    w.nproblems = 0;
    ck_assert_int_eq(wiring_mark_slow(&w), 1);
    ck_assert_int_eq(w.nproblems, 0);
    w.links[4].ab_gbs = 5.4;
    ck_assert_int_eq(wiring_mark_slow(&w), 0);
    ck_assert_int_eq(w.links[4].slow, 0);
    w.links[1].lat_us = 900;
    wiring_flag_slow(&w, names);
    ck_assert_int_eq(w.nproblems, 1);
    ck_assert(has_problem(&w, 0, "the link h1-h3 (h1 tb3 - h3 tb1) is well below the others: latency 900.0 us"));
    wiring_free(&w);
}
END_TEST

START_TEST(wire_roundtrip)
{
    struct chan_buf b = {0};
    struct ck_info in, out;
    hosts();
    memcpy(&in, &info[1], sizeof in);
    snprintf(in.version, sizeof in.version, "0.1.0");
    snprintf(in.os, sizeof in.os, "Darwin");
    in.mem = 192ull << 30;
    in.cores = 24;
    in.nrdma = 1;
    snprintf(in.rdma[0].name, sizeof in.rdma[0].name, "rdma_en2");
    in.rdma[0].ngids = 1;
    snprintf(in.rdma[0].gids[0], sizeof in.rdma[0].gids[0], "fe80:0000:0000:0000:0000:0000:0000:0001");
    ck_info_encode(&b, &in);
    ck_assert_int_eq(ck_info_decode(b.p, b.len, &out), 0);
    ck_assert_int_eq(memcmp(&in, &out, sizeof in), 0);
    for (size_t cut = 0; cut < b.len; cut += 7)
        ck_assert_int_eq(ck_info_decode(b.p, cut, &out), -1);
    chan_buf_free(&b);
    struct ck_check c = {.host = "h2", .index = 1, .nhosts = 4}, d;
    ck_check_encode(&b, &c);
    ck_assert_int_eq(ck_check_decode(b.p, b.len, &d), 0);
    ck_assert_str_eq(d.host, "h2");
    b.p[0] = 'X'; /* not a check message */
    ck_assert_int_eq(ck_check_decode(b.p, b.len, &d), -1);
    chan_buf_free(&b);
    c.index = 4; /* outside the cluster */
    ck_check_encode(&b, &c);
    ck_assert_int_eq(ck_check_decode(b.p, b.len, &d), -1);
    chan_buf_free(&b);
}
END_TEST

/* A listener of host 1 under secret `key`, serving one connection. */
struct listener {
    struct probe_self self;
    int fd;
    uint32_t port;
    pthread_t t;
};

static void *serve_one(void *arg)
{
    struct listener *l = arg;
    int c = accept(l->fd, NULL, NULL);
    if (c >= 0)
        probe_serve(&l->self, c);
    return NULL;
}

static void listener_start(struct listener *l, uint8_t key)
{
    char err[256];
    memset(l, 0, sizeof *l);
    memset(l->self.secret, key, sizeof l->self.secret);
    l->self.index = 1;
    ck_assert_int_eq(probe_listen(&l->fd, &l->port, err, sizeof err), 0);
    ck_assert_int_eq(pthread_create(&l->t, NULL, serve_one, l), 0);
}

static void listener_stop(struct listener *l)
{
    pthread_join(l->t, NULL);
    close(l->fd);
}

START_TEST(probe_proves_both_ends)
{
    struct listener l;
    struct probe_self me = {.index = 0};
    memset(me.secret, 7, sizeof me.secret);
    struct ck_probe p = {.id = 3, .src = "127.0.0.1", .dst = "127.0.0.1"};
    struct ck_probed r;
    /* The same secret: proven, and the answer names host 1. */
    listener_start(&l, 7);
    p.port = l.port;
    probe_connect(&me, &p, &r);
    listener_stop(&l);
    ck_assert_msg(r.ok, "%s", r.err);
    ck_assert_int_eq(r.who, 1);
    ck_assert_int_eq(r.id, 3);
    ck_assert_str_eq(r.local, "127.0.0.1");
    /* Another check's listener: refused, and said so. */
    listener_start(&l, 8);
    p.port = l.port;
    probe_connect(&me, &p, &r);
    listener_stop(&l);
    ck_assert_int_eq(r.ok, 0);
    ck_assert_msg(strstr(r.err, "did not prove itself") != NULL, "%s", r.err);
    /* Nothing listening: the system's error. */
    probe_connect(&me, &p, &r);
    ck_assert_int_eq(r.ok, 0);
    ck_assert_str_eq(r.err, "Connection refused");
}
END_TEST

void fake_rdma_cable(const char *a, const char *b);
extern int fake_rdma_tamper;

/* RDMA device pairs (tests/cluster/rdma_probe_fake.c: cables a1-b1, a2-b2):
 * the cabled pairs proven, the others not (nothing arrives), a port down
 * named, a forged proof refused, and the plan and judgement of the pairs. */
START_TEST(rdma_pairs_proven)
{
    struct listener l;
    struct probe_self me = {.index = 0};
    memset(me.secret, 7, sizeof me.secret);
    fake_rdma_cable("a1", "b1");
    fake_rdma_cable("a2", "b2");
    const char *pairs[5][2] = {{"a1", "b1"}, {"a1", "b2"}, {"a2", "b1"}, {"a2", "b2"}, {"down0", "b1"}};
    struct ck_rprobe p[5];
    struct ck_rprobed r[5];
    listener_start(&l, 7);
    for (int i = 0; i < 5; i++) {
        p[i] = (struct ck_rprobe){.id = (uint32_t)i, .port = l.port, .src = "127.0.0.1", .dst = "127.0.0.1"};
        snprintf(p[i].ldev, sizeof p[i].ldev, "%s", pairs[i][0]);
        snprintf(p[i].rdev, sizeof p[i].rdev, "%s", pairs[i][1]);
    }
    probe_rdma(&me, p, 5, r);
    listener_stop(&l);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(r[i].id, i);
    ck_assert_msg(r[0].ok && r[3].ok, "%s / %s", r[0].err, r[3].err);
    ck_assert_int_eq(r[0].who, 1);
    ck_assert(!r[1].ok && !r[2].ok && !r[4].ok);
    ck_assert_msg(strstr(r[1].err, "nothing arrived") != NULL, "%s", r[1].err);
    ck_assert_msg(strstr(r[4].err, "down0 port 1 is PORT_DOWN") != NULL, "%s", r[4].err);
    /* A proof that is not this check's secret's. */
    fake_rdma_tamper = 1;
    listener_start(&l, 7);
    p[0].port = l.port;
    probe_rdma(&me, p, 1, r);
    listener_stop(&l);
    fake_rdma_tamper = 0;
    ck_assert_int_eq(r[0].ok, 0);
    ck_assert_msg(strstr(r[0].err, "wrong proof") != NULL, "%s", r[0].err);

    /* Judged: h0's a1 and h1's b1 proven both ways; h0's down0 named. */
    const char *names[2] = {"h0", "h1"};
    int ok[2] = {1, 1};
    static struct ck_info in[2];
    memset(in, 0, sizeof in);
    in[0].nrdma = in[1].nrdma = 2;
    snprintf(in[0].rdma[0].name, 64, "a1");
    snprintf(in[0].rdma[1].name, 64, "down0");
    snprintf(in[0].rdma[1].note, 96, "port 1 is DOWN");
    snprintf(in[1].rdma[0].name, 64, "b1");
    snprintf(in[1].rdma[1].name, 64, "b2");
    in[0].rdma[0].usable = in[1].rdma[0].usable = in[1].rdma[1].usable = 1;
    struct wr_result w;
    memset(&w, 0, sizeof w);
    w.links = calloc(1, sizeof *w.links);
    w.links[0] = (struct wr_link){.a = 0, .b = 1, .ab = 1, .ba = 1, .a_addr = "10.0.0.1", .b_addr = "10.0.0.2"};
    w.nlinks = 1;
    struct rd_path paths[8];
    struct ck_rprobe req[8];
    int np = 0;
    uint32_t nreq;
    rdpaths_plan(2, ok, in, &w, 0, paths, &np, req, &nreq);
    ck_assert_int_eq(nreq, 2); /* a1 to b1 and b2; down0 not probed */
    ck_assert_str_eq(req[1].src, "10.0.0.1");
    ck_assert_str_eq(req[1].rdev, "b2");
    rdpaths_plan(2, ok, in, &w, 1, paths, &np, req, &nreq);
    ck_assert_int_eq(np, 4);
    paths[0].r.ok = paths[2].r.ok = 1; /* a1 -> b1, b1 -> a1 */
    struct rd_result rd;
    ck_assert_int_eq(rdpaths_judge(2, names, ok, in, paths, np, &w, &rd), 0);
    ck_assert_int_eq(rd.nlinks, 1);
    ck_assert(rd.links[0].ab && rd.links[0].ba && rd.links[0].adev == 0 && rd.links[0].bdev == 0);
    ck_assert_int_eq(w.nproblems, 1);
    ck_assert_str_eq(w.problems[0].text, "h0's RDMA device down0 is not usable: port 1 is DOWN (is its cable plugged "
                                         "in, and the host at its other end on?)");
    /* Nothing proven: named, with the probe's error. */
    paths[0].r.ok = paths[2].r.ok = 0;
    snprintf(paths[0].r.err, sizeof paths[0].r.err, "nothing arrived");
    rdpaths_free(&rd);
    ck_assert_int_eq(rdpaths_judge(2, names, ok, in, paths, np, &w, &rd), 0);
    ck_assert_int_eq(rd.nlinks, 0);
    ck_assert_msg(strstr(w.problems[w.nproblems - 1].text, "no RDMA device of h0 reaches one of h1 (nothing arrived)") ==
                  w.problems[w.nproblems - 1].text, "%s", w.problems[w.nproblems - 1].text);
    rdpaths_free(&rd);
    wiring_free(&w);
}
END_TEST

START_TEST(probe_measures)
{
    struct listener l;
    struct probe_self me = {.index = 0};
    memset(me.secret, 7, sizeof me.secret);
    listener_start(&l, 7);
    struct ck_measure m = {.id = 1, .port = l.port, .pings = 50, .bytes = 4u << 20, .src = "127.0.0.1",
                           .dst = "127.0.0.1"};
    struct ck_measured r;
    probe_measure(&me, &m, &r);
    listener_stop(&l);
    ck_assert_msg(r.ok, "%s", r.err);
    ck_assert_uint_gt(r.lat_ns, 0);
    ck_assert_uint_lt(r.lat_ns, 10000000);
    ck_assert_uint_gt(r.tx_kbs, 1000); /* loopback: far above 1 MB/s */
    ck_assert_uint_gt(r.rx_kbs, 1000);
}
END_TEST

START_TEST(calibration_file)
{
    static const char text[] =
        "# written by bolt-cluster\n"
        "bolt-calibration 1\n"
        "host h1 cores=2 pus=2 mem=100 l1d=49152 l2=2097152 l3=0\n"
        "host h2 cores=2 l2=1048576 future_key=whatever\n"
        "host h3 cores=2\n"
        "link h1 h2 transport=tcp kind=cable alpha_us=5.5 beta_ab_ns=0.5 beta_ba_ns=0.25\n"
        "link h3 h1 transport=tcp alpha_us=9 beta_ab_ns=0.125 beta_ba_ns=0.125 slow=1\n"
        "link h2 h3 alpha_us=4 beta_ab_ns=2 beta_ba_ns=0.5   # the slow one\n";
    struct calibration c;
    char e[512];
    ck_assert_int_eq(calib_parse(&c, text, "cal", e, sizeof e), 0);
    ck_assert_int_eq(c.nhost, 3);
    ck_assert_int_eq(c.nlink, 3);
    ck_assert_int_eq(c.host[0].cores, 2);
    ck_assert_int_eq(c.link[1].slow, 1);
    ck_assert_int_eq(c.link[0].slow, 0);
    /* The job's link map: ranks 0-1 on h1, 2 on h2, 3 on h3; h4 has no link. */
    const char *all[] = {"h1", "h2", "h3"}, *missing[] = {"h1", "h4"};
    const int host_of[] = {0, 0, 1, 2}, two_ranks[] = {0, 1};
    struct linkmap m;
    unsigned long long l2;
    ck_assert_int_eq(calib_linkmap(&c, all, 3, host_of, 4, &m, &l2, e, sizeof e), 0);
    ck_assert_uint_eq(l2, 1048576);
    ck_assert_int_eq(m.state[0 * 3 + 1], LINK_OK);
    ck_assert_double_eq(m.alpha_us[1 * 3 + 0], 5.5);
    ck_assert_double_eq(m.beta_ns[0 * 3 + 1], 0.5); /* the slower way */
    ck_assert_int_eq(m.state[2 * 3 + 0], LINK_SLOW);
    ck_assert_double_eq(m.beta_ns[1 * 3 + 2], 2);
    int a, b;
    ck_assert_int_eq(calib_missing(&m, &a, &b), 0);
    char *txt;
    ck_assert_int_eq(linkmap_format(&m, &txt), 0);
    ck_assert_str_eq(txt, "1 hosts=h1,h2,h3 ranks=0*2,1,2 links=5.5/0.5,9/0.125/slow,4/2");
    free(txt);
    linkmap_free(&m);
    ck_assert_int_eq(calib_linkmap(&c, missing, 2, two_ranks, 2, &m, &l2, e, sizeof e), 0);
    ck_assert_int_eq(calib_missing(&m, &a, &b), 1);
    ck_assert_int_eq(a * 10 + b, 1);
    ck_assert_int_eq(linkmap_format(&m, &txt), 0);
    ck_assert_str_eq(txt, "1 hosts=h1,h4 ranks=0,1 links=none");
    free(txt);
    linkmap_free(&m);
    const char *comma[] = {"h1", "h,2"};
    ck_assert_int_eq(calib_linkmap(&c, comma, 2, two_ranks, 2, &m, &l2, e, sizeof e), -1);
    ck_assert_str_eq(e, "host name 'h,2' cannot describe a link (it holds a comma, a slash or a blank)");
    calib_free(&c);
    ck_assert_int_eq(calib_parse(&c, "bolt-calibration 1\nlink h1 h2 alpha_us=1 beta_ab_ns=1 beta_ba_ns=1 slow=yes\n",
                                 "cal", e, sizeof e), -1);
    ck_assert_str_eq(e, "cal:2: slow= expects 0 or 1, got 'yes'");
    ck_assert_int_eq(calib_parse(&c, "h1 slots=2\n", "hosts", e, sizeof e), -1);
    ck_assert_str_eq(e, "hosts:1: not a calibration file (it starts 'bolt-calibration 1'; bolt-cluster check "
                        "--write-calibration writes one)");
    ck_assert_int_eq(calib_parse(&c, "bolt-calibration 2\n", "cal", e, sizeof e), -1);
    ck_assert_str_eq(e, "cal:1: calibration format 2; this boltrun reads format 1");
    ck_assert_int_eq(calib_parse(&c, "bolt-calibration 1\n\nlink h1 h2 alpha_us=x beta_ab_ns=1 beta_ba_ns=1\n", "cal",
                                 e, sizeof e), -1);
    ck_assert_str_eq(e, "cal:3: alpha_us= expects a number of 0 or more, got 'x'");
    ck_assert_int_eq(calib_parse(&c, "bolt-calibration 1\nlink h1 h2 alpha_us=1 beta_ab_ns=1\n", "cal", e, sizeof e),
                     -1);
    ck_assert_str_eq(e, "cal:2: beta_ba_ns= is missing");
    ck_assert_int_eq(calib_parse(&c, "bolt-calibration 1\nswitch s1\n", "cal", e, sizeof e), -1);
    ck_assert_str_eq(e, "cal:2: unknown record 'switch' (host or link)");
    ck_assert_int_eq(calib_parse(&c, "# nothing\n", "cal", e, sizeof e), -1);
    ck_assert_str_eq(e, "cal: empty calibration file");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bolt-cluster wiring");
    TCase *tc = tcase_create("wiring");
    tcase_set_timeout(tc, 30); /* the RDMA probes wait 2 s for what never comes */
    tcase_add_test(tc, full_mesh);
    tcase_add_test(tc, one_missing);
    tcase_add_test(tc, ring);
    tcase_add_test(tc, lan_only);
    tcase_add_test(tc, one_way);
    tcase_add_test(tc, answered_elsewhere);
    tcase_add_test(tc, unreachable_host);
    tcase_add_test(tc, slow_link);
    tcase_add_test(tc, wire_roundtrip);
    tcase_add_test(tc, probe_proves_both_ends);
    tcase_add_test(tc, probe_measures);
    tcase_add_test(tc, rdma_pairs_proven);
    tcase_add_test(tc, calibration_file);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}

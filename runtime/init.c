/* init.c — bolt_init / bolt_finalize: configuration, bootstrap, transport
 * selection per peer, wire-up, and the world and self communicators. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/bootstrap.h"
#include "runtime/config.h"
#include "runtime/errors.h"
#include "runtime/failover.h"
#include "runtime/log.h"
#include "runtime/progress.h"
#include "runtime/proto.h"
#include "runtime/runtime.h"
#include "runtime/topo.h"

struct bolt_runtime bolt_rt;

static const struct bolt_transport *const known_transports[] = {
    &bolt_transport_shm,
#ifdef BOLT_HAVE_RDMA
    &bolt_transport_rdma,
#endif
    &bolt_transport_tcp};
#define N_KNOWN (int)(sizeof known_transports / sizeof known_transports[0])

int bolt_peer_error(int world_peer, const char *doing)
{
    struct bolt_peer *p = &bolt_rt.peers[world_peer];
    if (p->bye && !p->failed)
        return bolt_err_set(BOLT_ERR_PEER,
                            "%s failed: peer rank %d on %s has already called bolt_finalize, so "
                            "the message can never arrive (check that sends and receives pair up)",
                            doing, world_peer, p->host);
    return bolt_err_set(BOLT_ERR_PEER, "%s failed: peer rank %d on %s is gone: %s", doing,
                        world_peer, p->host, p->why[0] ? p->why : "it said goodbye");
}

static int env_int(const char *name, int *out, int min, int max)
{
    const char *v = getenv(name);
    char *end;
    if (!v)
        return bolt_err_set(BOLT_ERR_BOOTSTRAP, "%s is not set; start this program with boltrun",
                            name);
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end || errno || x < min || x > max)
        return bolt_err_set(BOLT_ERR_BOOTSTRAP, "%s='%s' is not an integer in %d..%d", name, v,
                            min, max);
    *out = (int)x;
    return BOLT_OK;
}

static int read_identity(void)
{
    int rc;
    if (!getenv("BOLT_RANK")) {
        /* Started without boltrun: a job of one. */
        bolt_rt.singleton = 1;
        bolt_rt.rank = 0;
        bolt_rt.size = 1;
        bolt_rt.local_rank = 0;
        bolt_rt.local_size = 1;
        return BOLT_OK;
    }
    if ((rc = env_int("BOLT_SIZE", &bolt_rt.size, 1, 1 << 20)) ||
        (rc = env_int("BOLT_RANK", &bolt_rt.rank, 0, bolt_rt.size - 1)))
        return rc;
    bolt_rt.local_rank = 0;
    bolt_rt.local_size = 1;
    if (getenv("BOLT_LOCAL_SIZE") &&
        ((rc = env_int("BOLT_LOCAL_SIZE", &bolt_rt.local_size, 1, bolt_rt.size)) ||
         (rc = env_int("BOLT_LOCAL_RANK", &bolt_rt.local_rank, 0, bolt_rt.local_size - 1))))
        return rc;
    return BOLT_OK;
}

/* Opens the transports named by BOLT_TRANSPORTS, in order. */
static int open_transports(void)
{
    char list[256];
    snprintf(list, sizeof list, "%s", bolt_param_string(BOLT_P_TRANSPORTS));
    char *save = NULL;
    for (char *name = strtok_r(list, ", ", &save); name; name = strtok_r(NULL, ", ", &save)) {
        const struct bolt_transport *tl = NULL;
        for (int i = 0; i < N_KNOWN; i++)
            if (!strcmp(known_transports[i]->name, name))
                tl = known_transports[i];
        if (!tl) {
            /* Later issues add shm and rdma: names this build lacks are skipped. */
            bolt_log(BOLT_LOG_INFO, "BOLT_TRANSPORTS names '%s', which this build does not have",
                     name);
            continue;
        }
        if (bolt_rt.ntls == BOLT_MAX_TRANSPORTS)
            break;
        bolt_failover_upcalls(bolt_rt.ntls, &bolt_rt.up_tl[bolt_rt.ntls]);
        struct bolt_tl_init_args args = {bolt_rt.rank, bolt_rt.size, &bolt_rt.up_tl[bolt_rt.ntls]};
        int rc = tl->init(&bolt_rt.tlctx[bolt_rt.ntls], &args);
        if (rc)
            return rc;
        bolt_rt.tls[bolt_rt.ntls++] = tl;
    }
    if (bolt_rt.ntls == 0) {
        char have[64] = "";
        for (int i = 0; i < N_KNOWN; i++)
            snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s", i ? ", " : "",
                     known_transports[i]->name);
        return bolt_err_set(BOLT_ERR_CONFIG,
                            "BOLT_TRANSPORTS='%s' names no transport this build has (it has: %s)",
                            bolt_param_string(BOLT_P_TRANSPORTS), have);
    }
    return BOLT_OK;
}

/* Picks, for every peer, the first transport that reaches it, then wires up. */
static int wire_up(void)
{
    int *peers = malloc((size_t)bolt_rt.size * sizeof *peers);
    if (!peers)
        return BOLT_ERR_NOMEM;
    int rc = BOLT_OK;
    for (int p = 0; p < bolt_rt.size; p++) {
        bolt_rt.peers[p].tl = -1;
        if (p == bolt_rt.rank)
            continue;
        for (int t = 0; t < bolt_rt.ntls && bolt_rt.peers[p].tl < 0; t++)
            if (bolt_rt.tls[t]->reachable(bolt_rt.tlctx[t], p) == 1)
                bolt_rt.peers[p].tl = t;
        bolt_rt.peers[p].standby = bolt_failover_standby(p);
        if (bolt_rt.peers[p].tl < 0) {
            char why[1300] = "";
            size_t n = 0;
            for (int t = 0; t < bolt_rt.ntls && n + 8 < sizeof why; t++) {
                char one[600];
                if (bolt_rt.tls[t]->unreachable_why &&
                    bolt_rt.tls[t]->unreachable_why(bolt_rt.tlctx[t], p, one, sizeof one))
                    n += (size_t)snprintf(why + n, sizeof why - n, "%s%s", n ? "; " : " (", one);
            }
            if (n && n + 2 < sizeof why)
                snprintf(why + n, sizeof why - n, ")");
            rc = bolt_err_set(BOLT_ERR_CONFIG,
                              "no transport in BOLT_TRANSPORTS='%s' reaches rank %d on %s%s",
                              bolt_param_string(BOLT_P_TRANSPORTS), p, bolt_rt.peers[p].host, why);
            goto out;
        }
    }
    for (int t = 0; t < bolt_rt.ntls; t++) {
        int n = 0;
        for (int p = 0; p < bolt_rt.size; p++)
            if (bolt_rt.peers[p].tl == t || bolt_rt.peers[p].standby == t)
                peers[n++] = p;
        rc = bolt_rt.tls[t]->connect(bolt_rt.tlctx[t], peers, n);
        if (rc)
            goto out;
    }
out:
    free(peers);
    return rc;
}

static int make_builtin_comms(void)
{
    int *all = malloc((size_t)bolt_rt.size * sizeof *all);
    if (!all)
        return BOLT_ERR_NOMEM;
    for (int i = 0; i < bolt_rt.size; i++)
        all[i] = i;
    bolt_rt.world = bolt_comm_create(BOLT_CTX_WORLD, bolt_rt.rank, bolt_rt.size, all);
    bolt_rt.self = bolt_comm_create(BOLT_CTX_SELF, 0, 1, &bolt_rt.rank);
    free(all);
    if (!bolt_rt.world || !bolt_rt.self)
        return BOLT_ERR_NOMEM;
    bolt_rt.world->builtin = bolt_rt.self->builtin = 1;
    return BOLT_OK;
}

static long choose_spin(void)
{
    long spin = (long)bolt_param_int(BOLT_P_SPIN_COUNT);
    /* Not fatal: without a topology, sysconf's count is the best guess. */
    if (bolt_topo_local(&bolt_rt.host_cores, &bolt_rt.bound) != BOLT_OK)
        bolt_log(BOLT_LOG_INFO, "%s; counting cores with sysconf", bolt_error_message());
    if (spin >= 0)
        return spin;
    return bolt_rt.local_size <= bolt_rt.host_cores ? 2000 : 0;
}

/* Oversubscribed, sleeping at once made every step of a collective wait for
 * a doorbell and a wake-up (4 ranks on 2 cores: a 4-byte all-reduce took 70
 * us); yielding first lets the peer we wait for run: 14 us, as Open MPI's
 * yield_when_idle. */
static long choose_yield(void)
{
    long n = (long)bolt_param_int(BOLT_P_YIELD_COUNT);
    if (n >= 0)
        return n;
    return bolt_rt.local_size > bolt_rt.host_cores ? 100 : 0;
}

/* The job's links (BOLT_COLL_LINKS, from boltrun --calibration) for the
 * collectives' cost model: parsed once, here, so that a bad value stops the
 * job at bolt_init naming the variable rather than its first collective. */
static int read_links(void)
{
    const char *text = bolt_param_string(BOLT_P_COLL_LINKS);
    char err[512];
    int rc = BOLT_OK;
    if (!text || !*text || bolt_rt.singleton)
        return BOLT_OK;
    bolt_rt.links = calloc(1, sizeof *bolt_rt.links);
    if (bolt_rt.links == NULL)
        return bolt_err_set(BOLT_ERR_NOMEM, "out of memory at bolt_init");
    if (linkmap_parse(bolt_rt.links, text, "BOLT_COLL_LINKS", err, sizeof err) != 0)
        rc = bolt_err_set(BOLT_ERR_CONFIG, "%s", err);
    else if (bolt_rt.links->nrank != bolt_rt.size)
        rc = bolt_err_set(BOLT_ERR_CONFIG, "BOLT_COLL_LINKS describes %d ranks but the job has %d: it belongs to "
                          "another job (boltrun --calibration sets it; do not pass it with -x)",
                          bolt_rt.links->nrank, bolt_rt.size);
    if (rc != BOLT_OK) {
        if (bolt_rt.links->name)
            linkmap_free(bolt_rt.links);
        free(bolt_rt.links);
        bolt_rt.links = NULL;
    }
    return rc;
}

#define TEARDOWN_MAX 4
static void (*teardown_fns[TEARDOWN_MAX])(void);
static int nteardown;

int bolt_rt_on_teardown(void (*fn)(void))
{
    if (nteardown == TEARDOWN_MAX)
        return BOLT_ERR_NOMEM;
    teardown_fns[nteardown++] = fn;
    return BOLT_OK;
}

static void teardown(void)
{
    for (int i = 0; i < nteardown; i++)
        teardown_fns[i]();
    for (int t = 0; t < bolt_rt.ntls; t++) {
        bolt_rt.tls[t]->finalize(bolt_rt.tlctx[t]);
        bolt_rt.tlctx[t] = NULL; /* a standby finalizing later may still deliver tunnel frames */
    }
    bolt_rt.ntls = 0;
    bolt_bootstrap_close();
    bolt_match_free_all(&bolt_rt.match);
    bolt_unexp_cache_release();
    bolt_req_table_free();
    bolt_comm_destroy(bolt_rt.world);
    bolt_comm_destroy(bolt_rt.self);
    bolt_rt.world = bolt_rt.self = NULL;
    free(bolt_rt.peers);
    bolt_rt.peers = NULL;
    if (bolt_rt.links)
        linkmap_free(bolt_rt.links);
    free(bolt_rt.links);
    bolt_rt.links = NULL;
}

int bolt_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    int rc;
    if (bolt_rt.initialized)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_init called twice");
    if (bolt_rt.finalized)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_init called after bolt_finalize");
    if (gethostname(bolt_rt.host, sizeof bolt_rt.host - 1) != 0)
        snprintf(bolt_rt.host, sizeof bolt_rt.host, "unknown-host");
    if ((rc = bolt_config_load()) || (rc = read_identity()) || (rc = read_links()))
        return rc;
    bolt_err_set_identity(bolt_rt.rank, bolt_rt.host);
    bolt_rt.spin_count = choose_spin();
    bolt_rt.yield_count = choose_yield();
    bolt_proto_upcalls(&bolt_rt.up);
    bolt_rt.peers = calloc((size_t)bolt_rt.size, sizeof *bolt_rt.peers);
    if (!bolt_rt.peers)
        return bolt_err_set(BOLT_ERR_NOMEM, "out of memory at bolt_init");
    snprintf(bolt_rt.peers[bolt_rt.rank].host, sizeof bolt_rt.peers[0].host, "%s", bolt_rt.host);
    bolt_rt.peers[bolt_rt.rank].tl = -1;
    bolt_rt.peers[bolt_rt.rank].standby = -1;

    if (!bolt_rt.singleton) {
        char key[64];
        if ((rc = bolt_bootstrap_open(bolt_rt.rank, bolt_rt.size)))
            goto fail;
        snprintf(key, sizeof key, "host.%d", bolt_rt.rank);
        if ((rc = bolt_bootstrap_put(key, bolt_rt.host, strlen(bolt_rt.host) + 1)) ||
            (rc = open_transports()) || (rc = bolt_bootstrap_fence()))
            goto fail;
        for (int p = 0; p < bolt_rt.size; p++) {
            size_t len;
            snprintf(key, sizeof key, "host.%d", p);
            if ((rc = bolt_bootstrap_get(key, bolt_rt.peers[p].host,
                                         sizeof bolt_rt.peers[p].host - 1, &len)))
                goto fail;
        }
        if ((rc = wire_up()))
            goto fail;
    }
    if ((rc = make_builtin_comms()))
        goto fail;
    bolt_rt.initialized = 1;
    return BOLT_OK;
fail:
    teardown();
    return rc;
}

int bolt_finalize(void)
{
    if (!bolt_rt.initialized || bolt_rt.finalized)
        return bolt_err_set(BOLT_ERR_NOT_INIT, "bolt_finalize called %s",
                            bolt_rt.finalized ? "twice" : "before bolt_init");
    int rc = bolt_rt.singleton ? BOLT_OK : bolt_proto_goodbye();
    teardown();
    bolt_rt.finalized = 1;
    return rc;
}

int bolt_initialized(int *flag)
{
    if (!flag)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_initialized: flag pointer is NULL");
    *flag = bolt_rt.initialized;
    return BOLT_OK;
}

int bolt_finalized(int *flag)
{
    if (!flag)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_finalized: flag pointer is NULL");
    *flag = bolt_rt.finalized;
    return BOLT_OK;
}

void bolt_abort(int code, const char *why)
{
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", why ? why : "no reason given");
    /* Under boltrun the launcher prints the message and stops every rank. */
    if (bolt_bootstrap_is_open() && bolt_bootstrap_abort(code, msg) == BOLT_OK) {
        /* Give boltrun time to report the abort (not our exit) as the cause;
         * it stops every rank, this one included, well within this bound. */
        for (int i = 0; i < 100; i++)
            usleep(50000);
        _exit(code ? code : 1);
    }
    fprintf(stderr, "bolt: rank %d on %s called bolt_abort (code %d): %s\n", bolt_rt.rank,
            bolt_rt.host, code, msg);
    _exit(code ? code : 1);
}

double bolt_wtime(void)
{
    return bolt_now();
}

const char *bolt_hostname(void)
{
    if (!bolt_rt.host[0] && gethostname(bolt_rt.host, sizeof bolt_rt.host - 1) != 0)
        snprintf(bolt_rt.host, sizeof bolt_rt.host, "unknown-host");
    return bolt_rt.host;
}

/*
 * agent.c — bolt-hostd in check mode (see agent.h). A listener thread answers
 * other hosts' probes (a thread per connection: probes come from every host
 * at once); the main thread serves bolt-cluster's requests one at a time.
 */
#include "cluster/agent.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cluster/check_wire.h"
#include "cluster/hostinfo.h"
#include "cluster/probe.h"

/* Probes run at once from one host: its addresses times every other's. */
#define MAX_PROBES 1024

static struct probe_self self;
static int listen_fd = -1;

struct serve_arg {
    int fd;
};

static void *serve_thread(void *arg)
{
    struct serve_arg *a = arg;
    probe_serve(&self, a->fd);
    free(a);
    return NULL;
}

static void *listen_thread(void *arg)
{
    (void)arg;
    for (;;) {
        int c = accept(listen_fd, NULL, NULL);
        if (c < 0) {
            if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE)
                continue;
            return NULL;
        }
        struct serve_arg *a = malloc(sizeof *a);
        pthread_t t;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        if (a == NULL || (a->fd = c, pthread_create(&t, &at, serve_thread, a)) != 0) {
            close(c);
            free(a);
        }
        pthread_attr_destroy(&at);
    }
}

struct probe_job {
    struct ck_probe p;
    struct ck_probed r;
    pthread_t t;
    int started;
};

static void *probe_thread(void *arg)
{
    struct probe_job *j = arg;
    probe_connect(&self, &j->p, &j->r);
    return NULL;
}

static void send_error(struct chan *ch, const char *msg)
{
    struct chan_buf b = {0};
    chan_buf_u32(&b, 1);
    chan_buf_bytes(&b, msg, strlen(msg));
    chan_send(ch, CHAN_ERROR, b.p, b.len);
    chan_buf_free(&b);
}

/* Runs every probe of one PROBE message at once, then answers each. */
static void do_probes(struct chan *ch, const uint8_t *body, size_t len)
{
    struct chan_rd r = {body, body + len, 0};
    uint32_t n = chan_rd_u32(&r);
    struct probe_job *jobs = n <= MAX_PROBES ? calloc(n ? n : 1, sizeof *jobs) : NULL;
    if (jobs == NULL) {
        send_error(ch, "bolt-hostd: too many probes at once, or out of memory");
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        if (ck_probe_decode(&r, &jobs[i].p) != 0) {
            send_error(ch, "bolt-hostd: malformed probe request");
            free(jobs);
            return;
        }
    for (uint32_t i = 0; i < n; i++) {
        jobs[i].started = pthread_create(&jobs[i].t, NULL, probe_thread, &jobs[i]) == 0;
        if (!jobs[i].started)
            probe_thread(&jobs[i]); /* out of threads: one at a time */
    }
    for (uint32_t i = 0; i < n; i++) {
        if (jobs[i].started)
            pthread_join(jobs[i].t, NULL);
        struct chan_buf b = {0};
        ck_probed_encode(&b, &jobs[i].r);
        chan_send(ch, CK_PROBED, b.p, b.len);
        chan_buf_free(&b);
    }
    free(jobs);
}

struct rprobe_job {
    const struct ck_rprobe *p;
    struct ck_rprobed *r;
    uint32_t n;
    pthread_t t;
    int started;
};

static void *rprobe_thread(void *arg)
{
    struct rprobe_job *j = arg;
    probe_rdma(&self, j->p, j->n, j->r);
    return NULL;
}

/* Runs the RDMA probes of one RPROBE message: the probes toward one host
 * (consecutive, same dst and port) share a connection, hosts run at once. */
static void do_rprobes(struct chan *ch, const uint8_t *body, size_t len)
{
    struct chan_rd rd = {body, body + len, 0};
    uint32_t n = chan_rd_u32(&rd), nj = 0;
    struct ck_rprobe *p = n <= MAX_PROBES ? calloc(n ? n : 1, sizeof *p) : NULL;
    struct ck_rprobed *r = p ? calloc(n ? n : 1, sizeof *r) : NULL;
    struct rprobe_job *jobs = r ? calloc(n ? n : 1, sizeof *jobs) : NULL;
    if (jobs == NULL) {
        send_error(ch, "bolt-hostd: too many RDMA probes at once, or out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < n; i++)
        if (ck_rprobe_decode(&rd, &p[i]) != 0) {
            send_error(ch, "bolt-hostd: malformed RDMA probe request");
            goto out;
        }
    for (uint32_t i = 0; i < n; i++) {
        if (nj > 0 && strcmp(p[i].dst, jobs[nj - 1].p->dst) == 0 && p[i].port == jobs[nj - 1].p->port) {
            jobs[nj - 1].n++;
            continue;
        }
        jobs[nj++] = (struct rprobe_job){.p = &p[i], .r = &r[i], .n = 1};
    }
    for (uint32_t k = 0; k < nj; k++) {
        jobs[k].started = pthread_create(&jobs[k].t, NULL, rprobe_thread, &jobs[k]) == 0;
        if (!jobs[k].started)
            rprobe_thread(&jobs[k]);
    }
    for (uint32_t k = 0; k < nj; k++)
        if (jobs[k].started)
            pthread_join(jobs[k].t, NULL);
    for (uint32_t i = 0; i < n; i++) {
        struct chan_buf b = {0};
        ck_rprobed_encode(&b, &r[i]);
        chan_send(ch, CK_RPROBED, b.p, b.len);
        chan_buf_free(&b);
    }
out:
    free(jobs);
    free(r);
    free(p);
}

static void on_frame(void *ctx, uint8_t type, const uint8_t *body, size_t len)
{
    struct chan *ch = ctx;
    if (type == CK_PROBE) {
        do_probes(ch, body, len);
    } else if (type == CK_RPROBE) {
        do_rprobes(ch, body, len);
    } else if (type == CK_MEASURE) {
        struct ck_measure m;
        struct ck_measured res;
        if (ck_measure_decode(body, len, &m) != 0) {
            send_error(ch, "bolt-hostd: malformed measure request");
            return;
        }
        probe_measure(&self, &m, &res);
        struct chan_buf b = {0};
        ck_measured_encode(&b, &res);
        chan_send(ch, CK_MEASURED, b.p, b.len);
        chan_buf_free(&b);
    } else {
        send_error(ch, "bolt-hostd: unexpected message in check mode");
    }
    chan_flush(ch);
}

int agent_run(struct chan *ch, const char *host, const uint8_t *body, size_t len)
{
    struct ck_check c;
    char err[512];
    if (ck_check_decode(body, len, &c) != 0) {
        snprintf(err, sizeof err, "bolt-hostd on %s: bad check message (a different Bolt version?)", host);
        send_error(ch, err);
        chan_close(ch, 5.0);
        return 1;
    }
    memcpy(self.secret, c.secret, sizeof self.secret);
    self.index = c.index;
    struct ck_info info;
    hostinfo_collect(&info);
    pthread_t lt;
    if (probe_listen(&listen_fd, &info.port, err, sizeof err) != 0 ||
        pthread_create(&lt, NULL, listen_thread, NULL) != 0) {
        char msg[600];
        snprintf(msg, sizeof msg, "bolt-hostd on %s: %s", host, listen_fd < 0 ? err : "cannot start a thread");
        send_error(ch, msg);
        chan_close(ch, 5.0);
        return 1;
    }
    struct chan_buf b = {0};
    ck_info_encode(&b, &info);
    chan_send(ch, CK_INFO, b.p, b.len);
    chan_buf_free(&b);
    const char *why = NULL;
    while (!ch->eof && !ch->broken) {
        struct pollfd p[2];
        chan_fill(ch, p);
        if (poll(p, 2, 1000) < 0 && errno != EINTR)
            break;
        if (p[1].revents)
            chan_flush(ch);
        if (p[0].revents && chan_read(ch, on_frame, ch, &why) < 0) {
            fprintf(stderr, "bolt-hostd on %s: the channel from bolt-cluster is corrupt (%s)\n", host, why);
            break;
        }
    }
    /* The check is over: the listener thread goes with the process. */
    chan_close(ch, 1.0);
    return 0;
}

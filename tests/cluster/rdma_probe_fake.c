/*
 * rdma_probe_fake.c — cluster/rdma_probe.h without hardware, for
 * check_cluster: devices are names, cables a table the test fills
 * (fake_rdma_cable), and a send reaches the queue pair it was connected to
 * only when a cable joins the two devices (a UC message to the wrong device
 * is lost silently, as on a Mac). fake_rdma_tamper flips a bit of every
 * message, as a forger without the secret would get it wrong.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/rdma_probe.h"

struct rp_ep {
    char dev[64];
    uint32_t qpn, peer_qpn;
    int recv, done;
    size_t len;
    uint8_t buf[RP_MSG_MAX];
    struct rp_ep *next;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct rp_ep *eps;
static uint32_t next_qpn = 100;
static char cables[16][2][64];
static int ncables;
int fake_rdma_tamper;

void fake_rdma_cable(const char *a, const char *b)
{
    snprintf(cables[ncables][0], 64, "%s", a);
    snprintf(cables[ncables][1], 64, "%s", b);
    ncables++;
}

static int cabled(const char *a, const char *b)
{
    for (int i = 0; i < ncables; i++)
        if ((!strcmp(cables[i][0], a) && !strcmp(cables[i][1], b)) ||
            (!strcmp(cables[i][0], b) && !strcmp(cables[i][1], a)))
            return 1;
    return 0;
}

struct rp_ep *rprobe_open(const char *dev, uint32_t gid_index, int recv, struct rp_qpinfo *me, char *err,
                          size_t cap)
{
    (void)gid_index;
    if (strncmp(dev, "down", 4) == 0) {
        snprintf(err, cap, "%s port 1 is PORT_DOWN", dev);
        return NULL;
    }
    struct rp_ep *e = calloc(1, sizeof *e);
    snprintf(e->dev, sizeof e->dev, "%s", dev);
    e->recv = recv;
    pthread_mutex_lock(&mu);
    e->qpn = next_qpn++;
    e->next = eps;
    eps = e;
    pthread_mutex_unlock(&mu);
    memset(me, 0, sizeof *me);
    me->qpn = e->qpn;
    return e;
}

int rprobe_connect(struct rp_ep *e, const struct rp_qpinfo *peer, char *err, size_t cap)
{
    (void)err;
    (void)cap;
    e->peer_qpn = peer->qpn;
    return 0;
}

int rprobe_send(struct rp_ep *e, const void *buf, size_t len, char *err, size_t cap)
{
    (void)err;
    (void)cap;
    pthread_mutex_lock(&mu);
    for (struct rp_ep *p = eps; p; p = p->next)
        if (p->qpn == e->peer_qpn && p->recv && cabled(e->dev, p->dev)) {
            memcpy(p->buf, buf, len);
            if (fake_rdma_tamper)
                p->buf[len - 1] ^= 1;
            p->len = len;
            p->done = 1;
        }
    e->done = 1; /* the send's own completion */
    pthread_mutex_unlock(&mu);
    return 0;
}

int rprobe_poll(struct rp_ep *e, void *buf, size_t *len, char *err, size_t cap)
{
    (void)err;
    (void)cap;
    pthread_mutex_lock(&mu);
    int d = e->done;
    if (d && e->recv) {
        memcpy(buf, e->buf, e->len);
        *len = e->len;
    }
    e->done = 0;
    pthread_mutex_unlock(&mu);
    return d;
}

void rprobe_close(struct rp_ep *e)
{
    if (e == NULL)
        return;
    pthread_mutex_lock(&mu);
    for (struct rp_ep **p = &eps; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            break;
        }
    pthread_mutex_unlock(&mu);
    free(e);
}

/*
 * tcp_evloop_epoll.c — Linux event loop (built only where epoll exists).
 * pollfds() hands the runtime the epoll fd alone: it turns readable whenever
 * a registered socket has an event we asked for.
 */
#include "transport/tcp/tcp_evloop.h"

#if TCP_HAVE_EPOLL
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "runtime/errors.h"

#define TCP_EPOLL_BATCH 64

struct tcp_evloop {
    int epfd;
};

static uint32_t to_epoll(int events)
{
    uint32_t e = 0;
    if (events & TCP_EV_IN)
        e |= EPOLLIN | EPOLLRDHUP;
    if (events & TCP_EV_OUT)
        e |= EPOLLOUT;
    return e;
}

static int ee_create(struct tcp_evloop **out)
{
    struct tcp_evloop *ev = calloc(1, sizeof *ev);
    if (!ev)
        return bolt_err_set(BOLT_ERR_NOMEM, "tcp: out of memory for the epoll event loop");
    ev->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (ev->epfd < 0) {
        int e = errno;
        free(ev);
        return bolt_err_set(BOLT_ERR_SYS, "tcp: epoll_create1 failed: %s", strerror(e));
    }
    *out = ev;
    return BOLT_OK;
}

static void ee_destroy(struct tcp_evloop *ev)
{
    if (!ev)
        return;
    close(ev->epfd);
    free(ev);
}

static int ctl(struct tcp_evloop *ev, int op, int fd, int events, void *data)
{
    struct epoll_event e;
    memset(&e, 0, sizeof e);
    e.events = to_epoll(events);
    e.data.ptr = data;
    if (epoll_ctl(ev->epfd, op, fd, &e) != 0)
        return bolt_err_set(BOLT_ERR_SYS, "tcp: epoll_ctl(fd %d) failed: %s", fd, strerror(errno));
    return BOLT_OK;
}

static int ee_add(struct tcp_evloop *ev, int fd, int events, void *data)
{
    return ctl(ev, EPOLL_CTL_ADD, fd, events, data);
}

static int ee_mod(struct tcp_evloop *ev, int fd, int events, void *data)
{
    return ctl(ev, EPOLL_CTL_MOD, fd, events, data);
}

static int ee_del(struct tcp_evloop *ev, int fd)
{
    struct epoll_event e;
    memset(&e, 0, sizeof e);
    if (epoll_ctl(ev->epfd, EPOLL_CTL_DEL, fd, &e) != 0 && errno != ENOENT && errno != EBADF)
        return bolt_err_set(BOLT_ERR_SYS, "tcp: epoll_ctl(DEL fd %d) failed: %s", fd, strerror(errno));
    return BOLT_OK;
}

static int ee_wait(struct tcp_evloop *ev, struct tcp_event *out, int max, int timeout_ms)
{
    struct epoll_event evs[TCP_EPOLL_BATCH];
    if (max > TCP_EPOLL_BATCH)
        max = TCP_EPOLL_BATCH;
    int r;
    do {
        r = epoll_wait(ev->epfd, evs, max, timeout_ms);
    } while (r < 0 && errno == EINTR && timeout_ms == 0);
    if (r < 0) {
        if (errno == EINTR)
            return 0;
        return bolt_err_set(BOLT_ERR_SYS, "tcp: epoll_wait failed: %s", strerror(errno));
    }
    for (int i = 0; i < r; i++) {
        int e = 0;
        if (evs[i].events & (EPOLLIN | EPOLLRDHUP))
            e |= TCP_EV_IN;
        if (evs[i].events & EPOLLOUT)
            e |= TCP_EV_OUT;
        if (evs[i].events & (EPOLLERR | EPOLLHUP))
            e |= TCP_EV_ERR;
        out[i].data = evs[i].data.ptr;
        out[i].events = e;
    }
    return r;
}

static int ee_pollfds(struct tcp_evloop *ev, struct pollfd *fds, int max)
{
    if (max < 1)
        return 0;
    fds[0].fd = ev->epfd;
    fds[0].events = POLLIN;
    fds[0].revents = 0;
    return 1;
}

const struct tcp_evloop_ops tcp_evloop_epoll_ops = {
    .name = "epoll",
    .create = ee_create,
    .destroy = ee_destroy,
    .add = ee_add,
    .mod = ee_mod,
    .del = ee_del,
    .wait = ee_wait,
    .pollfds = ee_pollfds,
};
#else
typedef int tcp_evloop_epoll_not_built;
#endif

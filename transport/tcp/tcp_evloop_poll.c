/*
 * tcp_evloop_poll.c — the portable event loop: one pollfd array, an fd ->
 * slot map for O(1) changes, and a rotating start so a busy socket at the
 * front cannot starve the others when more are ready than the caller takes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/errors.h"
#include "transport/tcp/tcp_evloop.h"

struct tcp_evloop {
    struct pollfd *pfd;
    void **data;
    int n, cap;
    int *slot; /* fd -> index in pfd, -1 when absent */
    int nslot;
    int start;
};

static short to_poll(int events)
{
    short e = 0;
    if (events & TCP_EV_IN)
        e |= POLLIN;
    if (events & TCP_EV_OUT)
        e |= POLLOUT;
    return e;
}

static int ep_create(struct tcp_evloop **out)
{
    struct tcp_evloop *ev = calloc(1, sizeof *ev);
    if (!ev)
        return bolt_err_set(BOLT_ERR_NOMEM, "tcp: out of memory for the poll event loop");
    *out = ev;
    return BOLT_OK;
}

static void ep_destroy(struct tcp_evloop *ev)
{
    if (!ev)
        return;
    free(ev->pfd);
    free(ev->data);
    free(ev->slot);
    free(ev);
}

static int ep_add(struct tcp_evloop *ev, int fd, int events, void *data)
{
    if (fd < 0)
        return bolt_err_set(BOLT_ERR_INTERNAL, "tcp: poll loop: bad fd %d", fd);
    if (fd >= ev->nslot) {
        int ns = ev->nslot ? ev->nslot : 64;
        while (ns <= fd)
            ns *= 2;
        int *s = realloc(ev->slot, (size_t)ns * sizeof *s);
        if (!s)
            return bolt_err_set(BOLT_ERR_NOMEM, "tcp: out of memory for the poll event loop");
        for (int i = ev->nslot; i < ns; i++)
            s[i] = -1;
        ev->slot = s;
        ev->nslot = ns;
    }
    if (ev->slot[fd] >= 0)
        return bolt_err_set(BOLT_ERR_INTERNAL, "tcp: poll loop: fd %d added twice", fd);
    if (ev->n == ev->cap) {
        int nc = ev->cap ? ev->cap * 2 : 16;
        struct pollfd *p = realloc(ev->pfd, (size_t)nc * sizeof *p);
        if (!p)
            return bolt_err_set(BOLT_ERR_NOMEM, "tcp: out of memory for the poll event loop");
        ev->pfd = p;
        void **d = realloc(ev->data, (size_t)nc * sizeof *d);
        if (!d)
            return bolt_err_set(BOLT_ERR_NOMEM, "tcp: out of memory for the poll event loop");
        ev->data = d;
        ev->cap = nc;
    }
    ev->pfd[ev->n].fd = fd;
    ev->pfd[ev->n].events = to_poll(events);
    ev->pfd[ev->n].revents = 0;
    ev->data[ev->n] = data;
    ev->slot[fd] = ev->n++;
    return BOLT_OK;
}

static int find(struct tcp_evloop *ev, int fd)
{
    if (fd < 0 || fd >= ev->nslot || ev->slot[fd] < 0)
        return -1;
    return ev->slot[fd];
}

static int ep_mod(struct tcp_evloop *ev, int fd, int events, void *data)
{
    int i = find(ev, fd);
    if (i < 0)
        return bolt_err_set(BOLT_ERR_INTERNAL, "tcp: poll loop: fd %d not registered", fd);
    ev->pfd[i].events = to_poll(events);
    ev->data[i] = data;
    return BOLT_OK;
}

static int ep_del(struct tcp_evloop *ev, int fd)
{
    int i = find(ev, fd);
    if (i < 0)
        return BOLT_OK;
    int last = --ev->n;
    if (i != last) {
        ev->pfd[i] = ev->pfd[last];
        ev->data[i] = ev->data[last];
        ev->slot[ev->pfd[i].fd] = i;
    }
    ev->slot[fd] = -1;
    return BOLT_OK;
}

static int ep_wait(struct tcp_evloop *ev, struct tcp_event *out, int max, int timeout_ms)
{
    if (ev->n == 0)
        return 0;
    int r;
    do {
        r = poll(ev->pfd, (nfds_t)ev->n, timeout_ms);
    } while (r < 0 && errno == EINTR && timeout_ms == 0);
    if (r < 0) {
        if (errno == EINTR)
            return 0;
        return bolt_err_set(BOLT_ERR_SYS, "tcp: poll() failed: %s", strerror(errno));
    }
    int got = 0;
    if (r == 0)
        return 0;
    if (ev->start >= ev->n)
        ev->start = 0;
    for (int k = 0; k < ev->n && got < max; k++) {
        int i = (ev->start + k) % ev->n;
        short re = ev->pfd[i].revents;
        if (!re)
            continue;
        int e = 0;
        if (re & POLLIN)
            e |= TCP_EV_IN;
        if (re & POLLOUT)
            e |= TCP_EV_OUT;
        if (re & (POLLERR | POLLHUP | POLLNVAL))
            e |= TCP_EV_ERR;
        out[got].data = ev->data[i];
        out[got].events = e;
        got++;
    }
    ev->start++;
    return got;
}

static int ep_pollfds(struct tcp_evloop *ev, struct pollfd *fds, int max)
{
    int n = ev->n < max ? ev->n : max;
    for (int i = 0; i < n; i++) {
        fds[i].fd = ev->pfd[i].fd;
        fds[i].events = ev->pfd[i].events;
        fds[i].revents = 0;
    }
    return n;
}

const struct tcp_evloop_ops tcp_evloop_poll_ops = {
    .name = "poll",
    .create = ep_create,
    .destroy = ep_destroy,
    .add = ep_add,
    .mod = ep_mod,
    .del = ep_del,
    .wait = ep_wait,
    .pollfds = ep_pollfds,
};

int tcp_evloop_choose(const char *name, const struct tcp_evloop_ops **ops)
{
    if (!name || !*name || strcmp(name, "auto") == 0) {
#if TCP_HAVE_EPOLL
        *ops = &tcp_evloop_epoll_ops;
#else
        *ops = &tcp_evloop_poll_ops;
#endif
        return BOLT_OK;
    }
    if (strcmp(name, "poll") == 0) {
        *ops = &tcp_evloop_poll_ops;
        return BOLT_OK;
    }
    if (strcmp(name, "epoll") == 0) {
#if TCP_HAVE_EPOLL
        *ops = &tcp_evloop_epoll_ops;
        return BOLT_OK;
#else
        return bolt_err_set(BOLT_ERR_CONFIG,
                            "BOLT_TCP_EVLOOP=epoll: this build has no epoll; use poll or auto");
#endif
    }
    return bolt_err_set(BOLT_ERR_CONFIG,
                        "BOLT_TCP_EVLOOP=%s is not an event loop; use poll, epoll or auto", name);
}

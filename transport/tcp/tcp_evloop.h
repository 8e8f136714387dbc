/*
 * tcp_evloop.h — the TCP transport's event-loop seam.
 *
 * Two backends with one interface: poll() (portable, the macOS path) and
 * epoll (Linux, only built where sys/epoll.h and epoll_create1 exist).
 * BOLT_TCP_EVLOOP=poll|epoll|auto picks one at init. Registrations are level
 * triggered; `data` is handed back untouched with each event.
 */
#ifndef BOLT_TCP_EVLOOP_H
#define BOLT_TCP_EVLOOP_H

#include <poll.h>

#if defined(__linux__) && defined(HAVE_SYS_EPOLL_H) && defined(HAVE_EPOLL_CREATE1) && \
    !defined(BOLT_TCP_FORCE_POSIX)
#define TCP_HAVE_EPOLL 1
#else
#define TCP_HAVE_EPOLL 0
#endif

enum { TCP_EV_IN = 1, TCP_EV_OUT = 2, TCP_EV_ERR = 4 };

struct tcp_event {
    void *data;
    int events; /* TCP_EV_* */
};

struct tcp_evloop;

struct tcp_evloop_ops {
    const char *name;
    int (*create)(struct tcp_evloop **ev);
    void (*destroy)(struct tcp_evloop *ev);
    int (*add)(struct tcp_evloop *ev, int fd, int events, void *data);
    int (*mod)(struct tcp_evloop *ev, int fd, int events, void *data);
    int (*del)(struct tcp_evloop *ev, int fd);
    /* Fills up to max ready events; timeout_ms 0 = do not block. Returns n >= 0
     * or a BOLT_ERR_* code. */
    int (*wait)(struct tcp_evloop *ev, struct tcp_event *out, int max, int timeout_ms);
    /* pollfds the runtime may sleep on (see bolt_transport.pollfds). */
    int (*pollfds)(struct tcp_evloop *ev, struct pollfd *fds, int max);
};

extern const struct tcp_evloop_ops tcp_evloop_poll_ops;
#if TCP_HAVE_EPOLL
extern const struct tcp_evloop_ops tcp_evloop_epoll_ops;
#endif

/* Picks the backend named by `name` (poll, epoll, auto). BOLT_ERR_CONFIG when
 * the name is unknown or not built here. */
int tcp_evloop_choose(const char *name, const struct tcp_evloop_ops **ops);

#endif

/*
 * tcp_os_posix.c — portable side of the platform seam (macOS, BSDs; also
 * built and tested on Linux). SIGPIPE is avoided with SO_NOSIGPIPE where the
 * system has it, else by blocking SIGPIPE around the write and consuming the
 * signal the write raised. The host identity is the hostname.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "transport/tcp/tcp_os.h"

const char tcp_os_name[] = "posix";

int tcp_os_sock_setup(int fd)
{
#ifdef SO_NOSIGPIPE
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one) != 0)
        return -1;
#else
    (void)fd;
#endif
    return 0;
}

int tcp_os_congestion_set(int fd, const char *name)
{
#ifdef TCP_CONGESTION /* FreeBSD; Linux when this file is forced */
    return setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, (socklen_t)strlen(name));
#else
    (void)fd;
    (void)name;
    errno = ENOPROTOOPT;
    return -1;
#endif
}

ssize_t tcp_os_writev(int fd, const struct iovec *iov, int iovcnt)
{
#ifdef SO_NOSIGPIPE
    return writev(fd, iov, iovcnt);
#else
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigemptyset(&pending);
    sigpending(&pending);
    int was_pending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    ssize_t n = writev(fd, iov, iovcnt);
    int err = errno;
    if (n < 0 && err == EPIPE && !was_pending) {
        /* Consume the SIGPIPE this write raised (it is pending, blocked). */
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = err;
    return n;
#endif
}

void tcp_os_dead_link_after(int fd, double seconds)
{
    int one = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
#if defined(TCP_KEEPALIVE) /* macOS: idle seconds before the first probe */
    int idle = seconds >= 2 ? (int)(seconds / 2) : 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPALIVE, &idle, sizeof idle);
#endif
#if defined(TCP_KEEPINTVL) && defined(TCP_KEEPCNT)
    int intvl = 1, cnt = seconds >= 2 ? (int)(seconds / 2) : 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
    (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
#endif
}

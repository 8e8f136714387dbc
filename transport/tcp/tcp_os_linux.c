/*
 * tcp_os_linux.c — Linux side of the platform seam: MSG_NOSIGNAL on every
 * write, and the kernel's boot_id and network namespace as part of the host
 * identity: two containers with one hostname but different kernels, or two
 * network namespaces of one kernel (whose loopbacks are separate), must not
 * use 127.0.0.1 to reach each other.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "transport/tcp/tcp_os.h"

const char tcp_os_name[] = "linux";

int tcp_os_sock_setup(int fd)
{
    (void)fd; /* MSG_NOSIGNAL is given per call */
    return 0;
}

ssize_t tcp_os_writev(int fd, const struct iovec *iov, int iovcnt)
{
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = (struct iovec *)iov;
    msg.msg_iovlen = (size_t)iovcnt;
    return sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
}

int tcp_os_congestion_set(int fd, const char *name)
{
    return setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, (socklen_t)strlen(name));
}

void tcp_os_dead_link_after(int fd, double seconds)
{
    int one = 1, idle = seconds >= 4 ? (int)(seconds / 2) : 1, intvl = 1;
    int cnt = (int)seconds - idle > 1 ? (int)seconds - idle : 1;
    unsigned ms = seconds > 0 && seconds < 4e6 ? (unsigned)(seconds * 1000) : 0;
    (void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
    (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
    if (ms)
        (void)setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, sizeof ms);
}

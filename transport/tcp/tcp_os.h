/*
 * tcp_os.h — the few places where the TCP transport differs per platform.
 * tcp_os_linux.c: MSG_NOSIGNAL, boot_id, TCP_CONGESTION. tcp_os_posix.c:
 * SO_NOSIGPIPE (or a blocked SIGPIPE around the write), hostname only, a
 * congestion control choice only where TCP_CONGESTION exists (not macOS).
 * Exactly one is linked.
 */
#ifndef BOLT_TCP_OS_H
#define BOLT_TCP_OS_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Per-socket setup so that writing to a closed connection raises no SIGPIPE. */
int tcp_os_sock_setup(int fd);
/* A link that stops carrying anything (a cable pulled, a host gone without a
 * reset) breaks the connection after about `seconds` instead of TCP's many
 * minutes: keepalive probes when idle, and a limit on unacknowledged data
 * where the system has one (Linux TCP_USER_TIMEOUT). Best effort. */
void tcp_os_dead_link_after(int fd, double seconds);
/* Sets the connection's congestion control algorithm by name: 0, or -1 with
 * errno (ENOPROTOOPT where the system has no per-connection choice). */
int tcp_os_congestion_set(int fd, const char *name);
/* writev() that never raises SIGPIPE (EPIPE is returned instead). */
ssize_t tcp_os_writev(int fd, const struct iovec *iov, int iovcnt);
/* Name of the backend, for logs and tests ("linux" or "posix"). */
extern const char tcp_os_name[];

#endif

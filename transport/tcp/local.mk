# transport/tcp/: the TCP transport (bolt_transport_tcp).
libbolt_la_SOURCES += \
	transport/tcp/tcp.h \
	transport/tcp/tcp_ctx.c \
	transport/tcp/tcp_conn.c \
	transport/tcp/tcp_direct.c \
	transport/tcp/tcp_addr.c \
	transport/tcp/tcp_wireup.c \
	transport/tcp/tcp_retain.h \
	transport/tcp/tcp_retain.c \
	transport/tcp/tcp_stream.c \
	transport/tcp/tcp_resume.c \
	transport/tcp/tcp_answer.c \
	transport/tcp/tcp_evloop.h \
	transport/tcp/tcp_evloop_poll.c \
	transport/tcp/tcp_os.h
# Platform seam: epoll and MSG_NOSIGNAL on Linux; poll and SO_NOSIGPIPE elsewhere.
# (tests/transport builds the POSIX files on Linux too.)
if BOLT_OS_LINUX
libbolt_la_SOURCES += transport/tcp/tcp_evloop_epoll.c transport/tcp/tcp_os_linux.c
else
libbolt_la_SOURCES += transport/tcp/tcp_os_posix.c
endif
EXTRA_DIST += transport/tcp/tcp_evloop_epoll.c transport/tcp/tcp_os_linux.c transport/tcp/tcp_os_posix.c

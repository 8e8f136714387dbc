/*
 * spawn.c — the guard process and the rank it starts (see spawn.h).
 */
#include "launcher/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher/bind.h"
#include "launcher/pdeath.h"
#include "launcher/reaper.h"
#include "launcher/shm_host.h"

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif
#ifndef NSIG
#define NSIG 65
#endif

static const uint8_t status_magic[4] = {'B', 'G', 'S', 0};

int spawn_decode_status(const uint8_t buf[SPAWN_STATUS_BYTES], int *status)
{
    if (memcmp(buf, status_magic, 4) != 0)
        return -1;
    int32_t v;
    memcpy(&v, buf + 4, 4); /* same binary on both ends: host order */
    *status = v;
    return 0;
}

/* ---- In the guard. ---- */

static int g_chld_w = -1;

static void guard_on_chld(int sig)
{
    (void)sig;
    int e = errno;
    ssize_t r = write(g_chld_w, "c", 1);
    (void)r;
    errno = e;
}

static void set_cloexec(int fd) { (void)fcntl(fd, F_SETFD, FD_CLOEXEC); }
static void set_nonblock(int fd) { (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* boltrun is gone: stop the group politely, then for good. Does not return. */
static _Noreturn void guard_orphaned(pid_t rank_pid, double grace)
{
    killpg(getpid(), SIGTERM);
    int waited = 0, status;
    int limit = grace > 0 ? (int)(grace * 1000) : 0;
    while (waited < limit) {
        if (waitpid(rank_pid, &status, WNOHANG) == rank_pid)
            break;
        sleep_ms(20);
        waited += 20;
    }
    reaper_kill_all(); /* the rank, and daemons it started that left the group */
    killpg(getpid(), SIGKILL); /* takes the guard too */
    _exit(1);
}

static void rank_exec(const struct spawn_opts *o, pid_t guard, int out_w, int err_w)
{
    /* Dies with the guard where the kernel can arrange it (Linux). */
    if (boltrun_pdeath_arm(SIGKILL, guard) != 0)
        _exit(1);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    /* Default dispositions, but what boltrun was started with ignored stays
     * ignored (nohup, a background job's SIGINT), as without boltrun. */
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP) {
            sa.sa_handler = o->ignored && sigismember(o->ignored, s) == 1 ? SIG_IGN : SIG_DFL;
            (void)sigaction(s, &sa, NULL);
        }
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);

    /* Never boltrun's own stdin: in a process group of its own, the rank
     * would be a background reader of boltrun's terminal (SIGTTIN). */
    int in = o->stdin_fd >= 0 ? o->stdin_fd : open("/dev/null", O_RDONLY);
    if (in < 0) {
        close(0);
    } else if (in == 0) {
        (void)fcntl(0, F_SETFD, 0); /* dup2(0, 0) would keep close-on-exec */
    } else {
        if (dup2(in, 0) < 0)
            _exit(127);
        close(in);
    }
    if (dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
        _exit(127);
    if (out_w > 2)
        close(out_w);
    if (err_w > 2 && err_w != out_w)
        close(err_w);
    int local = o->local_size > 0 ? o->local_rank : o->rank;
    int nlocal = o->local_size > 0 ? o->local_size : o->size;
    if (o->bind != NULL)
        bind_slot_apply(o->bind, local, o->host); /* after dup2: its warnings reach the rank's stderr */

    char num[32];
    snprintf(num, sizeof num, "%d", o->rank);
    setenv("BOLT_RANK", num, 1);
    snprintf(num, sizeof num, "%d", local);
    setenv("BOLT_LOCAL_RANK", num, 1);
    snprintf(num, sizeof num, "%d", o->size);
    setenv("BOLT_SIZE", num, 1);
    snprintf(num, sizeof num, "%d", nlocal);
    setenv("BOLT_LOCAL_SIZE", num, 1);
    setenv("BOLT_KVS_ADDR", o->kvs_addr, 1);
    setenv("BOLT_JOB_SECRET", o->secret_hex, 1);
    setenv("BOLT_JOB_ID", o->job_id, 1);
    setenv("BOLT_LAUNCHER_HOST", o->host, 1);
    shm_host_child_setup(o->shm, local);

    execv(o->path, o->argv);
    int e = errno;
    fprintf(stderr, "boltrun: rank %d on %s cannot execute '%s': %s\n", o->rank, o->host, o->path, strerror(e));
    _exit(e == ENOENT ? 127 : 126);
}

static _Noreturn void guard_main(const struct spawn_opts *o, pid_t boltrun_pgid, int life, int out_w, int err_w)
{
    pid_t self = getpid();
    (void)setpgid(0, 0);
    reaper_become(); /* orphans of the rank (e.g. after setsid) come back to us */

    /* Survive the group signals boltrun forwards, so the rank's status can be
     * reported; the rank resets these to default. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    sigaction(SIGPIPE, &sa, NULL);
    /* boltrun's SIGCONT handler would write to its signal pipe, closed here. */
    sa.sa_handler = SIG_DFL;
    sigaction(SIGCONT, &sa, NULL);
    int chld[2];
    if (pipe(chld) != 0)
        _exit(1);
    set_cloexec(chld[0]);
    set_cloexec(chld[1]);
    set_nonblock(chld[0]);
    set_nonblock(chld[1]);
    g_chld_w = chld[1];
    sa.sa_handler = guard_on_chld;
    sa.sa_flags = SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    pid_t rank = fork();
    if (rank == 0) {
        close(life);
        close(chld[0]);
        close(chld[1]);
        rank_exec(o, self, out_w, err_w);
    }
    close(out_w);
    close(err_w);
    if (o->stdin_fd >= 0)
        close(o->stdin_fd); /* the rank's alone: it must see EOF when boltrun closes its end */
    int status;
    if (rank < 0) {
        status = 127 << 8; /* as if exit(127) */
        fprintf(stderr, "boltrun: cannot start rank %d (fork: %s)\n", o->rank, strerror(errno));
    } else {
        for (;;) {
            pid_t w = waitpid(rank, &status, WNOHANG);
            if (w == rank)
                break;
            struct pollfd p[2] = {{.fd = life, .events = POLLIN}, {.fd = chld[0], .events = POLLIN}};
            int r = poll(p, 2, 1000); /* the timeout only bounds a lost wake-up */
            if (r < 0 && errno != EINTR)
                guard_orphaned(rank, o->grace);
            if (r > 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
                char buf[64];
                ssize_t n = read(life, buf, sizeof buf);
                if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
                    guard_orphaned(rank, o->grace);
                /* boltrun sends nothing today; bytes are ignored */
            }
            if (r > 0 && (p[1].revents & POLLIN)) {
                char buf[64];
                while (read(chld[0], buf, sizeof buf) > 0) {
                }
            }
        }
    }
    uint8_t msg[SPAWN_STATUS_BYTES];
    int32_t v = status;
    memcpy(msg, status_magic, 4);
    memcpy(msg + 4, &v, 4);
    ssize_t sent;
    do
        sent = send(life, msg, sizeof msg, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    /* Leave the group (back to boltrun's) so that clearing it spares the guard;
     * if that is not possible, the guard goes with it, its report sent. */
    if (setpgid(0, boltrun_pgid) == 0) {
        killpg(self, SIGKILL);
        reaper_kill_all(); /* what left the group: daemons the rank started */
        _exit(0);
    }
    reaper_kill_all();
    killpg(self, SIGKILL);
    _exit(0);
}

int spawn_rank(const struct spawn_opts *o, struct spawn_result *r, char *err, size_t errcap)
{
    int sv[2], outp[2], errp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        snprintf(err, errcap, "cannot create the lifeline of rank %d: %s", o->rank, strerror(errno));
        return -1;
    }
    if (pipe(outp) != 0) {
        snprintf(err, errcap, "cannot create the stdout pipe of rank %d: %s", o->rank, strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pipe(errp) != 0) {
        snprintf(err, errcap, "cannot create the stderr pipe of rank %d: %s", o->rank, strerror(errno));
        close(sv[0]);
        close(sv[1]);
        close(outp[0]);
        close(outp[1]);
        return -1;
    }
    int fds[] = {sv[0], sv[1], outp[0], outp[1], errp[0], errp[1]};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        set_cloexec(fds[i]);
    pid_t pgid = getpgrp();
    fflush(NULL);
    /* Block signals across fork: the guard must not run boltrun's handlers
     * before it has installed its own (it unblocks them itself). */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    pid_t g = fork();
    if (g != 0)
        sigprocmask(SIG_SETMASK, &old, NULL);
    if (g < 0) {
        snprintf(err, errcap, "cannot start the guard of rank %d (fork: %s); too many processes?", o->rank,
                 strerror(errno));
        for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
            close(fds[i]);
        return -1;
    }
    if (g == 0) {
        for (int i = 0; i < o->nclose; i++)
            close(o->close_fds[i]);
        close(sv[0]);
        close(outp[0]);
        close(errp[0]);
        guard_main(o, pgid, sv[1], outp[1], errp[1]);
    }
    /* Also from the parent, so that killpg(g) works at once (no race with
     * the guard's own setpgid). EACCES/ESRCH: the guard did it or is gone. */
    (void)setpgid(g, g);
    close(sv[1]);
    close(outp[1]);
    close(errp[1]);
    set_nonblock(sv[0]);
    set_nonblock(outp[0]);
    set_nonblock(errp[0]);
    r->guard = g;
    r->lifeline = sv[0];
    r->out_fd = outp[0];
    r->err_fd = errp[0];
    return 0;
}

/*
 * job.c — running one job (see job.h). Everything happens in one poll() loop
 * and every wait in it is bounded: the job's --timeout, the kill grace, and a
 * hard limit after SIGKILL.
 */
#include "launcher/job.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher/chan_wire.h"
#include "launcher/hostlink.h"
#include "launcher/hostlist.h"
#include "launcher/iofwd.h"
#include "launcher/kvs_server.h"
#include "launcher/shm_host.h"
#include "launcher/spawn.h"
#include "launcher/stdin_fwd.h"
#include "runtime/crypto.h"
#include "runtime/kvs_wire.h"

#ifndef NSIG
#define NSIG 65
#endif

/* After SIGKILL, how long to wait for the guards to report before giving up. */
#define HARD_WAIT_S 5.0
/* After every rank has ended, how long to wait for their output pipes to close
 * (a stray grandchild that left the rank's process group may hold them). */
#define DRAIN_WAIT_S 2.0
/* Once the job is being stopped and every rank has ended, output that
 * boltrun's stdout/stderr has not taken for this long is dropped. */
#define STALL_S 0.25
/* A signal death reported this soon after a rank's failing exit is taken as
 * the job's root cause instead. */
#define ROOT_CAUSE_S 1.0

struct rank {
    int host;                 /* index in job.links; -1: a local rank */
    pid_t guard;
    int life;                 /* -1 once closed */
    uint8_t lbuf[SPAWN_STATUS_BYTES];
    size_t lhave;
    int reaped, guard_status;
    int done, status;
    int reported;             /* the status came from the guard's report */
    int pg_killed;            /* its group got SIGKILL after the guard's death */
    struct iofwd_stream out, err;
};

struct job {
    const struct job_config *cfg;
    char host[256];
    struct rank *r;
    int nstarted;
    int ndone;
    struct kvs_server *kvs;
    struct stdin_fwd in;      /* boltrun's stdin to rank cfg->stdin_rank */
    int cause;                /* the job's outcome is decided (failure, abort, timeout, signal) */
    int cause_soft;           /* ... by a rank's plain non-zero exit, often a peer's death seen */
    double cause_time;
    int exit_code;
    int stopping, killed;
    double kill_deadline, hard_deadline, drain_deadline, job_deadline;
    int sigs_seen;
    struct hostlink *links;   /* multi-host: one per host */
    int nlinks;
    int stdin_relay;          /* read end of the stdin pipe of a remote rank; -1 */
    int stdin_host;
};

static const char *rank_host(const struct job *j, int i)
{
    return j->r[i].host >= 0 ? j->links[j->r[i].host].name : j->host;
}

static int g_sigpipe[2] = {-1, -1};
static sigset_t g_ignored; /* signals ignored when boltrun started: the ranks inherit that */

static void on_signal(int sig)
{
    int e = errno;
    unsigned char c = (unsigned char)sig;
    ssize_t w = write(g_sigpipe[1], &c, 1);
    (void)w;
    errno = e;
}

static void fd_setup(int fd)
{
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static int install_signals(void)
{
    if (pipe(g_sigpipe) != 0)
        return -1;
    fd_setup(g_sigpipe[0]);
    fd_setup(g_sigpipe[1]);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sigemptyset(&g_ignored);
    for (int s = 1; s < NSIG; s++) {
        struct sigaction old;
        if (s != SIGKILL && s != SIGSTOP && sigaction(s, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            sigaddset(&g_ignored, s);
    }
    sa.sa_handler = on_signal;
    /* An inherited SIG_IGN (nohup, a background job of a script) stays. */
    if (!sigismember(&g_ignored, SIGINT))
        sigaction(SIGINT, &sa, NULL);
    if (!sigismember(&g_ignored, SIGHUP))
        sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGCONT, &sa, NULL); /* back to the foreground, maybe: look at stdin again */
    sa.sa_flags = SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, NULL);
    sa.sa_flags = 0;
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    /* A read of the terminal from the background fails with EIO instead of
     * stopping boltrun (stdin_fwd.c also avoids such reads). */
    sigaction(SIGTTIN, &sa, NULL);
    return 0;
}

static void signal_ranks(struct job *j, int sig)
{
    for (int i = 0; i < j->nstarted; i++)
        if (!j->r[i].done && j->r[i].host < 0 && j->r[i].guard > 0)
            (void)killpg(j->r[i].guard, sig);
    for (int h = 0; h < j->nlinks; h++)
        if (j->links[h].ndone < j->links[h].nranks)
            hostlink_signal(&j->links[h], sig);
}

static void begin_stop(struct job *j, int sig, double now)
{
    signal_ranks(j, sig);
    if (j->kvs)
        kvs_server_set_quiet(j->kvs);
    if (!j->stopping) {
        j->stopping = 1;
        j->kill_deadline = now + j->cfg->kill_grace;
    }
}

static void kill_all(struct job *j, double now)
{
    signal_ranks(j, SIGKILL);
    if (!j->killed) {
        j->killed = 1;
        j->stopping = 1;
        j->hard_deadline = now + HARD_WAIT_S;
    }
}

static void pump_rank_output(struct rank *r)
{
    /* Bounded: each pump reads at most 16 chunks; a rank that keeps writing
     * after its status arrived is a stray child and is being killed. */
    for (int k = 0; k < 8; k++) {
        int a = r->out.fd >= 0 ? iofwd_pump(&r->out) : 1;
        int b = r->err.fd >= 0 ? iofwd_pump(&r->err) : 1;
        if (a && b)
            break;
        struct pollfd p[2] = {{.fd = r->out.fd, .events = POLLIN}, {.fd = r->err.fd, .events = POLLIN}};
        if (poll(p, 2, 0) <= 0)
            break;
    }
}

/* The rank's status comes from its guard's death, not from its report: the
 * guard did not clear the group, so boltrun does. The group id (the guard's
 * pid) cannot be reused while members remain. */
static void kill_orphaned_group(struct rank *r)
{
    if (!r->reported && !r->pg_killed && r->host < 0 && r->guard > 0) {
        r->pg_killed = 1;
        (void)killpg(r->guard, SIGKILL);
    }
}

static void rank_done(struct job *j, int i, int status, double now)
{
    struct rank *r = &j->r[i];
    if (r->done)
        return;
    r->done = 1;
    r->status = status;
    j->ndone++;
    if (r->host >= 0)
        hostlink_rank_done(&j->links[r->host]);
    if (i == j->cfg->stdin_rank)
        stdin_fwd_close(&j->in); /* nobody reads it any more */
    if (j->kvs)
        kvs_server_rank_ended(j->kvs, i, rank_host(j, i)); /* a fence it missed fails now */
    pump_rank_output(r); /* its last words come before boltrun's verdict */
    int failed = !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (failed && j->cause_soft && !j->killed && WIFSIGNALED(status) && WTERMSIG(status) != SIGTERM &&
        now - j->cause_time <= ROOT_CAUSE_S) {
        /* A rank killed by a signal boltrun did not send, reported just after a
         * rank that exited because a peer went away: the kill is the root
         * cause (a remote rank's death can take longer to reach us than its
         * peers' reactions).  Name it and take its status. */
        int sig = WTERMSIG(status);
        iofwd_log("boltrun: rank %d on %s was killed by signal %d (%s)", i, rank_host(j, i), sig,
                  strsignal(sig));
        j->exit_code = 128 + sig;
        j->cause_soft = 0;
    }
    if (failed && !j->cause) {
        j->cause = 1;
        j->cause_time = now;
        if (WIFSIGNALED(status)) {
            int sig = WTERMSIG(status);
            iofwd_log("boltrun: rank %d on %s was killed by signal %d (%s)", i, rank_host(j, i), sig,
                    strsignal(sig));
            j->exit_code = 128 + sig;
        } else if (WIFEXITED(status)) {
            iofwd_log("boltrun: rank %d on %s exited with status %d", i, rank_host(j, i), WEXITSTATUS(status));
            j->exit_code = WEXITSTATUS(status);
            j->cause_soft = 1;
        } else {
            iofwd_log("boltrun: rank %d on %s ended abnormally (wait status 0x%x)", i, rank_host(j, i),
                    (unsigned)status);
            j->exit_code = 1;
        }
        begin_stop(j, SIGTERM, now);
    }
    if (j->ndone == j->nstarted)
        j->drain_deadline = now + DRAIN_WAIT_S;
}

static void on_abort(void *ctx, int rank, int code, const char *msg)
{
    struct job *j = ctx;
    if (j->cause)
        return;
    j->cause = 1;
    iofwd_log("boltrun: rank %d on %s called bolt_abort (code %d): %s", rank,
              rank >= 0 && rank < j->cfg->np && j->r ? rank_host(j, rank) : j->host, code, msg);
    int ec = code & 0xff;
    if (ec == 0) /* an abort is a failure, whatever the code */
        ec = 1;
    j->exit_code = ec;
    begin_stop(j, SIGTERM, bolt_kvs_now());
}

static void reap(struct job *j, double now)
{
    for (int guard = 0; guard < 100000; guard++) {
        int st;
        pid_t p = waitpid(-1, &st, WNOHANG);
        if (p <= 0)
            return;
        for (int h = 0; h < j->nlinks; h++)
            hostlink_reaped(&j->links[h], p, st);
        for (int i = 0; i < j->nstarted; i++) {
            struct rank *r = &j->r[i];
            if (r->guard == p) {
                r->reaped = 1;
                r->guard_status = st;
                if (r->life < 0 && !r->done) { /* it died without a report: its fate is the rank's */
                    kill_orphaned_group(r);
                    rank_done(j, i, st, now);
                }
            }
        }
    }
}

static void read_lifeline(struct job *j, int i, double now)
{
    struct rank *r = &j->r[i];
    for (;;) {
        ssize_t n = read(r->life, r->lbuf + r->lhave, sizeof r->lbuf - r->lhave);
        if (n > 0) {
            r->lhave += (size_t)n;
            if (r->lhave == sizeof r->lbuf) {
                int st;
                if (spawn_decode_status(r->lbuf, &st) == 0 && !r->done) {
                    r->reported = 1;
                    rank_done(j, i, st, now);
                }
                r->lhave = 0;
            }
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        close(r->life); /* EOF: the guard is gone */
        r->life = -1;
        if (!r->done && r->reaped) {
            kill_orphaned_group(r);
            rank_done(j, i, r->guard_status, now);
        }
        return;
    }
}

static void handle_signals(struct job *j, double now)
{
    unsigned char buf[64];
    ssize_t n;
    int chld = 0;
    while ((n = read(g_sigpipe[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
        for (ssize_t k = 0; k < n; k++) {
            int sig = buf[k];
            if (sig == SIGCHLD) {
                chld = 1;
                continue;
            }
            if (sig == SIGCONT)
                continue; /* only a wake-up: the loop looks at stdin again */
            j->sigs_seen++;
            if (j->sigs_seen == 1) {
                if (!j->cause) {
                    j->cause = 1;
                    j->exit_code = 128 + sig;
                    iofwd_log("boltrun: caught signal %d (%s); stopping the job's ranks", sig,
                            strsignal(sig));
                }
                begin_stop(j, sig, now); /* forwarded as is: SIGINT stays SIGINT */
            } else if (!j->killed) {
                iofwd_log("boltrun: caught signal %d again; killing the job's ranks now", sig);
                kill_all(j, now);
            }
        }
    }
    if (chld)
        reap(j, now);
}

static int raise_fd_limit(int np, char *err, size_t cap)
{
    struct rlimit rl;
    /* Per rank: lifeline, two pipes, a bootstrap connection, one spare; and
     * the unauthenticated connections the key-value store tolerates
     * (kvs_server.c: 2 * np + 16), plus boltrun's own. */
    rlim_t need = (rlim_t)np * 7 + 80;
    need += (rlim_t)np * 2 + 1; /* shm: the segment and a doorbell pipe per rank */
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
        return 0;
    rlim_t want = need;
    if (rl.rlim_max != RLIM_INFINITY && want > rl.rlim_max)
        want = rl.rlim_max;
    rl.rlim_cur = want;
    (void)setrlimit(RLIMIT_NOFILE, &rl);
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur >= need)
        return 0;
    snprintf(err, cap, "boltrun: -np %d needs about %llu open files but the limit is %llu; raise it "
             "(ulimit -n) or start fewer ranks", np, (unsigned long long)need, (unsigned long long)rl.rlim_cur);
    return -1;
}

static double min_deadline(double a, double b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    return a < b ? a : b;
}

static int finish(struct job *j, double now);

/* ---- remote hosts ---- */

static void host_out(void *ctx, int rank, int fd, const uint8_t *data, size_t len)
{
    struct job *j = ctx;
    if (rank >= 0 && rank < j->nstarted)
        iofwd_feed(fd == 1 ? &j->r[rank].out : &j->r[rank].err, data, len);
}

static void host_exit(void *ctx, int rank, int status)
{
    struct job *j = ctx;
    if (rank >= 0 && rank < j->nstarted && !j->r[rank].done)
        rank_done(j, rank, status, bolt_kvs_now());
}

static void host_fail(void *ctx, struct hostlink *h, int code, const char *why)
{
    struct job *j = ctx;
    double now = bolt_kvs_now();
    iofwd_log("boltrun: %s", why);
    if (!j->cause) {
        j->cause = 1;
        j->exit_code = code;
    }
    begin_stop(j, SIGTERM, now);
    /* Its ranks will not be heard of again (its bolt-hostd stops them when
     * its channel closes). */
    for (int k = 0; k < h->nranks; k++)
        if (!j->r[h->ranks[k]].done)
            rank_done(j, h->ranks[k], code << 8, now);
}

/* Starts one bolt-hostd per host (in parallel: their READY comes to the
 * event loop). */
static void launch_hosts(struct job *j, const uint8_t *secret, const char *job_id)
{
    const struct job_config *cfg = j->cfg;
    const struct hostlist *hl = cfg->hosts;
    char err[512], cwd[4096];
    j->links = calloc((size_t)hl->n, sizeof *j->links);
    if (j->links == NULL) {
        iofwd_log("boltrun: out of memory for %d hosts", hl->n);
        j->cause = 1;
        j->exit_code = 1;
        return;
    }
    if (getcwd(cwd, sizeof cwd) == NULL)
        cwd[0] = '\0';
    for (int i = 0; i < cfg->np; i++) {
        struct rank *r = &j->r[i];
        r->host = hl->host_of[i];
        r->life = -1;
        r->reaped = r->reported = 1; /* no guard here: the host's daemon has it */
        if (iofwd_init(&r->out, -1, 1, i, cfg->tag_output) != 0 || iofwd_init(&r->err, -1, 2, i, cfg->tag_output) != 0) {
            iofwd_log("boltrun: out of memory for the output of rank %d", i);
            j->cause = 1;
            j->exit_code = 1;
        }
    }
    j->nstarted = cfg->np;
    j->nlinks = hl->n;
    if (cfg->stdin_rank >= 0) {
        int rank_in = -1;
        if (stdin_fwd_open(&j->in, 0, cfg->stdin_rank, &rank_in) == 0) {
            (void)fcntl(rank_in, F_SETFL, fcntl(rank_in, F_GETFL) | O_NONBLOCK);
            j->stdin_relay = rank_in;
            j->stdin_host = hl->host_of[cfg->stdin_rank];
        }
    }
    struct hostlink_events ev = {.ctx = j, .on_out = host_out, .on_exit = host_exit, .on_fail = host_fail};
    for (int h = 0; h < hl->n; h++) {
        const struct hostlist_host *hh = &hl->h[h];
        if (hh->nranks == 0) {
            hostlink_unused(&j->links[h], hh->name);
            continue;
        }
        uint8_t *ranks_be = malloc((size_t)hh->nranks * 4);
        if (ranks_be == NULL) {
            hostlink_unused(&j->links[h], hh->name);
            host_fail(j, &j->links[h], 1, "out of memory");
            continue;
        }
        for (int k = 0; k < hh->nranks; k++)
            bolt_kvs_put_u32(ranks_be + 4 * k, (uint32_t)hh->ranks[k]);
        struct chan_start st = {
            .host = hh->name, .size = (uint32_t)cfg->np, .nlocal = (uint32_t)hh->nranks, .ranks_be = ranks_be,
            .job_id = job_id, .cwd = cwd,
            .stdin_rank = cfg->stdin_rank >= 0 ? (uint32_t)cfg->stdin_rank : UINT32_MAX,
            .bind_to = (uint32_t)cfg->bind_to, .map_by = (uint32_t)cfg->map_by,
            .report_bindings = (uint32_t)cfg->report_bindings,
            .grace_ms = (uint32_t)(cfg->kill_grace * 1000), .timeout_ms = (uint32_t)(cfg->auth_timeout * 1000),
            .argc = 0, .argv_blob = NULL, .argv_len = 0,
            .nenv = (uint32_t)cfg->nenv, .env_blob = cfg->env_blob, .env_len = cfg->env_len};
        memcpy(st.secret, secret, BOLT_SECRET_BYTES);
        struct chan_buf argvb = {0};
        for (char **a = cfg->argv; *a; a++) {
            chan_buf_raw(&argvb, *a, strlen(*a) + 1);
            st.argc++;
        }
        st.argv_blob = (const char *)argvb.p;
        st.argv_len = argvb.len;
        struct chan_buf b = {0};
        chan_start_encode(&b, &st);
        int rc = argvb.failed || b.failed ? -1
                 : hostlink_start(&j->links[h], hh->name, cfg->rsh_argv, cfg->hostd_path, b.p, b.len, cfg->np,
                                  hh->ranks, hh->nranks, j->kvs, &ev, cfg->launch_timeout, err, sizeof err);
        if (argvb.failed || b.failed)
            snprintf(err, sizeof err, "out of memory");
        chan_buf_free(&b);
        chan_buf_free(&argvb);
        free(ranks_be);
        if (rc != 0) {
            hostlink_unused(&j->links[h], hh->name);
            j->links[h].ranks = hh->ranks;
            j->links[h].nranks = hh->nranks;
            char why[1024];
            snprintf(why, sizeof why, "cannot start bolt-hostd on %.255s: %.511s", hh->name, err);
            host_fail(j, &j->links[h], 1, why);
        }
    }
}

/* boltrun's stdin, read from the pipe stdin_fwd fills, goes to the host of
 * the stdin rank. */
static void relay_stdin(struct job *j)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(j->stdin_relay, buf, sizeof buf);
        if (n > 0) {
            hostlink_stdin(&j->links[j->stdin_host], buf, (size_t)n);
            return;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        hostlink_stdin(&j->links[j->stdin_host], "", 0);
        close(j->stdin_relay);
        j->stdin_relay = -1;
        return;
    }
}

static int job_run_inner(const struct job_config *cfg);

int job_run(const struct job_config *cfg)
{
    iofwd_sinks_init();
    int rc = job_run_inner(cfg);
    iofwd_sinks_drain(2.0); /* messages of a job that did not start */
    return rc;
}

static int job_run_inner(const struct job_config *cfg)
{
    struct job jb, *j = &jb;
    memset(j, 0, sizeof *j);
    j->cfg = cfg;
    stdin_fwd_init(&j->in);
    char err[512];
    if (gethostname(j->host, sizeof j->host - 1) != 0)
        snprintf(j->host, sizeof j->host, "localhost");
    if (raise_fd_limit(cfg->np, err, sizeof err) != 0) {
        iofwd_log("%s", err);
        return 1;
    }
    if (install_signals() != 0) {
        iofwd_log("boltrun: cannot create a pipe for signals: %s", strerror(errno));
        return 1;
    }

    uint8_t secret[BOLT_SECRET_BYTES], idb[4];
    char secret_hex[2 * BOLT_SECRET_BYTES + 1], idhex[9], job_id[64], addr[64];
    if (bolt_random_bytes(secret, sizeof secret) != 0 || bolt_random_bytes(idb, sizeof idb) != 0) {
        iofwd_log("boltrun: cannot draw the job secret from the system's random source: %s",
                strerror(errno));
        return 1;
    }
    bolt_hex_encode(secret, sizeof secret, secret_hex);
    bolt_hex_encode(idb, sizeof idb, idhex);
    snprintf(job_id, sizeof job_id, "%ld.%s", (long)getpid(), idhex);

    struct kvs_events ev = {.ctx = j, .on_abort = on_abort};
    if (kvs_server_start(&j->kvs, cfg->np, secret, cfg->auth_timeout, &ev, addr, sizeof addr, err,
                         sizeof err) != 0) {
        iofwd_log("boltrun: %s", err);
        return 1;
    }

    j->r = calloc((size_t)cfg->np, sizeof *j->r);
    int *closefds = malloc(((size_t)cfg->np * 3 + 8) * sizeof *closefds);
    struct pollfd *pfd = NULL;
    if (j->r == NULL || closefds == NULL) {
        iofwd_log("boltrun: out of memory for %d ranks", cfg->np);
        free(j->r);
        free(closefds);
        kvs_server_destroy(j->kvs);
        return 1;
    }

    /* Made before the ranks, which inherit it; without it they use TCP. */
    struct shm_host shm;
    int have_shm = !cfg->hosts && cfg->np > 1 && shm_host_create(&shm, cfg->np, err, sizeof err) == 0;
    if (!cfg->hosts && cfg->np > 1 && !have_shm)
        iofwd_log("boltrun: no shared memory for the ranks (%s); they talk over TCP", err);

    double now = bolt_kvs_now();
    j->job_deadline = cfg->timeout > 0 ? now + cfg->timeout : -1;
    j->drain_deadline = -1;
    j->stdin_relay = -1;
    for (int i = 0; i < cfg->np; i++)
        j->r[i].host = -1;
    if (cfg->hosts)
        launch_hosts(j, secret, job_id);
    for (int i = 0; !cfg->hosts && i < cfg->np; i++) {
        int nclose = 0;
        closefds[nclose++] = g_sigpipe[0];
        closefds[nclose++] = g_sigpipe[1];
        closefds[nclose++] = kvs_server_listen_fd(j->kvs);
        int rank_in = -1;
        if (i == cfg->stdin_rank && stdin_fwd_open(&j->in, 0, i, &rank_in) != 0) {
            iofwd_log("boltrun: cannot create the stdin pipe of rank %d: %s; stopping the ranks already "
                    "started", i, strerror(errno));
            j->cause = 1;
            j->exit_code = 1;
            begin_stop(j, SIGTERM, bolt_kvs_now());
            break;
        }
        if (j->in.out_fd >= 0)
            closefds[nclose++] = j->in.out_fd;
        for (int k = 0; k < i; k++) {
            if (j->r[k].life >= 0)
                closefds[nclose++] = j->r[k].life;
            if (j->r[k].out.fd >= 0)
                closefds[nclose++] = j->r[k].out.fd;
            if (j->r[k].err.fd >= 0)
                closefds[nclose++] = j->r[k].err.fd;
        }
        struct spawn_opts so = {.path = cfg->path, .argv = cfg->argv, .rank = i, .size = cfg->np,
                                .kvs_addr = addr, .secret_hex = secret_hex, .job_id = job_id, .host = j->host,
                                .grace = cfg->kill_grace, .stdin_fd = rank_in, .ignored = &g_ignored, .close_fds = closefds,
                                .nclose = nclose, .bind = cfg->bind, .shm = have_shm ? &shm : NULL};
        struct spawn_result sr;
        int spawned = spawn_rank(&so, &sr, err, sizeof err);
        if (rank_in >= 0)
            close(rank_in); /* the rank's now; a failed spawn leaves no reader and
                             * the forwarder drops what it gets */
        if (spawned != 0) {
            iofwd_log("boltrun: %s; stopping the ranks already started", err);
            j->cause = 1;
            j->exit_code = 1;
            begin_stop(j, SIGTERM, bolt_kvs_now());
            break;
        }
        struct rank *r = &j->r[i];
        r->guard = sr.guard;
        r->life = sr.lifeline;
        r->out.fd = r->err.fd = -1;
        r->out.outfd = 1;
        r->err.outfd = 2;
        int ok = iofwd_init(&r->out, sr.out_fd, 1, i, cfg->tag_output) == 0;
        if (ok)
            ok = iofwd_init(&r->err, sr.err_fd, 2, i, cfg->tag_output) == 0;
        else
            close(sr.err_fd);
        if (!ok) {
            iofwd_log("boltrun: out of memory for the output of rank %d", i);
            j->nstarted++;
            j->cause = 1;
            j->exit_code = 1;
            begin_stop(j, SIGTERM, bolt_kvs_now());
            break;
        }
        j->nstarted++;
    }
    free(closefds);
    if (have_shm)
        shm_host_close(&shm); /* the guards and ranks hold their own copies */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (j->nstarted == 0)
        return finish(j, bolt_kvs_now());

    size_t cap = 0;
    for (;;) {
        now = bolt_kvs_now();
        /* Deadlines. */
        if (j->job_deadline >= 0 && now >= j->job_deadline && !j->stopping) {
            j->job_deadline = -1;
            if (!j->cause) {
                j->cause = 1;
                j->exit_code = 124;
                iofwd_log("boltrun: job timed out after %s s; stopping its ranks", cfg->timeout_text);
            }
            begin_stop(j, SIGTERM, now);
        }
        if (j->stopping && !j->killed && now >= j->kill_deadline)
            kill_all(j, now);
        if (j->killed && now >= j->hard_deadline) {
            for (int i = 0; i < j->nstarted; i++)
                if (!j->r[i].done) {
                    iofwd_log("boltrun: rank %d's guard (pid %ld) does not answer after SIGKILL; "
                            "giving up on it", i, (long)j->r[i].guard);
                    rank_done(j, i, SIGKILL, now);
                }
        }
        int open_pipes = 0;
        for (int i = 0; i < j->nstarted; i++)
            open_pipes += (j->r[i].out.fd >= 0) + (j->r[i].err.fd >= 0);
        int all_done = j->ndone == j->nstarted, queued = iofwd_queued() > 0;
        if (all_done) {
            /* Output held back by a full queue has not been read yet: the
             * wait for the pipes starts once it can be. */
            if (!j->stopping && iofwd_backpressured())
                j->drain_deadline = now + DRAIN_WAIT_S;
            if (!queued && (open_pipes == 0 || now >= j->drain_deadline))
                break;
            /* Being stopped: a reader that takes nothing more is not waited for. */
            if (j->stopping && queued && (now >= j->kill_deadline || now - iofwd_last_progress() >= STALL_S))
                break;
            if (open_pipes > 0 && now >= j->drain_deadline)
                for (int i = 0; i < j->nstarted; i++) {
                    iofwd_close(&j->r[i].out); /* a stray holds them: stop reading */
                    iofwd_close(&j->r[i].err);
                }
        }

        size_t need = 4 + STDIN_FWD_POLLFDS + (size_t)kvs_server_max_pollfds(j->kvs) + 3 * (size_t)j->nstarted +
                      HOSTLINK_POLLFDS * (size_t)j->nlinks;
        if (need > cap) {
            struct pollfd *n = realloc(pfd, need * 2 * sizeof *pfd);
            if (n == NULL) {
                iofwd_log("boltrun: out of memory in the event loop; killing the job");
                kill_all(j, now);
                struct timespec ts = {0, 50000000};
                nanosleep(&ts, NULL);
                reap(j, now);
                continue;
            }
            pfd = n;
            cap = need * 2;
        }
        int np = 0;
        pfd[np++] = (struct pollfd){.fd = g_sigpipe[0], .events = POLLIN};
        int sink_first = np;
        for (int fd = 1; fd <= 2; fd++) {
            short ev = iofwd_sink_events(fd);
            pfd[np++] = (struct pollfd){.fd = ev ? fd : -1, .events = ev};
        }
        int in_first = np;
        stdin_fwd_fill(&j->in, pfd + np); /* not polling a terminal while in the background
                                           * is fine: the loop wakes at least once a second */
        np += STDIN_FWD_POLLFDS;
        int kvs_first = np;
        int nkvs = kvs_server_fill(j->kvs, pfd + np);
        np += nkvs;
        int rank_first = np;
        for (int i = 0; i < j->nstarted; i++) {
            struct rank *r = &j->r[i];
            pfd[np++] = (struct pollfd){.fd = r->life, .events = POLLIN};   /* fd -1 is skipped */
            pfd[np++] = (struct pollfd){.fd = iofwd_poll_fd(&r->out), .events = POLLIN}; /* -1 when */
            pfd[np++] = (struct pollfd){.fd = iofwd_poll_fd(&r->err), .events = POLLIN}; /* held back */
        }
        int link_first = np;
        for (int h = 0; h < j->nlinks; h++) {
            hostlink_fill(&j->links[h], pfd + np);
            np += HOSTLINK_POLLFDS;
        }
        int relay_at = np;
        pfd[np++] = (struct pollfd){.fd = j->stdin_relay >= 0 && hostlink_pending(&j->links[j->stdin_host]) < (1u << 20)
                                              ? j->stdin_relay : -1, .events = POLLIN};

        double dl = j->job_deadline;
        if (j->stopping && !j->killed)
            dl = min_deadline(dl, j->kill_deadline);
        if (j->killed)
            dl = min_deadline(dl, j->hard_deadline);
        if (all_done)
            dl = min_deadline(dl, j->drain_deadline);
        if (all_done && j->stopping && queued)
            dl = min_deadline(dl, iofwd_last_progress() + STALL_S);
        dl = min_deadline(dl, kvs_server_deadline(j->kvs));
        for (int h = 0; h < j->nlinks; h++)
            dl = min_deadline(dl, hostlink_deadline(&j->links[h]));
        int ms = 1000; /* a backstop; nothing relies on it */
        if (dl >= 0) {
            double left = dl - now;
            ms = left <= 0 ? 0 : left >= 1.0 ? 1000 : (int)(left * 1000.0) + 1;
        }
        int pr = poll(pfd, (nfds_t)np, ms);
        if (pr < 0 && errno != EINTR) {
            iofwd_log("boltrun: poll failed: %s; killing the job", strerror(errno));
            kill_all(j, now);
        }
        now = bolt_kvs_now();
        if (pr < 0)
            pr = 0;
        for (int k = 0; k < 2; k++)
            if (pfd[sink_first + k].revents)
                iofwd_sink_handle(k + 1);
        /* Output first, so a rank's last lines precede boltrun's report on it. */
        for (int i = 0; i < j->nstarted; i++) {
            struct pollfd *p = &pfd[rank_first + 3 * i];
            struct rank *r = &j->r[i];
            if (p[1].fd >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)))
                iofwd_pump(&r->out);
            if (p[2].fd >= 0 && (p[2].revents & (POLLIN | POLLHUP | POLLERR)))
                iofwd_pump(&r->err);
        }
        stdin_fwd_handle(&j->in, pfd + in_first);
        if (pfd[0].revents & POLLIN)
            handle_signals(j, now);
        for (int i = 0; i < j->nstarted; i++) {
            struct pollfd *p = &pfd[rank_first + 3 * i];
            if (p[0].fd >= 0 && j->r[i].life == p[0].fd && (p[0].revents & (POLLIN | POLLHUP | POLLERR)))
                read_lifeline(j, i, now);
        }
        kvs_server_handle(j->kvs, pfd + kvs_first, nkvs, now);
        for (int h = 0; h < j->nlinks; h++)
            hostlink_handle(&j->links[h], pfd + link_first + HOSTLINK_POLLFDS * h, now);
        if (pfd[relay_at].revents)
            relay_stdin(j);
        if (pr == 0)
            reap(j, now); /* in case a SIGCHLD wake-up was lost */
    }
    free(pfd);
    return finish(j, bolt_kvs_now());
}

static int finish(struct job *j, double now)
{
    stdin_fwd_close(&j->in);
    for (int i = 0; i < j->nstarted; i++) {
        if (j->r[i].done && !j->r[i].reported)
            kill_orphaned_group(&j->r[i]); /* given up on, or its guard died */
        iofwd_close(&j->r[i].out);
        iofwd_close(&j->r[i].err);
        if (j->r[i].life >= 0)
            close(j->r[i].life); /* a guard still waiting cleans up its group */
        j->r[i].life = -1;
    }
    if (j->stdin_relay >= 0)
        close(j->stdin_relay);
    j->stdin_relay = -1;
    if (j->nlinks > 0)
        hostlink_close_all(j->links, j->nlinks, 3.0);
    free(j->links);
    j->links = NULL;
    kvs_server_destroy(j->kvs);
    /* Reap the guards: they exit right after reporting. Bounded. */
    double until = now + 1.0;
    for (;;) {
        int left = 0;
        for (int i = 0; i < j->nstarted; i++) {
            struct rank *r = &j->r[i];
            if (r->reaped)
                continue;
            int st;
            pid_t p = waitpid(r->guard, &st, WNOHANG);
            if (p == r->guard || (p < 0 && errno == ECHILD))
                r->reaped = 1;
            else
                left++;
        }
        if (left == 0)
            break;
        if (bolt_kvs_now() >= until) {
            for (int i = 0; i < j->nstarted; i++)
                if (!j->r[i].reaped) {
                    killpg(j->r[i].guard, SIGKILL);
                    kill(j->r[i].guard, SIGKILL);
                    waitpid(j->r[i].guard, NULL, 0); /* SIGKILL cannot be refused: this returns */
                    j->r[i].reaped = 1;
                }
            break;
        }
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    /* Whatever output is left: a stopped job does not wait for a stalled reader. */
    iofwd_sinks_drain(j->stopping ? STALL_S : 5.0);
    free(j->r);
    close(g_sigpipe[0]);
    close(g_sigpipe[1]);
    return j->cause ? j->exit_code : 0;
}

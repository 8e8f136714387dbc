/*
 * boltrun.c — starts a job of N local ranks: `boltrun -np N PROGRAM ARGS...`.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bolt.h"
#include "launcher/args.h"
#include "launcher/bind_setup.h"
#include "launcher/calib_job.h"
#include "launcher/chan_wire.h"
#include "launcher/hostlist.h"
#include "launcher/job.h"
#include "launcher/rsh.h"
#include "launcher/spawn.h"
#include "runtime/config.h"
#include "runtime/errors.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Opens /dev/null on whichever of descriptors 0, 1, 2 is closed, so that no
 * pipe or socket of boltrun's takes its place (a closed stdin then reads as
 * an empty one). */
static void std_fds_open(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (n >= 0 && n != fd) { /* cannot happen: open takes the lowest free descriptor */
            dup2(n, fd);
            close(n);
        }
    }
}

extern char **environ;

/* Variables a rank gets from its launcher, never from boltrun's environment. */
static int launcher_set(const char *name, size_t n)
{
    static const char *const own[] = {"BOLT_RANK", "BOLT_SIZE", "BOLT_LOCAL_RANK", "BOLT_LOCAL_SIZE",
                                      "BOLT_KVS_ADDR", "BOLT_JOB_SECRET", "BOLT_JOB_ID", "BOLT_LAUNCHER_HOST",
                                      "BOLT_SHM_FD", "BOLT_SHM_BELLS", "BOLT_SHM_INDEX", "BOLT_LOCAL_CORES",
                                      "BOLT_RSH", "BOLT_HOSTD"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (strlen(own[i]) == n && memcmp(own[i], name, n) == 0)
            return 1;
    return 0;
}

/* The environment remote ranks get on top of their host's: the -x variables
 * and boltrun's BOLT_* settings, as NUL-terminated "NAME=VALUE" strings. */
static int remote_env(const struct boltrun_args *a, struct chan_buf *b, int *n)
{
    *n = 0;
    for (int i = 0; i < a->nexports; i++) {
        const char *x = a->exports[i];
        if (strchr(x, '=') != NULL) {
            chan_buf_raw(b, x, strlen(x) + 1);
        } else {
            const char *v = getenv(x);
            if (v == NULL)
                continue; /* warned about already */
            chan_buf_raw(b, x, strlen(x));
            chan_buf_raw(b, "=", 1);
            chan_buf_raw(b, v, strlen(v) + 1);
        }
        (*n)++;
    }
    for (char **e = environ; *e; e++) {
        const char *eq = strchr(*e, '=');
        if (strncmp(*e, "BOLT_", 5) != 0 || eq == NULL || launcher_set(*e, (size_t)(eq - *e)))
            continue;
        chan_buf_raw(b, *e, strlen(*e) + 1);
        (*n)++;
    }
    return b->failed ? -1 : 0;
}

/* The collectives' cost model from bolt-cluster's calibration, for the ranks
 * (through the BOLT_* variables every host's ranks get): every link between
 * the hosts that have ranks and which host each rank is on, as
 * BOLT_COLL_LINKS (runtime/linkmap.h), and the smallest L2. A value the user
 * set (environment or -x) wins. */
static int apply_calibration(const char *path, const struct hostlist *hl, char *err, size_t cap)
{
    char *text, note[1200], v[64];
    unsigned long long l2;
    int rc = calib_job_links(path, hl, &text, &l2, note, sizeof note, err, cap);
    if (rc == 0 && note[0])
        fprintf(stderr, "boltrun: note: %s\n", note);
    if (rc == 0 && text && getenv("BOLT_COLL_LINKS") == NULL && setenv("BOLT_COLL_LINKS", text, 1) != 0)
        rc = bolt_errbuf(err, cap, "out of memory");
    snprintf(v, sizeof v, "%llu", l2);
    if (rc == 0 && text && l2 > 0 && getenv("BOLT_COLL_CACHE") == NULL && setenv("BOLT_COLL_CACHE", v, 1) != 0)
        rc = bolt_errbuf(err, cap, "out of memory");
    free(text);
    return rc;
}

int main(int argc, char **argv)
{
    std_fds_open();
    struct boltrun_args a;
    char err[PATH_MAX + 256];
    int rc;
    if (boltrun_parse_args(argc, argv, &a, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        boltrun_args_free(&a);
        return 2;
    }
    if (a.help) {
        fputs(boltrun_usage(), stdout);
        boltrun_args_free(&a);
        return 0;
    }
    if (a.version) {
        printf("boltrun (Bolt) %s\n", PACKAGE_VERSION);
        boltrun_args_free(&a);
        return 0;
    }
    /* -x VAR=VALUE is set here and inherited; -x VAR is boltrun's own value,
     * which the ranks inherit anyway (all ranks are local). */
    for (int i = 0; i < a.nexports; i++) {
        char *eq = strchr(a.exports[i], '=');
        if (eq == NULL) {
            if (getenv(a.exports[i]) == NULL)
                fprintf(stderr, "boltrun: warning: -x %s: %s is not set in boltrun's environment, so the ranks "
                        "do not get it\n", a.exports[i], a.exports[i]);
            continue;
        }
        *eq = '\0';
        int rc = setenv(a.exports[i], eq + 1, 1);
        *eq = '=';
        if (rc != 0) {
            fprintf(stderr, "boltrun: cannot set -x %s\n", a.exports[i]);
            boltrun_args_free(&a);
            return 2;
        }
    }
    if (bolt_config_load() != BOLT_OK) {
        fprintf(stderr, "boltrun: %s\n", bolt_error_message());
        boltrun_args_free(&a);
        return 2;
    }
    double grace0 = bolt_param_double(BOLT_P_KILL_GRACE);
    double auth0 = bolt_param_double(BOLT_P_TIMEOUT);
    if (a.calibration && !a.host_spec && !a.hostfile) {
        fprintf(stderr, "boltrun: --calibration describes the links between hosts: it needs --host or --hostfile\n");
        boltrun_args_free(&a);
        return 2;
    }
    if (a.host_spec || a.hostfile) {
        struct hostlist hl;
        hostlist_init(&hl);
        enum map_by m = a.map_by;
        const char *env_m = bolt_param_string(BOLT_P_MAP_BY);
        int bad = 0;
        if (!a.map_by_given && env_m && *env_m && map_by_parse(env_m, &m) != 0) {
            snprintf(err, sizeof err, "BOLT_MAP_BY expects " MAP_BY_VALUES ", got '%s'", env_m);
            bad = 2;
        }
        if (!bad && a.host_spec && hostlist_add_spec(&hl, a.host_spec, err, sizeof err) != 0)
            bad = 2;
        if (!bad && a.hostfile && hostlist_add_file(&hl, a.hostfile, err, sizeof err) != 0)
            bad = 2;
        if (!bad && hostlist_place(&hl, a.np_given ? a.np : 0, m == MAP_BY_NODE, err, sizeof err) != 0)
            bad = 2;
        /* bolt-cluster's calibration beside the hostfile, unless one is named */
        char beside[PATH_MAX];
        const char *cal = a.calibration;
        if (!bad && !cal && a.hostfile && calib_job_beside(a.hostfile, beside, sizeof beside)) {
            cal = beside;
            fprintf(stderr, "boltrun: using the calibration %s found beside the hostfile (--calibration FILE to "
                    "use another)\n", beside);
        }
        if (!bad && cal && apply_calibration(cal, &hl, err, sizeof err) != 0)
            bad = 2;
        if (!bad && a.stdin_rank >= hl.np) {
            snprintf(err, sizeof err, "--stdin %d: the job has no such rank (ranks 0 to %d)", a.stdin_rank,
                     hl.np - 1);
            bad = 2;
        }
        char hostd[PATH_MAX];
        const char *hp = bolt_param_string(BOLT_P_HOSTD);
        if (!bad && hp && *hp)
            snprintf(hostd, sizeof hostd, "%s", hp);
        else if (!bad && rsh_hostd_default(argv[0], hostd, sizeof hostd) != 0) {
            snprintf(err, sizeof err, "cannot tell where bolt-hostd is (boltrun's own path is unknown); set "
                     "BOLT_HOSTD to its path on the hosts");
            bad = 2;
        }
        const char *rsh = a.launch_agent ? a.launch_agent : bolt_param_string(BOLT_P_RSH);
        char **rsh_argv = bad ? NULL : rsh_split_words(rsh && *rsh ? rsh : "ssh -o BatchMode=yes");
        if (!bad && rsh_argv == NULL) {
            snprintf(err, sizeof err, "out of memory");
            bad = 1;
        }
        struct chan_buf env = {0};
        int nenv = 0;
        if (!bad && remote_env(&a, &env, &nenv) != 0) {
            snprintf(err, sizeof err, "out of memory");
            bad = 1;
        }
        if (bad) {
            fprintf(stderr, "boltrun: %s\n", err);
            hostlist_free(&hl);
            chan_buf_free(&env);
            boltrun_args_free(&a);
            return bad;
        }
        double lt = bolt_param_double(BOLT_P_LAUNCH_TIMEOUT);
        struct job_config cfg = {
            .np = hl.np,
            .tag_output = a.tag_output,
            .timeout = a.timeout,
            .timeout_text = a.timeout_text,
            .stdin_rank = a.stdin_rank,
            .kill_grace = grace0 >= 0 ? grace0 : 2.0,
            .auth_timeout = auth0 > 0 ? auth0 : 60.0,
            .path = a.prog_argv[0],
            .argv = a.prog_argv,
            .hosts = &hl,
            .rsh_argv = rsh_argv,
            .hostd_path = hostd,
            .env_blob = (const char *)env.p,
            .env_len = env.len,
            .nenv = nenv,
            .bind_to = a.bind_to,
            .map_by = m,
            .report_bindings = a.report_bindings,
            .launch_timeout = lt > 0 ? lt : 30.0,
        };
        fflush(stdout);
        rc = job_run(&cfg);
        rsh_free_words(rsh_argv);
        chan_buf_free(&env);
        hostlist_free(&hl);
        boltrun_args_free(&a);
        return rc;
    }
    char path[PATH_MAX];
    rc = spawn_resolve(a.prog_argv[0], path, sizeof path, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        boltrun_args_free(&a);
        return rc;
    }
    struct bind_plan plan;
    if ((rc = bind_setup(&a, &plan, err, sizeof err)) != 0) {
        fprintf(stderr, "%s\n", err);
        boltrun_args_free(&a);
        return rc;
    }
    double grace = bolt_param_double(BOLT_P_KILL_GRACE);
    double auth = bolt_param_double(BOLT_P_TIMEOUT);
    struct job_config cfg = {
        .np = a.np,
        .tag_output = a.tag_output,
        .timeout = a.timeout,
        .timeout_text = a.timeout_text,
        .stdin_rank = a.stdin_rank,
        .kill_grace = grace >= 0 ? grace : 2.0,
        .auth_timeout = auth > 0 ? auth : 60.0,
        .path = path,
        .argv = a.prog_argv,
        .bind = &plan,
    };
    fflush(stdout);
    rc = job_run(&cfg);
    bind_plan_free(&plan);
    boltrun_args_free(&a);
    return rc;
}

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
#include "launcher/job.h"
#include "launcher/spawn.h"
#include "runtime/config.h"

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

int main(int argc, char **argv)
{
    std_fds_open();
    struct boltrun_args a;
    char err[PATH_MAX + 256];
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
    char path[PATH_MAX];
    int rc = spawn_resolve(a.prog_argv[0], path, sizeof path, err, sizeof err);
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

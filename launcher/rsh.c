/*
 * rsh.c — the remote shell to a host (see rsh.h).
 */
#include "launcher/rsh.h"
#include "launcher/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* A word for the remote shell: single-quoted, quotes inside spelled '\''. */
static int shell_quote(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    if (cap < 3)
        return -1;
    out[n++] = '\'';
    for (; *s; s++) {
        if (*s == '\'') {
            if (n + 5 >= cap)
                return -1;
            memcpy(out + n, "'\\''", 4);
            n += 4;
        } else {
            if (n + 2 >= cap)
                return -1;
            out[n++] = *s;
        }
    }
    out[n++] = '\'';
    out[n] = '\0';
    return 0;
}

int rsh_start(struct rsh_proc *p, char *const *rsh_argv, const char *host, const char *program, char *err,
              size_t errcap)
{
    char cmd[8192] = "exec ";
    p->pid = 0;
    p->in_w = p->out_r = p->err_r = -1;
    if (shell_quote(program, cmd + 5, sizeof cmd - 5) != 0) {
        snprintf(err, errcap, "the path of %s is too long", program);
        return -1;
    }
    int nrsh = 0;
    while (rsh_argv[nrsh])
        nrsh++;
    char **argv = calloc((size_t)nrsh + 3, sizeof *argv);
    int in[2] = {-1, -1}, out[2] = {-1, -1}, er[2] = {-1, -1};
    if (argv == NULL || pipe(in) != 0 || pipe(out) != 0 || pipe(er) != 0) {
        snprintf(err, errcap, "cannot create the pipes to the remote shell for host %s: %s", host,
                 argv ? strerror(errno) : "out of memory");
        int fds[] = {in[0], in[1], out[0], out[1], er[0], er[1]};
        for (int i = 0; i < 6; i++)
            if (fds[i] >= 0)
                close(fds[i]);
        free(argv);
        return -1;
    }
    for (int i = 0; i < nrsh; i++)
        argv[i] = rsh_argv[i];
    argv[nrsh] = (char *)host;
    argv[nrsh + 1] = cmd;
    int fds[] = {in[0], in[1], out[0], out[1], er[0], er[1]};
    for (int i = 0; i < 6; i++)
        (void)fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errcap, "cannot start the remote shell for host %s (fork: %s)", host, strerror(errno));
        for (int i = 0; i < 6; i++)
            close(fds[i]);
        free(argv);
        return -1;
    }
    if (pid == 0) {
        /* Its own process group: a ^C at the terminal reaches the launcher,
         * which stops the job in order, not ssh. */
        (void)setpgid(0, 0);
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_DFL;
        sigemptyset(&sa.sa_mask);
        int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGCONT, SIGPIPE, SIGTTIN};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
            sigaction(sigs[i], &sa, NULL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(er[1], 2) < 0)
            _exit(127);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot execute the remote shell '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    free(argv);
    close(in[0]);
    close(out[1]);
    close(er[1]);
    (void)fcntl(er[0], F_SETFL, fcntl(er[0], F_GETFL) | O_NONBLOCK);
    p->pid = pid;
    p->in_w = in[1];
    p->out_r = out[0];
    p->err_r = er[0];
    return 0;
}

char **rsh_split_words(const char *text)
{
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    char **w = calloc(len / 2 + 2, sizeof *w);
    if (copy == NULL || w == NULL) {
        free(copy);
        free(w);
        return NULL;
    }
    memcpy(copy, text, len + 1);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        w[n++] = t;
    if (n == 0) {
        free(copy);
        free(w);
        return NULL;
    }
    return w; /* w[0] is the start of copy */
}

void rsh_free_words(char **w)
{
    if (w)
        free(w[0]);
    free(w);
}

int rsh_hostd_default(const char *argv0, char *out, size_t cap)
{
    char self[PATH_MAX], real[PATH_MAX], err[PATH_MAX + 64];
    if (spawn_resolve(argv0, self, sizeof self, err, sizeof err) != 0 || realpath(self, real) == NULL)
        return -1;
    char *slash = strrchr(real, '/');
    if (slash == NULL)
        return -1;
    *slash = '\0';
    int n = snprintf(out, cap, "%s/bolt-hostd", real);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

size_t rsh_err_lines(char *buf, size_t len, size_t cap, int eof, void (*line)(void *ctx, const char *text),
                     void *ctx)
{
    buf[len] = '\0';
    char *start = buf, *nl;
    while ((nl = strchr(start, '\n')) != NULL || (eof && *start) || len == cap - 1) {
        if (nl)
            *nl = '\0';
        size_t l = strlen(start);
        while (l > 0 && start[l - 1] == '\r')
            start[--l] = '\0';
        if (l > 0)
            line(ctx, start);
        if (!nl) {
            start += strlen(start);
            break;
        }
        start = nl + 1;
    }
    size_t left = len - (size_t)(start - buf);
    memmove(buf, start, left);
    return left;
}

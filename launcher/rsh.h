/*
 * rsh.h — starting `RSH... HOST 'exec PROGRAM'` (ssh, or BOLT_RSH) with pipes
 * on its stdin, stdout and stderr: how boltrun reaches bolt-hostd on a host,
 * and bolt-cluster does the same.
 */
#ifndef BOLTRUN_RSH_H
#define BOLTRUN_RSH_H

#include <stddef.h>
#include <sys/types.h>

struct rsh_proc {
    pid_t pid;      /* the remote shell, in a process group of its own */
    int in_w;       /* its stdin (close-on-exec, blocking) */
    int out_r;      /* its stdout */
    int err_r;      /* its stderr (nonblocking) */
};

/* Starts the remote shell for `host` running `program` there (quoted for the
 * remote shell). Returns 0, or -1 with a message naming the host in err
 * (nothing left running, no descriptor left open). */
int rsh_start(struct rsh_proc *p, char *const *rsh_argv, const char *host, const char *program, char *err,
              size_t errcap);

/* The remote shell's words (split at blanks), NULL-terminated; NULL when
 * there is none or no memory. Free with rsh_free_words. */
char **rsh_split_words(const char *text);
void rsh_free_words(char **w);

/* bolt-hostd is installed next to the launcher (boltrun, bolt-cluster), at
 * the same path on every host: that path, from the launcher's argv[0]
 * (searched in PATH when it has no '/'). Returns 0, or -1 when unknown. */
int rsh_hostd_default(const char *argv0, char *out, size_t cap);

/* The remote shell's stderr as lines: buf holds len bytes read so far (cap
 * its size, one byte kept for a terminator); each whole line, the rest at
 * eof, or everything when the buffer is full, goes to line() without its
 * '\r\n' (empty lines skipped). Returns the bytes left, moved to the front. */
size_t rsh_err_lines(char *buf, size_t len, size_t cap, int eof, void (*line)(void *ctx, const char *text),
                     void *ctx);

#endif

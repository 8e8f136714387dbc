/*
 * pathsearch.c — finding a program as execvp would (spawn.h,
 * spawn_resolve): boltrun's ranks' programs, and the launchers' own path
 * (bolt-hostd sits beside them). No dependencies, so every launcher links it.
 */
#include "launcher/spawn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_exec(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int spawn_resolve(const char *prog, char *out, size_t outcap, char *err, size_t errcap)
{
    if (strchr(prog, '/') != NULL) {
        struct stat st;
        if (stat(prog, &st) != 0) {
            snprintf(err, errcap, "boltrun: cannot find program '%s': %s", prog, strerror(errno));
            return 127;
        }
        if (!S_ISREG(st.st_mode) || access(prog, X_OK) != 0) {
            snprintf(err, errcap, "boltrun: cannot execute '%s': %s", prog,
                     S_ISDIR(st.st_mode) ? "it is a directory" : "permission denied");
            return 126;
        }
        snprintf(out, outcap, "%s", prog);
        return 0;
    }
    const char *path = getenv("PATH");
    if (path == NULL || *path == '\0')
        path = "/usr/bin:/bin";
    const char *p = path;
    for (;;) {
        const char *colon = strchr(p, ':');
        size_t dl = colon ? (size_t)(colon - p) : strlen(p);
        int n = dl == 0 ? snprintf(out, outcap, "%s", prog) /* empty entry: current directory */
                        : snprintf(out, outcap, "%.*s/%s", (int)dl, p, prog);
        if (n > 0 && (size_t)n < outcap && is_exec(out))
            return 0;
        if (colon == NULL)
            break;
        p = colon + 1;
    }
    snprintf(err, errcap, "boltrun: cannot find program '%s' in PATH", prog);
    return 127;
}

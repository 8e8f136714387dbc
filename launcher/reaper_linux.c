/* reaper_linux.c — PR_SET_CHILD_SUBREAPER and killing what it collects (see reaper.h). */
#include "launcher/reaper.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void reaper_become(void)
{
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1); /* best effort: the group kill remains */
}

/* Parent pid from /proc/PID/stat ("pid (comm) state ppid ..."; comm may hold
 * spaces and parentheses, so parse after the last ')'). */
static pid_t parent_of(const char *pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    char state;
    int ppid;
    if (!p || sscanf(p + 1, " %c %d", &state, &ppid) != 2)
        return -1;
    return (pid_t)ppid;
}

/* Signals every child; returns how many were found. */
static int kill_children(pid_t self)
{
    int found = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        if (parent_of(e->d_name) == self) {
            kill((pid_t)atoi(e->d_name), SIGKILL);
            found++;
        }
    }
    closedir(d);
    return found;
}

void reaper_kill_all(void)
{
    pid_t self = getpid();
    struct timespec pause = {0, 20 * 1000 * 1000};
    for (int round = 0; round < 100; round++) {
        while (waitpid(-1, NULL, WNOHANG) > 0) {
        }
        if (kill_children(self) == 0)
            return;
        nanosleep(&pause, NULL); /* let the killed die and the re-parented arrive */
    }
}

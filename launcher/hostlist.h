/*
 * hostlist.h — the hosts of a multi-host job (--host, --hostfile) and which
 * ranks go where (--map-by slot|node). Pure functions: no I/O but reading
 * the hostfile.
 */
#ifndef BOLTRUN_HOSTLIST_H
#define BOLTRUN_HOSTLIST_H

#include <stddef.h>

#define HOSTLIST_MAX_NAME 255

struct hostlist_host {
    char name[HOSTLIST_MAX_NAME + 1];
    int slots;
    int nranks;   /* ranks placed here (hostlist_place) */
    int *ranks;   /* their world ranks, ascending */
};

struct hostlist {
    struct hostlist_host *h;
    int n, cap;
    int total_slots;
    int *host_of; /* world rank -> host index (hostlist_place) */
    int np;
};

void hostlist_init(struct hostlist *l);
void hostlist_free(struct hostlist *l);
/* Adds "h1:2,h2,h3:4" (no count = 1 slot). A host named twice gets the sum.
 * Returns 0, or -1 with a one-line message (no "boltrun: " prefix) in err. */
int hostlist_add_spec(struct hostlist *l, const char *spec, char *err, size_t errcap);
/* Adds the hosts of an Open MPI style hostfile text ("host [slots=N]", '#'
 * comments, blank lines); messages name `fname`:line. */
int hostlist_add_text(struct hostlist *l, const char *text, const char *fname, char *err, size_t errcap);
/* Reads and adds a hostfile. */
int hostlist_add_file(struct hostlist *l, const char *path, char *err, size_t errcap);
/* Places np ranks (np <= 0: one per slot) by slot (fill each host in turn)
 * or by node (round-robin over hosts with a free slot). More ranks than
 * slots is an error. Returns 0 or -1 with err. */
int hostlist_place(struct hostlist *l, int np, int by_node, char *err, size_t errcap);

#endif

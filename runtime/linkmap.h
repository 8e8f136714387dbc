/*
 * linkmap.h — the job's measured links between hosts, as the collectives'
 * cost model sees them: which host each world rank runs on and, per pair of
 * hosts, the link's latency and time per byte (the slower way), and whether
 * bolt-cluster flagged it slow or found no link at all.
 *
 * boltrun builds it from a calibration file (runtime/calibration.h) and hands
 * it to every rank as one environment value, BOLT_COLL_LINKS:
 *
 *   1 hosts=h1,h2,h3 ranks=0*2,1*2,2 links=5.5/0.5,9/0.125/slow,none
 *
 * ranks: the host index of each world rank in order (H*K: K ranks on H);
 * links: the pairs (0,1), (0,2), ..., (1,2), ... as ALPHA_US/BETA_NS_PER_BYTE
 * with "/slow" when flagged, or "none". Every rank parses the same text, so
 * every choice made from it is the same on every rank.
 */
#ifndef BOLT_LINKMAP_H
#define BOLT_LINKMAP_H

#include <stddef.h>

#define LINKMAP_MAX_HOSTS 4096 /* the map holds a matrix of pairs */

enum linkmap_state { LINK_OK, LINK_SLOW, LINK_NONE };

struct linkmap {
    int nhost, nrank;
    char **name;           /* host names (for messages) */
    int *host_of;          /* world rank -> host index */
    double *alpha_us;      /* [a * nhost + b], symmetric */
    double *beta_ns;       /* ns per byte, the slower way */
    unsigned char *state;  /* enum linkmap_state */
};

/* An empty map of nhost hosts and nrank ranks (every link LINK_NONE, every
 * rank on host 0). 0, or -1 when out of memory. */
int linkmap_init(struct linkmap *m, int nhost, int nrank);
void linkmap_free(struct linkmap *m);
/* Sets the link between hosts a and b (both ways). */
void linkmap_set(struct linkmap *m, int a, int b, double alpha_us, double beta_ns, enum linkmap_state st);
/* Host names are copied; a name with a comma, a slash or white space cannot
 * travel in the text. 0, or -1 with err. */
int linkmap_name(struct linkmap *m, int host, const char *name, char *err, size_t cap);

/* The text above (malloc'd into *out). 0, or -1 when out of memory. */
int linkmap_format(const struct linkmap *m, char **out);
/* Parses it; messages name `what` (the variable) and the bad word. 0, or -1
 * with err. */
int linkmap_parse(struct linkmap *m, const char *text, const char *what, char *err, size_t cap);

#endif

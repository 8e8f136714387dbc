/*
 * bind_policy.h — the values of --bind-to and --map-by (parsed in args.c,
 * acted on in bind.c).
 */
#ifndef BOLTRUN_BIND_POLICY_H
#define BOLTRUN_BIND_POLICY_H

enum bind_to {
    BIND_TO_DEFAULT = 0, /* core when the ranks do not outnumber the cores, else none */
    BIND_TO_NONE,
    BIND_TO_CORE,
    BIND_TO_NUMA
};

enum map_by {
    MAP_BY_SLOT = 0, /* consecutive ranks on consecutive cores (the default) */
    MAP_BY_CORE,     /* the same on one host */
    MAP_BY_NUMA,     /* round-robin over NUMA nodes */
    MAP_BY_NODE      /* multi-host: round-robin over hosts; on each host, as slot */
};

#define BIND_TO_VALUES "core, numa or none"
#define MAP_BY_VALUES "slot, node, core or numa"

/* Return 0, or -1 when text is not one of the accepted values. */
int bind_to_parse(const char *text, enum bind_to *out);
int map_by_parse(const char *text, enum map_by *out);
const char *bind_to_name(enum bind_to b);

#endif

/* bolt-info — what this Bolt build has and how it is configured. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bolt.h"
#include "runtime/config.h"
#include "runtime/topo.h"
#ifdef BOLT_HAVE_RDMA
#include "transport/rdma/rdma.h"
#endif

int bolt_info_coll(int argc, char **argv); /* bolt_info_coll.c */

static void usage(FILE *out)
{
    fprintf(out, "usage: bolt-info [--params | --topology | --rdma | --version | --help]\n"
                 "       bolt-info --coll [--np N] [--calibration FILE] [--host H1:N,... | --hostfile FILE]\n"
                 "                 [--map-by slot|node]\n"
                 "  (no option)  version, build features and settings\n"
                 "  --params     every BOLT_* environment setting with its default and meaning\n"
                 "  --topology   this host: identity, packages, NUMA nodes, cores, PUs, caches\n"
                 "  --rdma       RDMA devices: ports, states, MTUs, GIDs, limits\n"
                 "  --coll       the collectives' choices for a job spanning hosts: with bolt-cluster's\n"
                 "               calibration, the links, the ring order, whether the mesh algorithms run,\n"
                 "               and the algorithm per operation and size (ranks placed as boltrun does;\n"
                 "               hosts from the calibration when not given)\n");
}

static void features(void)
{
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    printf("Bolt %d.%d.%d on %s\n", BOLT_VERSION_MAJOR, BOLT_VERSION_MINOR, BOLT_VERSION_PATCH,
           host);
#ifdef BOLT_HAVE_RDMA
    printf("  transports built : shm, rdma, tcp\n");
#else
    printf("  transports built : shm, tcp (no verbs library: no rdma)\n");
#endif
#ifdef BOLT_HAVE_HWLOC
    printf("  hwloc            : found (topology, binding)\n");
#else
    printf("  hwloc            : not found (no binding; counts from sysconf)\n");
#endif
#ifdef HAVE_EPOLL_CREATE1
    printf("  tcp event loops  : poll, epoll\n");
#else
    printf("  tcp event loops  : poll\n");
#endif
    printf("  cores online     : %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
    struct bolt_topo t;
    if (bolt_topo_load(&t) == BOLT_OK) {
        printf("  topology         : ");
        bolt_topo_print_summary(stdout, &t);
        printf("\n");
        bolt_topo_free(&t);
    } else {
        printf("  topology         : unknown (%s)\n", bolt_error_message());
    }
}

static int topology(void)
{
    struct bolt_topo t;
    int rc = bolt_topo_load(&t);
    if (rc != BOLT_OK) {
        fprintf(stderr, "bolt-info: %s\n", bolt_error_message());
        return 1;
    }
    bolt_topo_print(stdout, &t);
    bolt_topo_free(&t);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--params")) {
        if (bolt_config_load() != BOLT_OK)
            fprintf(stderr, "bolt-info: %s\n", bolt_error_message());
        bolt_config_print(stdout);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--coll"))
        return bolt_info_coll(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "--topology"))
        return topology();
    if (argc > 1 && !strcmp(argv[1], "--rdma")) {
#ifdef BOLT_HAVE_RDMA
        if (bolt_config_load() != BOLT_OK)
            fprintf(stderr, "bolt-info: %s\n", bolt_error_message());
        rdma_devs_list(stdout);
        return 0;
#else
        printf("rdma devices     : this build has no rdma transport (configure found no verbs "
               "library: install rdma-core's libibverbs-dev, or use macOS 26.2+)\n");
        return 0;
#endif
    }
    if (argc > 1 && !strcmp(argv[1], "--version")) {
        printf("bolt-info (Bolt) %d.%d.%d\n", BOLT_VERSION_MAJOR, BOLT_VERSION_MINOR,
               BOLT_VERSION_PATCH);
        return 0;
    }
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "bolt-info: unknown option '%s'\n", argv[1]);
        usage(stderr);
        return 2;
    }
    features();
#ifdef BOLT_HAVE_RDMA
    if (bolt_config_load() == BOLT_OK)
        rdma_devs_list(stdout);
#endif
    return 0;
}

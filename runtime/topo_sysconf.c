/* topo_sysconf.c — the topology summary without hwloc: only counts, and
 * every PU counted as a core (sysconf cannot tell hyperthreads apart). */
#include <unistd.h>

#include "bolt.h"
#include "runtime/topo.h"

int bolt_topo_backend_load(struct bolt_topo *t)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    t->from_hwloc = 0;
    t->can_bind = 0; /* placement needs to know which PUs share a core */
    t->cores = t->pus = (int)n;
    t->cores_avail = t->pus_avail = (int)n;
    return BOLT_OK;
}

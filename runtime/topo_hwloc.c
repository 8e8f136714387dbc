/* topo_hwloc.c — the topology summary from hwloc (see topo.h). */
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include "bolt.h"
#include "runtime/errors.h"
#include "runtime/topo.h"

static const hwloc_obj_type_t cache_type[BOLT_TOPO_CACHE_LEVELS] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE,
                                                                    HWLOC_OBJ_L3CACHE};

static void count_caches(hwloc_topology_t topo, struct bolt_topo *t)
{
    for (int l = 0; l < BOLT_TOPO_CACHE_LEVELS; l++) {
        int n = hwloc_get_nbobjs_by_type(topo, cache_type[l]);
        int counted = 0;
        for (int i = 0; i < n; i++) {
            hwloc_obj_t c = hwloc_get_obj_by_type(topo, cache_type[l], (unsigned)i);
            /* L1: the data cache is what matters to message copies. */
            if (c->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION)
                continue;
            if (counted++ == 0)
                t->cache_bytes[l] = (unsigned long long)c->attr->cache.size;
        }
        t->cache_count[l] = counted;
    }
}

static int numa_of(hwloc_topology_t topo, hwloc_obj_t core)
{
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (node->cpuset && hwloc_bitmap_intersects(node->cpuset, core->cpuset))
            return i;
    }
    return 0;
}

/* Cores and PUs within `mine` (this process's affinity), in logical order. */
static int list_cores(hwloc_topology_t topo, hwloc_const_bitmap_t mine, struct bolt_topo *t)
{
    int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    int npus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    /* Some virtual machines report PUs without cores: each PU is then a core. */
    hwloc_obj_type_t unit = ncores > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    int nunits = ncores > 0 ? ncores : npus;
    t->core = calloc((size_t)(nunits > 0 ? nunits : 1), sizeof *t->core);
    t->pu = calloc((size_t)(npus > 0 ? npus : 1), sizeof *t->pu);
    if (t->core == NULL || t->pu == NULL)
        return bolt_err_set(BOLT_ERR_NOMEM, "out of memory for the topology of %s", t->host);
    for (int i = 0; i < nunits; i++) {
        hwloc_obj_t u = hwloc_get_obj_by_type(topo, unit, (unsigned)i);
        if (!hwloc_bitmap_intersects(u->cpuset, mine))
            continue;
        struct bolt_topo_core *c = &t->core[t->ncore++];
        c->index = i;
        c->numa = numa_of(topo, u);
        c->first_pu = t->npu;
        unsigned id;
        hwloc_bitmap_foreach_begin(id, u->cpuset)
        {
            if (hwloc_bitmap_isset(mine, id) && t->npu < npus) {
                t->pu[t->npu++] = (int)id;
                c->npus++;
            }
        }
        hwloc_bitmap_foreach_end();
    }
    return BOLT_OK;
}

int bolt_topo_backend_load(struct bolt_topo *t)
{
    hwloc_topology_t topo;
    hwloc_bitmap_t mine = NULL;
    int rc = BOLT_OK;
    if (hwloc_topology_init(&topo) != 0)
        return bolt_err_set(BOLT_ERR_SYS, "hwloc cannot start on %s (hwloc_topology_init failed)", t->host);
    /* Caches and cores only: I/O devices and misc objects cost time here. */
    (void)hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (hwloc_topology_load(topo) != 0) {
        rc = bolt_err_set(BOLT_ERR_SYS, "hwloc cannot read the topology of %s; set HWLOC_COMPONENTS=-linux,"
                          "-x86 to narrow it down, or rebuild Bolt without hwloc", t->host);
        goto out;
    }
    t->from_hwloc = 1;
    const struct hwloc_topology_support *sup = hwloc_topology_get_support(topo);
    t->can_bind = sup->cpubind->set_thisproc_cpubind || sup->cpubind->set_proc_cpubind;
    t->packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    t->numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    t->pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    t->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    if (t->cores <= 0)
        t->cores = t->pus;
    count_caches(topo, t);
    mine = hwloc_bitmap_alloc();
    if (mine == NULL) {
        rc = bolt_err_set(BOLT_ERR_NOMEM, "out of memory for the topology of %s", t->host);
        goto out;
    }
    /* Where binding cannot be read (macOS), the process may use every PU. */
    if (!sup->cpubind->get_thisproc_cpubind || hwloc_get_cpubind(topo, mine, HWLOC_CPUBIND_PROCESS) != 0 ||
        hwloc_bitmap_iszero(mine))
        hwloc_bitmap_copy(mine, hwloc_topology_get_topology_cpuset(topo));
    if ((rc = list_cores(topo, mine, t)) != BOLT_OK)
        goto out;
    t->cores_avail = t->ncore;
    t->pus_avail = t->npu;
out:
    hwloc_bitmap_free(mine);
    hwloc_topology_destroy(topo);
    return rc;
}

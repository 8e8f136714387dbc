/*
 * report_json.c — a cluster check as one JSON object, through jansson (see
 * report.h); builds without jansson say so.
 */
#include "cluster/report.h"

#ifdef BOLT_HAVE_JANSSON
#include <jansson.h>

static json_t *host_json(const struct cl_check *c, int i)
{
    const struct ck_info *in = &c->info[i];
    json_t *h = json_pack("{s:s, s:b}", "name", c->names[i], "reachable", c->ok[i]);
    if (!c->ok[i]) {
        json_object_set_new(h, "error", json_string(c->why[i]));
        return h;
    }
    json_object_set_new(h, "os", json_string(in->os));
    json_object_set_new(h, "os_release", json_string(in->os_release));
    json_object_set_new(h, "machine", json_string(in->machine));
    json_object_set_new(h, "hostname", json_string(in->hostname));
    json_object_set_new(h, "bolt_version", json_string(in->version));
    json_object_set_new(h, "cores", json_integer(in->cores));
    json_object_set_new(h, "pus", json_integer(in->pus));
    json_object_set_new(h, "memory_bytes", json_integer((json_int_t)in->mem));
    json_object_set_new(h, "cache_bytes", json_pack("{s:I, s:I, s:I}", "l1d", (json_int_t)in->cache[0], "l2",
                                                    (json_int_t)in->cache[1], "l3", (json_int_t)in->cache[2]));
    json_t *ifs = json_array(), *rdma = json_array();
    for (uint32_t k = 0; k < in->nifs; k++)
        json_array_append_new(ifs, json_pack("{s:s, s:s, s:i, s:b}", "name", in->ifs[k].name, "address",
                                             in->ifs[k].addr, "prefix", (int)in->ifs[k].prefix, "up",
                                             (in->ifs[k].flags & CK_IF_UP) != 0));
    for (uint32_t k = 0; k < in->nrdma; k++) {
        const struct ck_rdma *d = &in->rdma[k];
        json_t *gids = json_array();
        for (uint32_t g = 0; g < d->ngids; g++)
            json_array_append_new(gids, json_string(d->gids[g]));
        json_t *j = json_pack("{s:s, s:i, s:s, s:i, s:o, s:b}", "name", d->name, "port_state", (int)d->port_state,
                              "link_layer", d->link_layer, "mtu", (int)d->mtu, "gids", gids, "usable", d->usable);
        json_object_set_new(j, d->usable ? "gid" : "note", json_string(d->usable ? d->gid : d->note));
        json_array_append_new(rdma, j);
    }
    json_object_set_new(h, "interfaces", ifs);
    json_object_set_new(h, "rdma_devices", rdma);
    return h;
}

int report_json(FILE *f, const struct cl_check *c, char *err, size_t cap)
{
    json_t *root = json_object(), *hosts = json_array(), *links = json_array(), *probs = json_array();
    for (int i = 0; i < c->n; i++)
        json_array_append_new(hosts, host_json(c, i));
    for (int i = 0; i < c->w.nlinks; i++) {
        const struct wr_link *l = &c->w.links[i];
        json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:b}", "a", c->names[l->a], "b",
                              c->names[l->b], "a_interface", l->a_if, "b_interface", l->b_if, "a_address", l->a_addr,
                              "b_address", l->b_addr, "kind", l->cable ? "cable" : "shared", "a_to_b", l->ab,
                              "b_to_a", l->ba, "slow", l->slow);
        if (l->measured) {
            json_object_set_new(j, "latency_us", json_real(l->lat_us));
            json_object_set_new(j, "a_to_b_gbs", json_real(l->ab_gbs));
            json_object_set_new(j, "b_to_a_gbs", json_real(l->ba_gbs));
        }
        json_array_append_new(links, j);
    }
    json_t *rl = json_array();
    for (int i = 0; i < c->rd.nlinks; i++) {
        const struct rd_link *l = &c->rd.links[i];
        json_array_append_new(rl, json_pack("{s:s, s:s, s:s, s:s, s:b, s:b}", "a", c->names[l->a], "b",
                                            c->names[l->b], "a_device", c->info[l->a].rdma[l->adev].name, "b_device",
                                            c->info[l->b].rdma[l->bdev].name, "a_to_b", l->ab, "b_to_a", l->ba));
    }
    json_object_set_new(root, "rdma_links", rl);
    for (int i = 0; i < c->w.nproblems; i++)
        json_array_append_new(probs, json_pack("{s:b, s:s}", "fatal", c->w.problems[i].fatal, "text",
                                               c->w.problems[i].text));
    json_object_set_new(root, "hosts", hosts);
    json_object_set_new(root, "wiring", json_string(c->w.verdict));
    json_object_set_new(root, "cables", json_integer(c->w.ncables));
    json_object_set_new(root, "links", links);
    json_object_set_new(root, "problems", probs);
    json_object_set_new(root, "can_run", json_boolean(c->can_run));
    int rc = json_dumpf(root, f, JSON_INDENT(2)) == 0 ? 0 : -1;
    fputc('\n', f);
    json_decref(root);
    if (rc != 0)
        snprintf(err, cap, "--json: cannot write the report");
    return rc;
}
#else
int report_json(FILE *f, const struct cl_check *c, char *err, size_t cap)
{
    (void)f;
    (void)c;
    snprintf(err, cap, "--json: this build has no JSON writer (configure found no jansson; scripts/deps installs it)");
    return -1;
}
#endif

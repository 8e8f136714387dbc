/*
 * agent.h — bolt-hostd's check mode: when bolt-cluster, not boltrun, is at
 * the other end of the channel (its first message is CHECK, not START), the
 * daemon reports its host, answers and runs the probes, and measures paths
 * (cluster/check_wire.h), until the channel closes.
 */
#ifndef BOLT_CLUSTER_AGENT_H
#define BOLT_CLUSTER_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "launcher/chan.h"

/* `body` is the CHECK message after its type byte. Returns the exit status. */
int agent_run(struct chan *ch, const char *host, const uint8_t *body, size_t len);

#endif

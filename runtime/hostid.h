/*
 * hostid.h — a stable identity for this host, so that processes can tell
 * whether they share a machine even when host names collide (cloned VMs,
 * "localhost"). One file per platform: hostid_linux.c (boot_id + host name),
 * hostid_darwin.c (gethostuuid), hostid_posix.c (gethostid + host name).
 */
#ifndef BOLT_HOSTID_H
#define BOLT_HOSTID_H

#include <stddef.h>

/* Writes the identity into out. Returns BOLT_OK or an error code (message set). */
int bolt_host_id(char *out, size_t cap);

#endif

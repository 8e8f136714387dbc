/*
 * check_wire.h — the messages between bolt-cluster and bolt-hostd in check
 * mode, carried as chan_wire.h frames over the remote shell's stdin/stdout
 * (the same channel boltrun uses for a job).
 *
 * bolt-cluster -> hostd
 *   CHECK    magic "BOLTCK1\0", str host, u32 index, u32 nhosts, secret
 *            (the check's own random secret; it proves the probes)
 *   PROBE    u32 count, count x {u32 id, str src, str dst, u32 port}:
 *            connect from src to dst:port, all at once, prove both ends
 *   MEASURE  u32 id, str src, str dst, u32 port, u32 pings, u32 bytes
 *   RPROBE   u32 count, count x {u32 id, str src, str dst, u32 port, str ldev,
 *            u32 lgid_index, str rdev, u32 rgid_index}: prove that device ldev
 *            here reaches device rdev of the host at dst (queue pair numbers
 *            swapped over an authenticated TCP connection src -> dst:port)
 * hostd -> bolt-cluster
 *   INFO     the host (struct ck_info), after CHECK
 *   PROBED   one per probe (struct ck_probed)
 *   MEASURED (struct ck_measured)
 *   RPROBED  one per RDMA probe (struct ck_rprobed)
 *   ERROR    as in a job (chan_wire.h): u32 code, text
 * Strings are chan_wire's (u32 length + bytes ending in one NUL); numbers u32 big-endian, memory as
 * two u32 (high, low), and so are cache sizes.
 */
#ifndef BOLT_CLUSTER_CHECK_WIRE_H
#define BOLT_CLUSTER_CHECK_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "launcher/chan_wire.h"

#define CK_MAGIC "BOLTCK1"
#define CK_ADDR 64
#define CK_ERR 256
#define CK_MAX_IFS 32
#define CK_MAX_RDMA 8
#define CK_MAX_GIDS 4

enum ck_type {
    CK_CHECK = 5,
    CK_PROBE = 6,
    CK_MEASURE = 7,
    CK_RPROBE = 8,
    CK_INFO = 0x88,
    CK_PROBED = 0x89,
    CK_MEASURED = 0x8a,
    CK_RPROBED = 0x8b
};

/* Interface flags. */
#define CK_IF_UP 1u
#define CK_IF_LOOPBACK 2u
#define CK_IF_P2P 4u

struct ck_if {
    char name[32];
    char addr[CK_ADDR];
    uint32_t prefix, flags;
};

struct ck_rdma {
    char name[64];
    uint32_t port_state;      /* ibv_port_state: 4 is ACTIVE */
    char link_layer[16];      /* "Ethernet", "InfiniBand" */
    uint32_t mtu;             /* bytes */
    uint32_t ngids;
    char gids[CK_MAX_GIDS][48];
    uint32_t usable;          /* probed: port active, a GID to send from */
    uint32_t gid_index;       /* the GID probes (and the rdma transport) use */
    char gid[48];             /* that GID as text (inet6), "" if none */
    char note[96];            /* why not usable */
};

struct ck_info {
    char version[32], hostname[256], os[64], os_release[128], machine[32];
    uint32_t cores, pus, port;
    uint64_t mem;             /* bytes */
    uint64_t cache[3];        /* bytes of one L1d, L2, L3 (0: none or unknown) */
    uint32_t nifs, nrdma;
    struct ck_if ifs[CK_MAX_IFS];
    struct ck_rdma rdma[CK_MAX_RDMA];
    char rdma_note[128];      /* why no device was listed, if one can tell */
};

struct ck_check {
    char host[256];
    uint32_t index, nhosts;
    uint8_t secret[BOLT_SECRET_BYTES];
};

struct ck_probe {
    uint32_t id, port;
    char src[CK_ADDR], dst[CK_ADDR];
};

struct ck_probed {
    uint32_t id, ok;
    uint32_t who;             /* index of the host that answered (ok) */
    uint32_t us;              /* connect + exchange, microseconds */
    char local[CK_ADDR], remote[CK_ADDR];
    char err[CK_ERR];
};

struct ck_rprobe {
    uint32_t id, port, lgid_index, rgid_index;
    char src[CK_ADDR], dst[CK_ADDR];
    char ldev[64], rdev[64];
};

struct ck_rprobed {
    uint32_t id, ok;
    uint32_t who;             /* index of the host whose device received the proof */
    char err[CK_ERR];
};

struct ck_measure {
    uint32_t id, port, pings, bytes;
    char src[CK_ADDR], dst[CK_ADDR];
};

struct ck_measured {
    uint32_t id, ok;
    uint32_t lat_ns;          /* half round trip, median */
    uint32_t tx_kbs, rx_kbs;  /* KB/s from the prober, to it (both at once) */
    char err[CK_ERR];
};

void ck_check_encode(struct chan_buf *b, const struct ck_check *c);
int ck_check_decode(const uint8_t *body, size_t len, struct ck_check *c);
void ck_info_encode(struct chan_buf *b, const struct ck_info *in);
int ck_info_decode(const uint8_t *body, size_t len, struct ck_info *in);
/* A PROBE message is a count then the probes; decode one at a time. */
void ck_probe_encode(struct chan_buf *b, const struct ck_probe *p);
int ck_probe_decode(struct chan_rd *r, struct ck_probe *p);
void ck_probed_encode(struct chan_buf *b, const struct ck_probed *p);
int ck_probed_decode(const uint8_t *body, size_t len, struct ck_probed *p);
void ck_rprobe_encode(struct chan_buf *b, const struct ck_rprobe *p);
int ck_rprobe_decode(struct chan_rd *r, struct ck_rprobe *p);
void ck_rprobed_encode(struct chan_buf *b, const struct ck_rprobed *p);
int ck_rprobed_decode(const uint8_t *body, size_t len, struct ck_rprobed *p);
void ck_measure_encode(struct chan_buf *b, const struct ck_measure *m);
int ck_measure_decode(const uint8_t *body, size_t len, struct ck_measure *m);
void ck_measured_encode(struct chan_buf *b, const struct ck_measured *m);
int ck_measured_decode(const uint8_t *body, size_t len, struct ck_measured *m);

#endif

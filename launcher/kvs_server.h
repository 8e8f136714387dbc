/*
 * kvs_server.h — boltrun's key-value store, served from its poll() loop.
 *
 * Listens on 127.0.0.1 (ephemeral port). At most 2 * size + 16 connections
 * may wait to authenticate (the oldest are closed beyond that), each for at
 * most min(BOLT_TIMEOUT, 5 s); out of descriptors, the listener rests 0.1 s. Every connection must first prove it
 * knows the job secret (runtime/kvs_wire.h); one that fails, or stays silent
 * past the authentication deadline, is dropped with one line on stderr.
 */
#ifndef BOLTRUN_KVS_SERVER_H
#define BOLTRUN_KVS_SERVER_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/crypto.h"

struct kvs_server;

struct kvs_events {
    void *ctx;
    /* A rank asked to end the job (bolt_abort). msg is NUL-terminated. */
    void (*on_abort)(void *ctx, int rank, int code, const char *msg);
    /* Relay mode (bolt-hostd), when on_frame is set: the store is elsewhere.
     * Authenticated connections are announced (on_open), their well-formed
     * frames handed over whole, prefix included (on_frame), their end told
     * (on_close); answers come back through kvs_server_conn_send. */
    void (*on_open)(void *ctx, unsigned conn, int rank);
    void (*on_frame)(void *ctx, unsigned conn, const uint8_t *frame, size_t len);
    void (*on_close)(void *ctx, unsigned conn);
};

/* Sends `len` bytes (whole frames) to connection `conn` (relay mode). */
void kvs_server_conn_send(struct kvs_server *s, unsigned conn, const void *data, size_t len);

/* ---- Connections relayed from another host (boltrun's side). ---- */
/* A virtual connection, already authenticated by the host's daemon, for
 * `rank`: what the store answers goes to send(ctx, tag, bytes, len). `peer`
 * names it in messages. Returns its id (> 0), or 0 when out of memory. */
unsigned kvs_server_attach(struct kvs_server *s, int rank, const char *peer,
                           void (*send)(void *ctx, unsigned tag, const uint8_t *data, size_t len), void *ctx,
                           unsigned tag);
/* Bytes the rank sent on it (any split into pieces). */
void kvs_server_feed(struct kvs_server *s, unsigned id, const uint8_t *data, size_t len);
/* It closed (its rank ended, or the host is gone). */
void kvs_server_detach(struct kvs_server *s, unsigned id);
/* Names this side in log lines ("boltrun" by default). */
void kvs_server_set_name(struct kvs_server *s, const char *name);

/* Starts listening. addr gets "127.0.0.1:PORT". Returns 0, or -1 with err. */
int kvs_server_start(struct kvs_server **out, int size, const uint8_t secret[BOLT_SECRET_BYTES],
                     double auth_timeout, const struct kvs_events *ev, char *addr, size_t addrcap,
                     char *err, size_t errcap);
/* Most pollfds kvs_server_fill may use. */
int kvs_server_max_pollfds(const struct kvs_server *s);
/* Fills pollfds; returns how many. */
int kvs_server_fill(struct kvs_server *s, struct pollfd *p);
/* Handles the revents of the n pollfds that kvs_server_fill filled. */
void kvs_server_handle(struct kvs_server *s, const struct pollfd *p, int n, double now);
/* Earliest deadline (bolt_kvs_now() time) of an unauthenticated connection, or
 * a negative value when there is none. Handle calls expire those past it. */
double kvs_server_deadline(const struct kvs_server *s);
/* The listening socket (a child must close it). */
int kvs_server_listen_fd(const struct kvs_server *s);
/* Once the job is being stopped, refusals are expected (ranks die mid-way):
 * stop logging them. */
void kvs_server_set_quiet(struct kvs_server *s);
/* Rank `rank` (on `host`) has ended: a fence it has not entered can no longer
 * complete, so the connections waiting in it get FENCE_FAILED (now, or when
 * one enters a fence later). */
void kvs_server_rank_ended(struct kvs_server *s, int rank, const char *host);
void kvs_server_destroy(struct kvs_server *s);

#endif

/*
 * bootstrap.h — the client side of the job's key-value store.
 *
 * boltrun serves the store; a rank finds it through BOLT_KVS_ADDR ("ip:port")
 * and proves it knows BOLT_JOB_SECRET (hex) by an HMAC challenge before it is
 * served. Values are opaque bytes. Every wait is bounded by BOLT_TIMEOUT.
 */
#ifndef BOLT_BOOTSTRAP_H
#define BOLT_BOOTSTRAP_H

#include <stddef.h>

#define BOLT_KVS_MAX_KEY 255
#define BOLT_KVS_MAX_VALUE (1u << 20)

/* Connects and authenticates as world rank `rank`. */
int bolt_bootstrap_open(int rank, int size);
/* Stores key=value (visible to others after the next fence, maybe sooner). */
int bolt_bootstrap_put(const char *key, const void *val, size_t len);
/* Waits until key exists, then copies up to cap bytes; *len gets the full size. */
int bolt_bootstrap_get(const char *key, void *val, size_t cap, size_t *len);
/* Returns once every rank of the job has entered the fence. */
int bolt_bootstrap_fence(void);
/* Asks boltrun to end the job, printing msg and exiting with `code`. */
int bolt_bootstrap_abort(int code, const char *msg);
void bolt_bootstrap_close(void);
int bolt_bootstrap_is_open(void);

#endif

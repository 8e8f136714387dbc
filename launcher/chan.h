/*
 * chan.h — one end of the boltrun <-> bolt-hostd channel (chan_wire.h) on a
 * pair of descriptors (the remote shell's pipes), driven from a poll() loop:
 * nonblocking, output queued, input cut into frames.
 */
#ifndef BOLTRUN_CHAN_H
#define BOLTRUN_CHAN_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "launcher/chan_wire.h"

struct chan {
    int rfd, wfd;          /* -1 once closed */
    uint8_t *in;
    size_t inlen, incap;
    struct chan_buf out;
    size_t outoff;
    int eof;               /* the reading side ended (EOF or error) */
    int broken;            /* the writing side failed: output is dropped */
};

typedef void (*chan_frame_fn)(void *ctx, uint8_t type, const uint8_t *body, size_t len);

/* Takes the descriptors (makes them nonblocking, close-on-exec). */
void chan_open(struct chan *c, int rfd, int wfd);
/* Queues one message. */
void chan_send(struct chan *c, uint8_t type, const void *body, size_t len);
/* Bytes queued and not yet written. */
size_t chan_pending(const struct chan *c);
/* Fills two pollfds: reading, writing (fd -1 when not wanted). */
void chan_fill(struct chan *c, struct pollfd p[2]);
/* Writes what the descriptor takes. */
void chan_flush(struct chan *c);
/* Reads what is there and hands every whole frame to fn. Returns 0, 1 once
 * the other side is gone (EOF; c->eof set), or -1 with *why when the stream
 * is not frames (the channel is then unusable). */
int chan_read(struct chan *c, chan_frame_fn fn, void *ctx, const char **why);
/* Writes what is queued for at most `seconds`, then closes both ends. */
void chan_close(struct chan *c, double seconds);

#endif

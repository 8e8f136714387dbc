/* tutil.h — small helpers for integration test programs run under boltrun. */
#ifndef BOLT_TUTIL_H
#define BOLT_TUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bolt.h"

/* Fails the whole job, naming the rank and the line. */
#define CHECK_OK(call)                                                                    \
    do {                                                                                  \
        int rc_ = (call);                                                                 \
        if (rc_ != BOLT_OK) {                                                             \
            fprintf(stderr, "FAIL %s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,      \
                    bolt_strerror(rc_), bolt_error_message());                            \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                          \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

/* bolt_init, then this rank and the world's size. */
static inline bolt_comm_t tinit(int *argc, char ***argv, int *rank, int *size)
{
    CHECK_OK(bolt_init(argc, argv));
    bolt_comm_t w = bolt_comm_world();
    CHECK_OK(bolt_comm_rank(w, rank));
    CHECK_OK(bolt_comm_size(w, size));
    return w;
}

static inline unsigned char tpattern(unsigned seed, size_t i)
{
    return (unsigned char)((seed * 2654435761u + i * 131u + (i >> 8)) & 0xffu);
}

static inline void tfill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        p[i] = tpattern(seed, i);
}

/* Index of the first wrong byte, or -1. */
static inline long tverify(const void *buf, size_t n, unsigned seed)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != tpattern(seed, i))
            return (long)i;
    return -1;
}

#endif

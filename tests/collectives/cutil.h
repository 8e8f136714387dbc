/* cutil.h — helpers for the collectives tests: deterministic inputs per
 * (type, op, rank, index), a serial reference reduced in rank order, and
 * failure reporting that names the rank and the case. */
#ifndef BOLT_CUTIL_H
#define BOLT_CUTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bolt.h"

extern int crank, csize;
extern long cchecks;
extern char ccase[256]; /* what is being checked, for failure messages */

#define CASE(...) snprintf(ccase, sizeof ccase, __VA_ARGS__)

#define OK(call)                                                                                \
    do {                                                                                        \
        int rc_ = (call);                                                                       \
        if (rc_ != BOLT_OK) {                                                                   \
            fprintf(stderr, "FAIL rank %d %s:%d [%s]: %s -> %s: %s\n", crank, __FILE__,         \
                    __LINE__, ccase, #call, bolt_strerror(rc_), bolt_error_message());          \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

#define EXPECT(cond, ...)                                                                       \
    do {                                                                                        \
        cchecks++;                                                                              \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "FAIL rank %d %s:%d [%s]: %s: ", crank, __FILE__, __LINE__, ccase,  \
                    #cond);                                                                     \
            fprintf(stderr, __VA_ARGS__);                                                       \
            fputc('\n', stderr);                                                                \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

static inline void *xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fprintf(stderr, "FAIL rank %d: out of memory (%zu bytes)\n", crank, n);
        exit(1);
    }
    return p;
}

/* Fills count elements of dt with exact-valued data of `rank` for op: sums
 * and products of them are exact in every floating type, so any reduction
 * order gives the same bits. Padding bytes are zero. */
void cfill(void *buf, size_t count, bolt_datatype_t dt, bolt_op_t op, int rank, unsigned seed);
/* The reduction of every rank's cfill data in rank order (bolt_reduce_local). */
void cref(void *out, size_t count, bolt_datatype_t dt, bolt_op_t op, int nranks, unsigned seed,
          int upto);
/* Index of the first differing element, or -1. */
long cdiff(const void *a, const void *b, size_t count, bolt_datatype_t dt);

/* A non-commutative op: 2x2 uint32 matrix product (wrapping), inout = in * inout. */
extern bolt_op_t cmatmul;
void cmatmul_create(void);
bolt_datatype_t cmat_type(void);

#endif

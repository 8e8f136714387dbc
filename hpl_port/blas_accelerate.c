/*
 * blas_accelerate.c — what the report says of Accelerate (it chooses its own
 * threads; VECLIB_MAXIMUM_THREADS caps them).
 */
#include <stdlib.h>

#include "hpl_port/blas.h"

int hpl_blas_threads(void)
{
    const char *v = getenv("VECLIB_MAXIMUM_THREADS");
    return v && atoi(v) > 0 ? atoi(v) : 0;
}

const char *hpl_blas_name(void)
{
    return "Accelerate";
}

int hpl_blas_set_threads(int n)
{
    (void)n; /* no portable call across macOS versions: Accelerate keeps its own */
    return -1;
}

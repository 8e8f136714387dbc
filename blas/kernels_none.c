/*
 * kernels_none.c — builds without OpenBLAS (Accelerate on macOS, or no
 * BLAS at all): nothing to check.
 */
#include <stddef.h>

#include "blas/kernels.h"

const char *blas_kernels_better(const char *corename, unsigned cpu)
{
    (void)corename;
    (void)cpu;
    return NULL;
}

void blas_kernels_ensure(const char *prog, char **argv)
{
    (void)prog;
    (void)argv;
}

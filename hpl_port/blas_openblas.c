/*
 * blas_openblas.c — what the report says of OpenBLAS: its threads and the
 * kernels it picked for this CPU; its threads set for bolt-hpl's own.
 */
#include "hpl_port/blas.h"

int hpl_blas_threads(void)
{
    return openblas_get_num_threads();
}

const char *hpl_blas_name(void)
{
    return openblas_get_config();
}

int hpl_blas_set_threads(int n)
{
    openblas_set_num_threads(n);
    return 0;
}

/*
 * kernels_openblas.c — OpenBLAS's kernel choice checked against the CPU
 * (kernels.h says why).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "blas/kernels.h"

/* OpenBLAS's names for x86-64 cores older than AVX2: what a release falls
 * back to for a model it does not know. A name of the AVX2 or AVX-512 era
 * is a choice it made knowingly and stands. */
static const char *const pre_avx2[] = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom",
                                       "Sandybridge", "Bulldozer", "Piledriver", "Barcelona", "Opteron",
                                       "Opteron(SSE3)", "Bobcat", "Katmai", "Coppermine", "Northwood",
                                       "Banias", "Athlon", "unknown", NULL};

const char *blas_kernels_better(const char *corename, unsigned cpu)
{
    if (!corename || !(cpu & (BLAS_CPU_AVX2 | BLAS_CPU_AVX512)))
        return NULL;
    int old = 0;
    for (int i = 0; pre_avx2[i]; i++)
        old |= strcasecmp(corename, pre_avx2[i]) == 0;
    if (!old)
        return NULL;
    /* SkylakeX's SGEMM and DGEMM are the AVX-512 ones every later Intel
     * core type reuses, known to every OpenBLAS since 0.3.1 */
    return cpu & BLAS_CPU_AVX512 ? "SkylakeX" : "Haswell";
}

static unsigned cpu_flags(void)
{
    unsigned f = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        f |= BLAS_CPU_AVX2;
    if ((f & BLAS_CPU_AVX2) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
        f |= BLAS_CPU_AVX512;
#endif
    return f;
}

void blas_kernels_ensure(const char *prog, char **argv)
{
    if (getenv("OPENBLAS_CORETYPE"))
        return; /* the user's choice, or the restart already made */
    const char *chose = openblas_get_corename();
    const char *better = blas_kernels_better(chose, cpu_flags());
    if (!better)
        return;
    /* one line a job: rank 0's (BOLT_RANK is boltrun's; alone, the program's) */
    const char *rank = getenv("BOLT_RANK");
    if (!rank || !strcmp(rank, "0"))
        fprintf(stderr,
                "%s: note: OpenBLAS chose its %s kernels, older than this CPU (a CPU newer than the release: %s); "
                "restarting with OPENBLAS_CORETYPE=%s (set it to choose)\n",
                prog, chose, openblas_get_config(), better);
    fflush(NULL); /* what the restart would lose */
    if (setenv("OPENBLAS_CORETYPE", better, 1) == 0)
        blas_restart(argv);
    fprintf(stderr, "%s: could not restart (%s): going on with OpenBLAS's %s kernels\n", prog, strerror(errno),
            chose);
    unsetenv("OPENBLAS_CORETYPE");
}

/*
 * kernels_test — OpenBLAS's fallback kernels are replaced and its own
 * choices stand; the restart runs the same program with the same arguments
 * and the environment as set; on a CPU OpenBLAS does not know, the program
 * comes back with the kernels of the CPU's generation. Built twice: with the
 * platform's restart and with the POSIX fallback.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "blas/kernels.h"

static int failures;

static void expect_better(const char *chose, unsigned cpu, const char *want)
{
    const char *got = blas_kernels_better(chose, cpu);
    if ((got == NULL) != (want == NULL) || (got && strcmp(got, want))) {
        printf("FAIL: OpenBLAS chose %s on a CPU with flags %u: asked for %s, expected %s\n",
               chose ? chose : "(null)", cpu, got ? got : "nothing", want ? want : "nothing");
        failures++;
    }
}

int main(int argc, char **argv)
{
    const unsigned avx2 = BLAS_CPU_AVX2, avx512 = BLAS_CPU_AVX2 | BLAS_CPU_AVX512;
    if (getenv("KERNELS_TEST_RESTARTED")) {
        /* the second life: the same arguments, spaces and all */
        if (argc != 3 || strcmp(argv[1], "one") || strcmp(argv[2], "two words")) {
            printf("FAIL: restarted with %d arguments, not \"one\" \"two words\"\n", argc - 1);
            return 1;
        }
        printf("pass: restarted with the same arguments and the environment set\n");
        if (!strcmp(getenv("KERNELS_TEST_RESTARTED"), "ensure")) {
            /* came back through blas_kernels_ensure: OpenBLAS must run what it was told */
            const char *want = getenv("OPENBLAS_CORETYPE"), *now = openblas_get_corename();
            if (!want || strcasecmp(want, now)) {
                printf("FAIL: restarted with OPENBLAS_CORETYPE=%s, OpenBLAS runs %s\n", want ? want : "(unset)", now);
                return 1;
            }
            printf("pass: OpenBLAS now runs its %s kernels\n", now);
        }
        return 0;
    }
    /* the fallbacks of releases older than the CPU */
    expect_better("Prescott", avx512, "SkylakeX");
    expect_better("Prescott", avx2, "Haswell");
    expect_better("prescott", avx2, "Haswell");
    expect_better("Nehalem", avx2, "Haswell");
    expect_better("Core2", avx512, "SkylakeX");
    /* choices of the CPU's generation stand (an AVX2 choice on an AVX-512
     * CPU too: OpenBLAS has its reasons, AMD's Zen 4 among them) */
    expect_better("Haswell", avx512, NULL);
    expect_better("Zen", avx512, NULL);
    expect_better("SkylakeX", avx512, NULL);
    expect_better("Cooperlake", avx512, NULL);
    expect_better("SapphireRapids", avx512, NULL);
    /* nothing better to run */
    expect_better("Prescott", 0, NULL);
    expect_better(NULL, avx512, NULL);
    if (failures)
        return 1;
    printf("pass: fallbacks replaced, OpenBLAS's own choices kept\n");
    fflush(stdout);

    char *again[] = {argv[0], "one", "two words", NULL};
    const char *chose = openblas_get_corename();
    const char *better = getenv("OPENBLAS_CORETYPE") ? NULL : blas_kernels_better(chose, avx512);
    if (better) {
        /* this CPU is one OpenBLAS does not know, if it has AVX2: the public
         * path must bring the program back with kernels that run */
        printf("OpenBLAS chose %s here: blas_kernels_ensure must restart\n", chose);
        setenv("KERNELS_TEST_RESTARTED", "ensure", 1);
        blas_kernels_ensure("kernels_test", again);
        /* returning is right only where the CPU has nothing better */
        unsetenv("KERNELS_TEST_RESTARTED");
        printf("(no restart: the CPU has no AVX2)\n");
    }
    setenv("KERNELS_TEST_RESTARTED", "plain", 1);
    fflush(stdout);
    blas_restart(again);
    perror("FAIL: blas_restart returned");
    return 1;
}

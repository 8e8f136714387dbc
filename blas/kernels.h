/*
 * kernels.h — makes OpenBLAS run the kernels this CPU can run.
 *
 * OpenBLAS (built with DYNAMIC_ARCH, as distributions ship it) picks its
 * kernels once, when it loads, from the CPU's model number. A release older
 * than the CPU does not know the model and falls back to its oldest x86-64
 * kernels (Debian 12's 0.3.21 on a 2023 Xeon: "Prescott", SSE3): SGEMM and
 * DGEMM then run at a quarter of what the CPU can do, silently. The only
 * remedy OpenBLAS offers is OPENBLAS_CORETYPE, read when it loads, so a
 * program that finds the fallback restarts itself with it set, before it
 * does anything else (bolt_init included).
 */
#ifndef BLAS_KERNELS_H
#define BLAS_KERNELS_H

/* What the CPU can run, as far as OpenBLAS's kernels care. */
enum { BLAS_CPU_AVX2 = 1, BLAS_CPU_AVX512 = 2 };

/* The OPENBLAS_CORETYPE to ask for when OpenBLAS chose `corename` on a CPU
 * with `cpu` (BLAS_CPU_ flags), or NULL when its choice stands: it chose
 * kernels of the CPU's generation, or the CPU has nothing better. */
const char *blas_kernels_better(const char *corename, unsigned cpu);

/* Called first thing in main: where OpenBLAS fell back to kernels older than
 * the CPU and OPENBLAS_CORETYPE is not set, says so on stderr (prefixed by
 * `prog`), sets it and restarts the program with the same arguments. Returns
 * when nothing needed doing, with a BLAS other than OpenBLAS, or when the
 * restart failed (said on stderr; the program goes on with the slow kernels). */
void blas_kernels_ensure(const char *prog, char **argv);

/* Runs this program again, argv as given and the environment as it is now:
 * returns only on failure (-1, errno set). The platform's file:
 * restart_linux.c (/proc/self/exe), restart_posix.c (argv[0] through PATH,
 * built and tested on Linux too). */
int blas_restart(char **argv);

#endif

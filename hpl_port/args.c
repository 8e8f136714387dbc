/*
 * args.c — bolt-hpl's options: HPL.dat's path, the vendor HPLs' overrides
 * (-N, --nb, -P, -Q) and --auto, output options, and hooks for tests and
 * benchmarks.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpl_port/driver.h"

const char *hpl_usage(void)
{
    return "usage: boltrun -np R bolt-hpl [options]\n"
           "Runs the HPL benchmark (every combination of HPL.dat's lists, HPL's report).\n"
           "  --dat FILE        HPL's 31-line input (default ./HPL.dat; not read with -N or --auto\n"
           "                    unless given)\n"
           "  -N N, --n N       problem size (one)\n"
           "  --nb NB, -b NB    block size (one)\n"
           "  -P P, -Q Q        process grid (one; default the most square P x Q with P <= Q)\n"
           "  --pmap row|column process mapping (default HPL.dat's, else row-major)\n"
           "  --threads T       threads a rank (default: the BLAS's, OPENBLAS_NUM_THREADS, at most\n"
           "                    the CPUs the rank may run on); with one process row bolt-hpl runs\n"
           "                    them itself and factors the next panel while they update\n"
           "  --auto[=F]        N from F (default 0.8) of the memory every host can give its ranks,\n"
           "                    the most square grid, NB from a DGEMM probe; prints why\n"
           "  --progress[=S]    a progress line on stderr at most every S seconds (default 5, or\n"
           "                    0.5 rewritten in place when stderr is a terminal, which turns it on)\n"
           "  --no-progress\n"
           "  --phases          the time of each phase (panel factorisation, pivoting, broadcast,\n"
           "                    row swaps, update, back substitution), slowest rank's\n"
           "  --csv FILE        append one CSV row per test (header when the file is new)\n"
           "  --json FILE       append one JSON object per line per test\n"
           "  --seed S          the matrix generator's seed (default 100)\n"
           "  --dgemm-peak[=M]  measure the job's DGEMM rate (M x M x NB on every rank at once)\n"
           "                    and exit\n"
           "  --write-x FILE    (tests) write the solution x, one value a line\n"
           "  --matrix-checksum (tests) print an order-free checksum of [A|b], no solve\n"
           "  --inject-fault I,J (tests) corrupt U(I,J) after the factorisation\n"
           "  --help, --version\n"
           "One rank per core with OPENBLAS_NUM_THREADS=1, or one rank per host with BLAS threads\n"
           "(boltrun --bind-to none); see docs/hpl.md.\n";
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int hpl_opts_parse(int argc, char **argv, hpl_opts_t *o, char *err, size_t errlen)
{
    *o = (hpl_opts_t){.dat = "HPL.dat", .pmap = -1, .progress = -1, .progress_interval = -1, .auto_fraction = 0.8,
                      .fault_row = -1, .fault_col = -1, .peak_size = 4000, .seed = 100};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        char name[64];
        if (eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = 0;
            val = eq + 1;
            a = name;
        }
#define NEXT()                                                                                    \
    do {                                                                                          \
        if (!val) {                                                                               \
            if (i + 1 >= argc) {                                                                  \
                snprintf(err, errlen, "%s needs a value", a);                                     \
                return -1;                                                                        \
            }                                                                                     \
            val = argv[++i];                                                                      \
        }                                                                                         \
    } while (0)
#define INTARG(field, lo, hi, what)                                                               \
    do {                                                                                          \
        long v_;                                                                                  \
        NEXT();                                                                                   \
        if (parse_long(val, lo, hi, &v_)) {                                                       \
            snprintf(err, errlen, "%s expects %s, got '%s'", a, what, val);                       \
            return -1;                                                                            \
        }                                                                                         \
        field = (int)v_;                                                                          \
    } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(hpl_usage(), stdout);
            return 1;
        } else if (!strcmp(a, "--version")) {
            printf("bolt-hpl %d.%d.%d\n", BOLT_VERSION_MAJOR, BOLT_VERSION_MINOR, BOLT_VERSION_PATCH);
            return 1;
        } else if (!strcmp(a, "--dat")) {
            NEXT();
            o->dat = val;
            o->dat_given = 1;
        } else if (!strcmp(a, "-N") || !strcmp(a, "-n") || !strcmp(a, "--n")) {
            INTARG(o->n, 1, INT_MAX / 2, "a problem size of at least 1");
        } else if (!strcmp(a, "--nb") || !strcmp(a, "-b") || !strcmp(a, "-NB")) {
            INTARG(o->nb, 1, 65536, "a block size from 1 to 65536");
        } else if (!strcmp(a, "-P") || !strcmp(a, "-p")) {
            INTARG(o->p, 1, 1 << 20, "a number of process rows of at least 1");
        } else if (!strcmp(a, "-Q") || !strcmp(a, "-q")) {
            INTARG(o->q, 1, 1 << 20, "a number of process columns of at least 1");
        } else if (!strcmp(a, "--threads")) {
            INTARG(o->threads, 1, 1024, "a number of threads from 1 to 1024");
        } else if (!strcmp(a, "--pmap")) {
            NEXT();
            if (!strcmp(val, "row") || !strcmp(val, "0"))
                o->pmap = 0;
            else if (!strcmp(val, "column") || !strcmp(val, "1"))
                o->pmap = 1;
            else {
                snprintf(err, errlen, "--pmap expects row or column, got '%s'", val);
                return -1;
            }
        } else if (!strcmp(a, "--auto")) {
            o->autosize = 1;
            if (val) {
                char *end;
                double f = strtod(val, &end);
                if (end == val || *end || !(f > 0.0 && f <= 0.95)) {
                    snprintf(err, errlen, "--auto=F expects a fraction of memory above 0 and at most "
                                          "0.95, got '%s'", val);
                    return -1;
                }
                o->auto_fraction = f;
            }
        } else if (!strcmp(a, "--progress")) {
            o->progress = 1;
            if (val) {
                char *end;
                double iv = strtod(val, &end);
                if (end == val || *end || !(iv >= 0.0 && iv <= 86400.0)) {
                    snprintf(err, errlen, "--progress=SECONDS expects an interval from 0 to 86400, got '%s'", val);
                    return -1;
                }
                o->progress_interval = iv;
            }
        } else if (!strcmp(a, "--no-progress")) {
            o->progress = 0;
        } else if (!strcmp(a, "--phases")) {
            o->phases = 1;
        } else if (!strcmp(a, "--csv")) {
            NEXT();
            o->csv = val;
        } else if (!strcmp(a, "--json")) {
            NEXT();
            o->json = val;
        } else if (!strcmp(a, "--seed")) {
            NEXT();
            char *end;
            errno = 0;
            unsigned long long s = strtoull(val, &end, 0);
            if (end == val || *end || errno) {
                snprintf(err, errlen, "--seed expects an unsigned integer, got '%s'", val);
                return -1;
            }
            o->seed = s;
        } else if (!strcmp(a, "--dgemm-peak")) {
            o->dgemm_peak = 1;
            if (val) {
                long v;
                if (parse_long(val, 64, 20000, &v)) {
                    snprintf(err, errlen, "--dgemm-peak=M expects a size from 64 to 20000, got '%s'", val);
                    return -1;
                }
                o->peak_size = (int)v;
            }
        } else if (!strcmp(a, "--write-x")) {
            NEXT();
            o->write_x = val;
        } else if (!strcmp(a, "--matrix-checksum")) {
            o->checksum = 1;
        } else if (!strcmp(a, "--inject-fault")) {
            NEXT();
            long r, c;
            char *comma = strchr(val, ',');
            char rbuf[32];
            if (!comma || (size_t)(comma - val) >= sizeof rbuf) {
                snprintf(err, errlen, "--inject-fault expects ROW,COL, got '%s'", val);
                return -1;
            }
            memcpy(rbuf, val, (size_t)(comma - val));
            rbuf[comma - val] = 0;
            if (parse_long(rbuf, 0, INT_MAX, &r) || parse_long(comma + 1, 0, INT_MAX, &c)) {
                snprintf(err, errlen, "--inject-fault expects ROW,COL (non-negative), got '%s'", val);
                return -1;
            }
            o->fault_row = r;
            o->fault_col = c;
        } else {
            snprintf(err, errlen, "unknown option '%s' (see --help)", argv[i]);
            return -1;
        }
#undef NEXT
#undef INTARG
    }
    return 0;
}

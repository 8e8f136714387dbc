/* scratch_reuse.c — large reductions in a loop touch no fresh memory once
 * warmed up: the buffers a reduce, scan or reduce-scatter needs for what
 * other ranks send are kept between calls (collectives/scratch.c), not
 * returned to the C library, whose pages would fault again on every call
 * (256 page faults a MiB; ~10 us each in a VM with shadow paging). Every
 * result is checked against the serial reference.
 *
 *   scratch_reuse [BYTES] [CALLS]   (default 1 MiB, 12 calls)
 *
 * Fails when a call takes on average FAULTS_MAX page faults or more after
 * three warm-up calls (BOLT_COLL_SCRATCH=0 shows what it guards against:
 * hundreds a call on the root with glibc's allocator). */
#include <sys/resource.h>

#include "cutil.h"

#define FAULTS_MAX 16

static long faults(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt + u.ru_majflt;
}

enum { REDUCE, SCAN, REDUCE_SCATTER, NKINDS };
static const char *names[NKINDS] = {"reduce", "scan", "reduce_scatter_block"};

static void call(int kind, const float *in, float *out, size_t count, bolt_comm_t w)
{
    switch (kind) {
    case REDUCE: OK(bolt_reduce(in, out, count, BOLT_FLOAT32, BOLT_SUM, 0, w)); break;
    case SCAN: OK(bolt_scan(in, out, count, BOLT_FLOAT32, BOLT_SUM, w)); break;
    default: OK(bolt_reduce_scatter_block(in, out, count / (size_t)csize, BOLT_FLOAT32, BOLT_SUM, w)); break;
    }
}

static void check(int kind, const float *out, const float *ref, size_t count)
{
    size_t n = count, off = 0;
    if (kind == REDUCE && crank != 0)
        return;
    if (kind == REDUCE_SCATTER) {
        n = count / (size_t)csize;
        off = (size_t)crank * n;
    }
    long d = cdiff(out, ref + off, n, BOLT_FLOAT32);
    EXPECT(d < 0, "element %ld differs from the serial reference", d);
}

int main(int argc, char **argv)
{
    OK(bolt_init(&argc, &argv));
    bolt_comm_t w = bolt_comm_world();
    OK(bolt_comm_rank(w, &crank));
    OK(bolt_comm_size(w, &csize));
    size_t bytes = argc > 1 ? (size_t)atol(argv[1]) : 1 << 20;
    int calls = argc > 2 ? atoi(argv[2]) : 12;
    size_t count = bytes / sizeof(float) / (size_t)csize * (size_t)csize;
    float *in = xmalloc(count * sizeof *in), *out = xmalloc(count * sizeof *out),
          *ref = xmalloc(count * sizeof *ref);
    char report[256] = "";
    cfill(in, count, BOLT_FLOAT32, BOLT_SUM, crank, 3);
    memset(out, 0, count * sizeof *out); /* its pages in before counting (calloc maps them untouched) */
    for (int kind = 0; kind < NKINDS; kind++) {
        /* a scan's result on rank r is the reduction of ranks 0..r */
        cref(ref, count, BOLT_FLOAT32, BOLT_SUM, csize, 3, kind == SCAN ? crank + 1 : csize);
        CASE("%s of %zu floats, %d calls", names[kind], count, calls);
        for (int i = 0; i < 3; i++)
            call(kind, in, out, count, w);
        OK(bolt_barrier(w));
        long before = faults();
        for (int i = 0; i < calls; i++) {
            memset(out, 0, count * sizeof *out);
            call(kind, in, out, count, w);
            check(kind, out, ref, count);
        }
        long per_call = (faults() - before) / calls;
        EXPECT(per_call < FAULTS_MAX, "%ld page faults a call after warming up (buffers not kept?)", per_call);
        if (crank == 0)
            snprintf(report + strlen(report), sizeof report - strlen(report), "%s%s %ld", kind ? ", " : "",
                     names[kind], per_call);
        OK(bolt_barrier(w));
    }
    if (crank == 0)
        printf("scratch_reuse: %d ranks, %d calls of %zu bytes each, page faults a call on rank 0: %s: ok\n",
               csize, calls, count * sizeof(float), report);
    free(in);
    free(out);
    free(ref);
    OK(bolt_finalize());
    return 0;
}

/*
 * coll_times_check — what bolt-llm reports as the collectives' own time:
 * per call the shortest time any rank spent in it, summed over the calls
 * every rank recorded (run by tp.sh on 3 ranks).
 *
 * Rank r spends (i + 1) x (1 + (i + r) % n) ms in call i: some rank spends
 * only i + 1 in each, so the own time of calls 0..k-1 is k(k+1)/2 ms. The
 * last rank records one call fewer (its recording stops): only the calls
 * every rank has compare.
 */
#include <math.h>
#include <stdio.h>

#include "bolt.h"
#include "inference/coll_times.h"

int main(int argc, char **argv)
{
    if (bolt_init(&argc, &argv) != BOLT_OK)
        return 2;
    bolt_comm_t w = bolt_comm_world();
    int r = 0, n = 1, fails = 0;
    if (bolt_comm_rank(w, &r) != BOLT_OK || bolt_comm_size(w, &n) != BOLT_OK)
        return 2;
    coll_times_t ct = {0};
    coll_times_add(&ct, 1.0); /* before the start: not recorded */
    coll_times_start(&ct);
    const int calls = 5000, mine = r == n - 1 && n > 1 ? calls - 1 : calls;
    for (int i = 0; i < mine; i++)
        coll_times_add(&ct, (i + 1) * (1 + (i + r) % n) * 1e-3);
    double own = -1;
    size_t k = 0;
    int rc = coll_times_own(&ct, w, &own, &k);
    const size_t want_k = n > 1 ? calls - 1 : calls;
    const double want = (double)want_k * (double)(want_k + 1) / 2 * 1e-3;
    if (rc != BOLT_OK || k != want_k || fabs(own - want) > 1e-9 * want) {
        fprintf(stderr, "coll_times_check: rank %d of %d: own time %.9f s over %zu calls, want %.9f over %zu (rc %d)\n",
                r, n, own, k, want, want_k, rc);
        fails++;
    }
    coll_times_free(&ct);
    if (fails == 0 && r == 0)
        printf("coll_times_check: ok (%d ranks)\n", n);
    bolt_finalize();
    return fails ? 1 : 0;
}

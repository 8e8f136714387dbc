/*
 * auto.c — --auto: the problem sized from the memory of the job's hosts, the
 * grid from the rank count, NB from a short DGEMM probe; each choice is
 * written down with its reason.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpl_port/probe.h"
#include "hpl_port/sys.h"

#define HOSTLEN 64

typedef struct host_rec {
    char host[HOSTLEN];
    uint64_t avail;
} host_rec_t;

static size_t notef(char *notes, size_t len, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static size_t notef(char *notes, size_t len, size_t at, const char *fmt, ...)
{
    if (at >= len)
        return at;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(notes + at, len - at, fmt, ap);
    va_end(ap);
    return n > 0 ? at + (size_t)n : at;
}

int hpl_dgemm_peak(bolt_comm_t world, int size, int nb, double *total, double *min_rank)
{
    double mine = 0;
    int rc = bolt_barrier(world);
    if (rc)
        return hpl_fail(rc, "DGEMM probe: barrier");
    if ((rc = hpl_dgemm_rate(size, size, nb, 5, &mine)))
        return rc;
    if ((rc = bolt_allreduce(&mine, total, 1, BOLT_FLOAT64, BOLT_SUM, world)) ||
        (min_rank && (rc = bolt_allreduce(&mine, min_rank, 1, BOLT_FLOAT64, BOLT_MIN, world))))
        return hpl_fail(rc, "DGEMM probe: summing the ranks' rates");
    return 0;
}

int hpl_auto(bolt_comm_t world, double fraction, int nb_given, int n_given, int p_given, int q_given,
             hpl_input_t *in, char *notes, size_t notes_len)
{
    int size, rc;
    bolt_comm_size(world, &size);
    size_t at = 0;
    notes[0] = 0;

    /* the grid: the most square P x Q = size with P <= Q */
    int P = 1;
    for (int p = 1; p * p <= size; p++)
        if (size % p == 0)
            P = p;
    int Q = size / P;
    if (p_given > 0 || q_given > 0) {
        P = p_given > 0 ? p_given : size / (q_given > 0 ? q_given : 1);
        Q = q_given > 0 ? q_given : size / P;
    } else {
        at = notef(notes, notes_len, at, "- auto: P x Q = %d x %d, the most square grid of %d ranks with P <= Q\n",
                   P, Q, size);
    }

    /* NB: the smallest block size whose DGEMM (all ranks at once) is within
     * 3% of the best rate measured */
    int nb = nb_given;
    if (nb <= 0) {
        static const int cand[] = {64, 96, 128, 160, 192, 224, 256, 320, 384};
        const int ncand = (int)(sizeof cand / sizeof cand[0]);
        double rate[sizeof cand / sizeof cand[0]], best = 0;
        for (int i = 0; i < ncand; i++) {
            if ((rc = hpl_dgemm_peak(world, 1024, cand[i], &rate[i], NULL)))
                return rc;
            if (rate[i] > best)
                best = rate[i];
        }
        int pick = ncand - 1;
        for (int i = 0; i < ncand; i++)
            if (rate[i] >= 0.97 * best) {
                pick = i;
                break;
            }
        nb = cand[pick];
        at = notef(notes, notes_len, at, "- auto: NB = %d, the smallest within 3%% of the best DGEMM rate "
                   "(1024 x 1024 x NB, all ranks at once, Gflop/s:", nb);
        for (int i = 0; i < ncand; i++)
            at = notef(notes, notes_len, at, " %d: %.1f", cand[i], rate[i]);
        at = notef(notes, notes_len, at, ")\n");
    }

    /* N: the job's hosts, their available memory, their ranks */
    int n = n_given;
    if (n <= 0) {
        host_rec_t me = {.avail = hpl_sys_mem_available()}, *all = calloc((size_t)size, sizeof *all);
        snprintf(me.host, sizeof me.host, "%s", bolt_hostname());
        if (!all)
            return hpl_error(BOLT_ERR_NOMEM, "--auto: out of memory");
        if ((rc = bolt_allgather(&me, all, 1, bolt_type_bytes(sizeof me), world))) {
            free(all);
            return hpl_fail(rc, "--auto: gathering the hosts' memory");
        }
        /* the smallest share a host can give each of its ranks */
        double share = -1;
        const char *tightest = "";
        int tight_ranks = 0;
        uint64_t tight_avail = 0;
        for (int i = 0; i < size; i++) {
            int ranks = 0;
            uint64_t avail = all[i].avail;
            for (int j = 0; j < size; j++)
                if (strcmp(all[i].host, all[j].host) == 0) {
                    ranks++;
                    if (all[j].avail < avail)
                        avail = all[j].avail;
                }
            double s = (double)avail / ranks;
            if (share < 0 || s < share) {
                share = s;
                tightest = all[i].host;
                tight_ranks = ranks;
                tight_avail = avail;
            }
        }
        if (share <= 0) {
            free(all);
            return hpl_error(BOLT_ERR_UNSUPPORTED, "--auto: host %s does not tell its available memory; give -N",
                             tightest);
        }
        /* the matrix (8 N (N+1) bytes over the ranks), its panel buffers
         * (about 4 x N/P x NB doubles a rank) and U with the swaps' room
         * (5 x N/Q x NB) within the fraction */
        double budget = fraction * share;
        double nn = floor(sqrt(budget * size / 8.0));
        while (nn > nb && 8.0 * nn * (nn + 1) / size + 4.0 * 8.0 * (nn / P + nb) * nb +
                              5.0 * 8.0 * (nn / Q + nb) * nb > budget)
            nn -= nb;
        n = (int)(nn / nb) * nb;
        if (n < nb)
            n = nb;
        at = notef(notes, notes_len, at,
                   "- auto: N = %d, %g%% of the memory host %s can give each of its %d ranks (%.2f GiB "
                   "available, the smallest share of the job's hosts), rounded down to a multiple of NB\n",
                   n, 100.0 * fraction, tightest, tight_ranks, (double)tight_avail / 1073741824.0);
        free(all);
    }
    in->nn = 1;
    in->n[0] = n;
    in->nnb = 1;
    in->nb[0] = nb;
    in->ngrid = 1;
    in->p[0] = P;
    in->q[0] = Q;
    return 0;
}

/*
 * matgen.c — [A|b] from a seed, each process making only its own blocks.
 *
 * One 64-bit linear congruential stream X(k+1) = a X(k) + c (mod 2^64) runs
 * down the columns of the global N x (N + 1) matrix [A|b]: entry idx =
 * j N + i (column-major) is 0.5 - X(idx + 1) / 2^64. A process reaches the
 * start of each of its blocks by jumping ahead: k steps of the stream are one
 * affine map x -> A x + C, composed by repeated squaring in log2(k) steps. So
 * the matrix for a given N is the same whatever the grid, and no process
 * generates what it does not hold.
 */
#include <string.h>

#include "hpl_port/hpl.h"

#define LCG_MUL 6364136223846793005ULL
#define LCG_INC 1ULL
#define TWO_M64 5.42101086242752217e-20 /* 2^-64 */

struct lcg_jump {
    uint64_t mul, add; /* x -> mul x + add */
};

/* The map of k steps. */
static struct lcg_jump lcg_jump_make(uint64_t k)
{
    struct lcg_jump r = {1, 0}, p = {LCG_MUL, LCG_INC};
    while (k) {
        if (k & 1) /* r = p after r */
            r = (struct lcg_jump){p.mul * r.mul, p.mul * r.add + p.add};
        p = (struct lcg_jump){p.mul * p.mul, p.mul * p.add + p.add};
        k >>= 1;
    }
    return r;
}

static inline uint64_t lcg_apply(struct lcg_jump j, uint64_t x)
{
    return j.mul * x + j.add;
}

static inline double lcg_value(uint64_t x)
{
    return 0.5 - (double)x * TWO_M64;
}

double hpl_rand_at(uint64_t seed, uint64_t idx)
{
    return lcg_value(lcg_apply(lcg_jump_make(idx + 1), seed));
}

/* Each local column starts from a jump to its first local entry; between my
 * row blocks, one fixed jump over the other process rows' blocks. */
void hpl_matgen(const hpl_grid_t *g, hpl_mat_t *m, uint64_t seed)
{
    const int n = m->n, nb = m->nb, P = g->nprow, Q = g->npcol;
    const struct lcg_jump skip = lcg_jump_make((uint64_t)(P - 1) * (uint64_t)nb);
    for (int lj = 0; lj < m->nq; lj++) {
        int gj = hpl_global(lj, nb, g->mycol, Q);
        double *col = m->a + (size_t)lj * m->lda;
        uint64_t x = lcg_apply(lcg_jump_make((uint64_t)gj * (uint64_t)n + (uint64_t)g->myrow * nb),
                               seed);
        for (int li = 0; li < m->mp; li += nb) {
            int cnt = m->mp - li < nb ? m->mp - li : nb;
            for (int r = 0; r < cnt; r++) {
                x = LCG_MUL * x + LCG_INC;
                col[li + r] = lcg_value(x);
            }
            /* to the start of my next row block: the other P - 1 processes'
             * blocks in between (a short last block is the column's end) */
            x = lcg_apply(skip, x);
        }
    }
}

/* A 64-bit mix of an entry's position and bits (splitmix64's finaliser). */
static uint64_t entry_hash(uint64_t idx, double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    uint64_t z = idx * 0x9e3779b97f4a7c15ULL ^ b;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int hpl_matgen_checksum(const hpl_grid_t *g, const hpl_mat_t *m, uint64_t *sum)
{
    uint64_t local = 0;
    for (int lj = 0; lj < m->nq; lj++) {
        uint64_t gj = (uint64_t)hpl_global(lj, m->nb, g->mycol, g->npcol);
        const double *col = m->a + (size_t)lj * m->lda;
        for (int li = 0; li < m->mp; li++) {
            uint64_t gi = (uint64_t)hpl_global(li, m->nb, g->myrow, g->nprow);
            local += entry_hash(gj * (uint64_t)m->n + gi, col[li]);
        }
    }
    int rc = bolt_allreduce(&local, sum, 1, BOLT_UINT64, BOLT_SUM, g->all);
    return rc ? hpl_fail(rc, "matrix checksum: all-reduce over the grid") : 0;
}

/*
 * tree_binomial.c — the two layouts of a binomial tree over vranks 0..n-1
 * (vrank 0 the root; callers rotate by the root). Each is the other with
 * the bits of the vranks reversed.
 *
 * Far first: v's parent clears v's lowest set bit; the root sends to the
 * largest power of two below n first, then to half of it, ... For ranks
 * placed in blocks (consecutive ranks on one host): the first messages cross
 * between blocks, and each block then fans out within itself. Its subtrees
 * are runs of consecutive vranks (v's: v up to v + its lowest set bit),
 * which gather, scatter, the scatter-allgather broadcast (blocks in place)
 * and reduce (its fixed fold order) build on: they walk that layout
 * themselves, with the subtree's end at hand, and have no near-first form.
 *
 * Near first: v's parent clears v's highest set bit; the root sends to 1
 * first (its subtree: the odd vranks), then 2 (2 mod 4), 4, ... The same for
 * ranks placed round-robin, rank r on core r mod c: ranks that outnumber
 * the cores of their host and are not bound end up so more often than not
 * (the kernel spreads them as they are forked; boltrun's --bind-to core
 * places them so). Far first there keeps a forwarder on its parent's core,
 * where it can forward only when the parent stops sending (see
 * docs/collectives.md, "Broadcast trees on crowded cores").
 */
#include "collectives/coll.h"

void coll_tree_place(int rank, int root, int n, int *v, int *mask, int *sub)
{
    *v = (rank - root + n) % n;
    *mask = 1;
    while (*mask < n && !(*v & *mask))
        *mask <<= 1;
    *sub = *v + *mask < n ? *mask : n - *v;
}

void coll_tree_binomial(struct coll_tree *t, int v, int n, int near_first)
{
    t->nkids = 0;
    if (!near_first) {
        int mask = 1;
        while (mask < n && !(v & mask))
            mask <<= 1;
        t->parent = v ? v - mask : -1;
        for (mask >>= 1; mask > 0; mask >>= 1)
            if (v + mask < n)
                t->kid[t->nkids++] = v + mask;
        return;
    }
    unsigned high = 0, left = (unsigned)(n - v); /* vranks from v on */
    for (unsigned bit = 1; bit != 0 && bit <= (unsigned)v; bit <<= 1)
        if ((unsigned)v & bit)
            high = bit;
    t->parent = v ? v - (int)high : -1;
    /* v + mask for every mask above v's highest bit: the smallest first,
     * whose subtree (every vrank congruent to it mod 2 mask) is largest */
    for (unsigned mask = high ? high << 1 : 1; mask != 0 && mask < left; mask <<= 1)
        t->kid[t->nkids++] = v + (int)mask;
}

int coll_tree_near_first(void)
{
    return coll_crowded_cores() > 0;
}

/*
 * share_model.h — the model file across the ranks of bolt-llm: every rank
 * must read the same model (checked: size and the bytes before its tensor
 * data, as rank 0 has them), and with --share-model a rank whose host lacks
 * the file is sent by rank 0 the bytes its part of the model will read, into
 * a sparse copy of its own, each chunk checked with a CRC-32.
 */
#ifndef INF_SHARE_MODEL_H
#define INF_SHARE_MODEL_H

#include <stdint.h>

#include "bolt.h"
#include "inference/engine.h"

typedef struct share {
    char path[4096];  /* the file this rank loads: the model, or its sparse copy */
    char model[4096]; /* the model's path, as given */
    int fetch;       /* this rank loads a copy that share_fetch must fill */
    int any;         /* some rank does: every rank takes part in share_fetch */
    uint64_t size, meta; /* the file's bytes, the bytes before its tensor data */
} share_t;

/* Every rank of world, before the model is loaded. A rank without the file
 * at `path` (or with another file there) fails the job, every rank saying
 * which rank and host, unless `share`: then that rank makes a sparse copy,
 * and rank 0 sends it the file's metadata. Returns 0, or -1 with a message
 * in err on every rank. */
int share_check(const char *path, int share, bolt_comm_t world, share_t *s, char *err, size_t errlen);

/* Every rank, after the model is loaded from s->path (when s->any): rank 0
 * sends each rank that lacks the file the vectors and every byte a context
 * with p will read of it (inf_ctx_plan), that rank writes them into its
 * copy, checks them, and loads the model again (*m replaced). Returns 0, or
 * -1 with a message in err. */
int share_fetch(share_t *s, inf_model_t **m, const inf_ctx_params_t *p, bolt_comm_t world, char *err, size_t errlen);

#endif

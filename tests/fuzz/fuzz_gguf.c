/* fuzz_gguf.c — fuzz target for the GGUF reader (inference/gguf.c): any
 * bytes are read or refused with a message naming the file, never a crash,
 * and what is read stays inside the bytes given: every tensor's data, every
 * string, every array element is touched. Built with libFuzzer
 * (make fuzz-gguf) or, everywhere, with replay.c over tests/fuzz/corpus_gguf. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inference/gguf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a copy of exactly the file's bytes: a read past them is a sanitizer report */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    gguf_t *g = NULL;
    char err[512];
    err[0] = 0;
    if (gguf_parse_mem(buf, size, "fuzz.gguf", &g, err, sizeof err) == 0) {
        volatile unsigned sum = 0;
        for (size_t i = 0; i < g->n_kv; i++) {
            const gguf_kv_t *kv = &g->kv[i];
            for (uint64_t k = 0; k < kv->key.n; k++)
                sum += (unsigned char)kv->key.p[k];
            if (kv->type == GGUF_ARRAY && kv->strs)
                for (uint64_t j = 0; j < kv->count; j++)
                    for (uint64_t k = 0; k < kv->strs[j].n; k++)
                        sum += (unsigned char)kv->strs[j].p[k];
            else if (kv->type == GGUF_ARRAY && kv->atype != GGUF_ARRAY && kv->atype != GGUF_STRING)
                for (uint64_t j = 0; j < kv->count; j++)
                    sum += (unsigned)gguf_arr_i64(kv, j);
        }
        for (size_t i = 0; i < g->n_tensors; i++) {
            const gguf_tensor_t *t = &g->tensors[i];
            const uint8_t *p = t->data;
            if (p < buf || p + t->nbytes > buf + size)
                abort(); /* a tensor outside the file */
            for (uint64_t k = 0; k < t->nbytes; k += 61)
                sum += p[k];
        }
        (void)sum;
        gguf_close(g);
    } else if (strncmp(err, "fuzz.gguf", 9) != 0) {
        abort(); /* every error names the file */
    }
    free(buf);
    return 0;
}

/* fuzz_hpl_dat.c — fuzz target for bolt-hpl's HPL.dat reader
 * (hpl_port/hpl_dat.c): any bytes are read or refused with a message naming
 * the file, never a crash. Byte 0 is the job's rank count (0: unchecked),
 * the rest the file. Built with libFuzzer (make fuzz-hpl-dat) or, everywhere,
 * with replay.c over tests/fuzz/corpus_hpl_dat. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hpl_port/hpl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int nranks = data[0];
    /* a copy of exactly the file's bytes: a read past them is a sanitizer report */
    char *text = malloc(size - 1 ? size - 1 : 1);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    hpl_input_t in;
    char err[512];
    err[0] = 0;
    int rc = hpl_dat_parse(text, size - 1, "fuzz.dat", nranks, &in, err, sizeof err);
    if (rc == 0) {
        /* what was read stays within HPL's bounds */
        if (in.nn < 1 || in.nn > HPL_MAX_PARAM || in.ngrid < 1 || in.ngrid > HPL_MAX_PARAM ||
            in.nbcast < 1 || in.nbcast > HPL_MAX_PARAM)
            abort();
        for (int i = 0; i < in.ngrid; i++)
            if (in.p[i] < 1 || in.q[i] < 1 || (nranks && (long)in.p[i] * in.q[i] > nranks))
                abort();
        for (int i = 0; i < in.nbcast; i++)
            if (in.bcast[i] < 0 || in.bcast[i] >= HPL_BCAST_COUNT)
                abort();
    } else if (strncmp(err, "fuzz.dat", 8) != 0) {
        abort(); /* every error names the file */
    }
    free(text);
    return 0;
}

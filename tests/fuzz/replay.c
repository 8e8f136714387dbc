/* replay.c — runs the fuzz target over files (a corpus), for builds without
 * libFuzzer: `fuzz_kvs_wire_replay FILE...`; every file must pass without a
 * crash or a sanitizer report. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (f == NULL) {
            fprintf(stderr, "replay: cannot open %s\n", argv[i]);
            return 1;
        }
        static uint8_t buf[1 << 22];
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        n++;
    }
    printf("replay: %d inputs, no crash\n", n);
    return 0;
}

/* crypto_hex.c — the job secret travels in the environment as hex. */
#include <string.h>

#include "bolt.h"
#include "runtime/crypto.h"

void bolt_hex_encode(const uint8_t *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes exactly n bytes from exactly 2n hex digits. */
int bolt_hex_decode(const char *in, uint8_t *out, size_t n)
{
    if (in == NULL || strlen(in) != 2 * n)
        return BOLT_ERR_ARG;
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(in[2 * i]), lo = hexval(in[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return BOLT_ERR_ARG;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return BOLT_OK;
}

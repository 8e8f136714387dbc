/*
 * crypto_commoncrypto.c — the job secret's primitives on macOS: CommonCrypto's
 * CCHmac and the system's getentropy(). No library to install.
 */
#include "runtime/crypto.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <CommonCrypto/CommonHMAC.h>

#include "runtime/errors.h"

int bolt_random_bytes(void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        size_t chunk = n > 256 ? 256 : n; /* getentropy's per-call limit */
        if (getentropy(p, chunk) != 0)
            return bolt_err_set(BOLT_ERR_SYS, "cannot read random bytes from the operating system (getentropy: %s)",
                                strerror(errno));
        p += chunk;
        n -= chunk;
    }
    return BOLT_OK;
}

int bolt_hmac_sha256(const void *key, size_t keylen, const void *data, size_t len,
                     uint8_t out[BOLT_HMAC_BYTES])
{
    CCHmac(kCCHmacAlgSHA256, key, keylen, data, len, out);
    return BOLT_OK;
}

/* CommonCrypto has no public constant-time compare; this one touches every
 * byte whatever the data, and the compiler cannot shortcut a volatile OR. */
int bolt_secure_equal(const void *a, const void *b, size_t n)
{
    const volatile unsigned char *x = a, *y = b;
    volatile unsigned char acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= (unsigned char)(x[i] ^ y[i]);
    return acc == 0;
}

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

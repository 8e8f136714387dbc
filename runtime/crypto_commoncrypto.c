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

/* macOS's libc has a constant-time comparison (timingsafe_bcmp, string.h). */
int bolt_secure_equal(const void *a, const void *b, size_t n)
{
    return timingsafe_bcmp(a, b, n) == 0;
}

/*
 * crypto_openssl.c — the job secret's primitives from OpenSSL's libcrypto
 * (Linux and other non-Apple systems). macOS uses crypto_commoncrypto.c.
 */
#include "runtime/crypto.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#if defined(HAVE_GETENTROPY)
#include <sys/random.h>
#endif

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "runtime/errors.h"

#if !defined(HAVE_GETENTROPY)
#include <fcntl.h>
/* Fallback for systems without getentropy(): the kernel's urandom device. */
static int getentropy(void *buf, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int e = r < 0 ? errno : EIO;
            close(fd);
            errno = e;
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    close(fd);
    return 0;
}
#endif

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
    unsigned int outlen = 0;
    static const unsigned char empty[1];
    if (keylen > 0x7fffffff)
        return bolt_err_set(BOLT_ERR_ARG, "HMAC key too long (%zu bytes)", keylen);
    if (HMAC(EVP_sha256(), keylen ? key : empty, (int)keylen, len ? data : empty, len, out, &outlen) == NULL ||
        outlen != BOLT_HMAC_BYTES)
        return bolt_err_set(BOLT_ERR_INTERNAL, "OpenSSL's HMAC-SHA256 failed");
    return BOLT_OK;
}

int bolt_secure_equal(const void *a, const void *b, size_t n)
{
    return CRYPTO_memcmp(a, b, n) == 0;
}

/*
 * crypto.h — the job secret's primitives, from a well-kept library.
 * crypto_openssl.c (libcrypto) on Linux; crypto_commoncrypto.c on macOS.
 */
#ifndef BOLT_CRYPTO_H
#define BOLT_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#define BOLT_SECRET_BYTES 32
#define BOLT_HMAC_BYTES 32

/* Fills buf with n bytes from the OS's random source. */
int bolt_random_bytes(void *buf, size_t n);
/* HMAC-SHA256. */
int bolt_hmac_sha256(const void *key, size_t keylen, const void *data, size_t len,
                     uint8_t out[BOLT_HMAC_BYTES]);
/* Constant-time comparison: 1 when equal. */
int bolt_secure_equal(const void *a, const void *b, size_t n);
/* Hex helpers for passing the secret in the environment. */
void bolt_hex_encode(const uint8_t *in, size_t n, char *out /* 2n+1 */);
int bolt_hex_decode(const char *in, uint8_t *out, size_t n);

#endif

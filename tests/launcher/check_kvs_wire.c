/* Unit tests: the key-value store's wire format (runtime/kvs_wire.c). */
#include <arpa/inet.h>
#include <check.h>

#include "tests/check_run.h"
#include <stdlib.h>
#include <string.h>

#include "bolt.h"
#include "runtime/kvs_wire.h"

static uint8_t *roundtrip(const struct bolt_kvs_msg *in, struct bolt_kvs_msg *out, size_t *total)
{
    size_t n = bolt_kvs_encoded_size(in), len = 0, framelen = 0;
    ck_assert_uint_gt(n, 0);
    uint8_t *buf = malloc(n);
    const char *why = NULL;
    ck_assert_int_eq(bolt_kvs_encode(in, buf, n, &len, &why), BOLT_OK);
    ck_assert_uint_eq(len, n);
    /* Every proper prefix is incomplete; the whole is a frame. */
    for (size_t k = 0; k < n; k += (n > 1000 ? 997 : 1))
        ck_assert_int_eq(bolt_kvs_frame_complete(buf, k, &framelen, &why), 0);
    ck_assert_int_eq(bolt_kvs_frame_complete(buf, n, &framelen, &why), 1);
    ck_assert_uint_eq(framelen, n);
    ck_assert_int_eq(bolt_kvs_decode(buf + 4, n - 4, out, &why), BOLT_OK);
    ck_assert_int_eq(out->op, in->op);
    *total = n;
    return buf;
}

START_TEST(put_get_value)
{
    struct bolt_kvs_msg m = {.op = BOLT_KVS_PUT, .key = "addr-3", .keylen = 6, .val = "hello", .vallen = 5}, o;
    size_t n;
    uint8_t *b = roundtrip(&m, &o, &n);
    ck_assert_uint_eq(n, 4 + 1 + 1 + 6 + 4 + 5);
    ck_assert_uint_eq(b[0], 0);
    ck_assert_uint_eq(b[3], n - 4); /* big-endian length */
    ck_assert_uint_eq(b[4], BOLT_KVS_PUT);
    ck_assert_uint_eq(o.keylen, 6);
    ck_assert(memcmp(o.key, "addr-3", 6) == 0);
    ck_assert_uint_eq(o.vallen, 5);
    ck_assert(memcmp(o.val, "hello", 5) == 0);
    free(b);

    m = (struct bolt_kvs_msg){.op = BOLT_KVS_GET, .key = "k", .keylen = 1};
    b = roundtrip(&m, &o, &n);
    ck_assert_uint_eq(n, 4 + 1 + 1 + 1);
    ck_assert_uint_eq(o.vallen, 0);
    free(b);

    /* empty value, and a value of the largest size with the largest key */
    m = (struct bolt_kvs_msg){.op = BOLT_KVS_VALUE, .key = "e", .keylen = 1, .val = NULL, .vallen = 0};
    b = roundtrip(&m, &o, &n);
    ck_assert_uint_eq(o.vallen, 0);
    free(b);
    char key[BOLT_KVS_MAX_KEY];
    memset(key, 'k', sizeof key);
    uint8_t *big = malloc(BOLT_KVS_MAX_VALUE);
    for (size_t i = 0; i < BOLT_KVS_MAX_VALUE; i++)
        big[i] = (uint8_t)(i * 7);
    m = (struct bolt_kvs_msg){.op = BOLT_KVS_VALUE, .key = key, .keylen = sizeof key, .val = big,
                              .vallen = BOLT_KVS_MAX_VALUE};
    b = roundtrip(&m, &o, &n);
    ck_assert_uint_eq(n, 4 + BOLT_KVS_MAX_FRAME);
    ck_assert(memcmp(o.val, big, BOLT_KVS_MAX_VALUE) == 0);
    free(b);
    free(big);
}
END_TEST

START_TEST(fence_abort)
{
    struct bolt_kvs_msg m = {.op = BOLT_KVS_FENCE}, o;
    size_t n;
    uint8_t *b = roundtrip(&m, &o, &n);
    ck_assert_uint_eq(n, 5);
    free(b);
    m = (struct bolt_kvs_msg){.op = BOLT_KVS_FENCE_DONE, .round = 0xdeadbeef};
    b = roundtrip(&m, &o, &n);
    ck_assert_uint_eq(o.round, 0xdeadbeef);
    free(b);
    m = (struct bolt_kvs_msg){.op = BOLT_KVS_ABORT, .code = -3, .val = "bad input", .vallen = 9};
    b = roundtrip(&m, &o, &n);
    ck_assert_int_eq(o.code, -3);
    ck_assert_uint_eq(o.vallen, 9);
    ck_assert(memcmp(o.val, "bad input", 9) == 0);
    free(b);
    m = (struct bolt_kvs_msg){.op = BOLT_KVS_FENCE_FAILED, .val = "rank 1 ended", .vallen = 12};
    b = roundtrip(&m, &o, &n);
    ck_assert_uint_eq(n, 4 + 1 + 4 + 12);
    ck_assert_uint_eq(o.vallen, 12);
    ck_assert(memcmp(o.val, "rank 1 ended", 12) == 0);
    ck_assert_str_eq(bolt_kvs_op_name(BOLT_KVS_FENCE_FAILED), "FENCE_FAILED");
    free(b);
    m = (struct bolt_kvs_msg){.op = BOLT_KVS_FENCE_FAILED, .val = "", .vallen = BOLT_KVS_MAX_ABORT_MSG + 1};
    ck_assert_uint_eq(bolt_kvs_encoded_size(&m), 0);
    static const uint8_t trunc[] = {BOLT_KVS_FENCE_FAILED, 0, 0, 0, 5, 'a'};
    ck_assert_int_eq(bolt_kvs_decode(trunc, sizeof trunc, &o, NULL), BOLT_ERR_PROTO);
}
END_TEST

START_TEST(encode_rejects)
{
    uint8_t buf[64];
    size_t len;
    const char *why = NULL;
    char key[BOLT_KVS_MAX_KEY + 1];
    memset(key, 'a', sizeof key);
    struct bolt_kvs_msg m = {.op = BOLT_KVS_GET, .key = key, .keylen = sizeof key};
    ck_assert_uint_eq(bolt_kvs_encoded_size(&m), 0);
    ck_assert_int_eq(bolt_kvs_encode(&m, buf, sizeof buf, &len, &why), BOLT_ERR_ARG);
    ck_assert_ptr_nonnull(why);
    m.keylen = 0;
    ck_assert_int_eq(bolt_kvs_encode(&m, buf, sizeof buf, &len, &why), BOLT_ERR_ARG);
    m = (struct bolt_kvs_msg){.op = 0x55};
    ck_assert_int_eq(bolt_kvs_encode(&m, buf, sizeof buf, &len, &why), BOLT_ERR_ARG);
    m = (struct bolt_kvs_msg){.op = BOLT_KVS_PUT, .key = "k", .keylen = 1, .val = key, .vallen = 100};
    ck_assert_int_eq(bolt_kvs_encode(&m, buf, sizeof buf, &len, &why), BOLT_ERR_ARG); /* cap too small */
    m = (struct bolt_kvs_msg){.op = BOLT_KVS_PUT, .key = "k", .keylen = 1, .val = key,
                              .vallen = BOLT_KVS_MAX_VALUE + 1};
    ck_assert_uint_eq(bolt_kvs_encoded_size(&m), 0);
    m = (struct bolt_kvs_msg){.op = BOLT_KVS_ABORT, .val = key, .vallen = BOLT_KVS_MAX_ABORT_MSG + 1};
    ck_assert_uint_eq(bolt_kvs_encoded_size(&m), 0);
}
END_TEST

START_TEST(decode_malformed)
{
    struct bolt_kvs_msg o;
    const char *why;
    size_t fl;
    /* length prefix: zero, and larger than the protocol allows */
    uint8_t zero[4] = {0, 0, 0, 0}, huge[4] = {0xff, 0xff, 0xff, 0xff};
    ck_assert_int_eq(bolt_kvs_frame_complete(zero, 4, &fl, &why), BOLT_ERR_PROTO);
    ck_assert_int_eq(bolt_kvs_frame_complete(huge, 4, &fl, &why), BOLT_ERR_PROTO);
    ck_assert_int_eq(bolt_kvs_frame_complete(huge, 3, &fl, &why), 0);
    /* bodies */
    static const struct {
        uint8_t b[16];
        size_t n;
    } bad[] = {
        {{0}, 0},                                  /* empty */
        {{0x77}, 1},                               /* unknown op */
        {{BOLT_KVS_GET}, 1},                       /* no key length */
        {{BOLT_KVS_GET, 0}, 2},                    /* empty key */
        {{BOLT_KVS_GET, 5, 'a', 'b'}, 4},          /* key cut short */
        {{BOLT_KVS_GET, 1, 'a', 'x'}, 4},          /* trailing byte */
        {{BOLT_KVS_PUT, 1, 'a', 0, 0}, 5},         /* value length cut short */
        {{BOLT_KVS_PUT, 1, 'a', 0, 0, 0, 3, 'x'}, 8}, /* value cut short */
        {{BOLT_KVS_PUT, 1, 'a', 0, 0x20, 0, 0}, 7}, /* value longer than 1 MiB */
        {{BOLT_KVS_FENCE, 0}, 2},                  /* fence carries nothing */
        {{BOLT_KVS_FENCE_DONE, 0, 0}, 3},          /* round cut short */
        {{BOLT_KVS_ABORT, 0, 0, 0}, 4},            /* code cut short */
        {{BOLT_KVS_ABORT, 0, 0, 0, 1, 0, 0, 0x10, 1}, 9}, /* message too long */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why = NULL;
        ck_assert_msg(bolt_kvs_decode(bad[i].b, bad[i].n, &o, &why) == BOLT_ERR_PROTO, "case %zu decoded", i);
        ck_assert_ptr_nonnull(why);
    }
}
END_TEST

START_TEST(handshake)
{
    uint8_t secret[BOLT_SECRET_BYTES], nonce[BOLT_KVS_NONCE_BYTES], got[BOLT_KVS_NONCE_BYTES];
    uint8_t hello[BOLT_KVS_HELLO_BYTES], mac[BOLT_HMAC_BYTES], auth[BOLT_KVS_AUTH_BYTES], mac2[BOLT_HMAC_BYTES];
    ck_assert_int_eq(bolt_random_bytes(secret, sizeof secret), BOLT_OK);
    ck_assert_int_eq(bolt_random_bytes(nonce, sizeof nonce), BOLT_OK);
    bolt_kvs_hello_encode(nonce, hello);
    ck_assert(memcmp(hello, "BOLTKVS1", 8) == 0);
    ck_assert_int_eq(bolt_kvs_hello_decode(hello, got), BOLT_OK);
    ck_assert(memcmp(got, nonce, sizeof nonce) == 0);
    hello[0] = 'X';
    ck_assert_int_eq(bolt_kvs_hello_decode(hello, got), BOLT_ERR_PROTO);

    ck_assert_int_eq(bolt_kvs_auth_mac(secret, nonce, 3, mac), BOLT_OK);
    bolt_kvs_auth_encode(3, mac, auth);
    ck_assert_uint_eq(auth[3], 3);
    uint32_t rank;
    bolt_kvs_auth_decode(auth, &rank, mac2);
    ck_assert_uint_eq(rank, 3);
    ck_assert_int_eq(bolt_kvs_auth_check(secret, nonce, 3, mac2), 1);
    ck_assert_int_eq(bolt_kvs_auth_check(secret, nonce, 4, mac2), 0); /* bound to the rank */
    nonce[0] ^= 1;
    ck_assert_int_eq(bolt_kvs_auth_check(secret, nonce, 3, mac2), 0); /* and to the nonce */
    nonce[0] ^= 1;
    secret[31] ^= 0x80;
    ck_assert_int_eq(bolt_kvs_auth_check(secret, nonce, 3, mac2), 0); /* and to the secret */

    /* The MAC is HMAC-SHA256(secret, "bolt-kvs" || nonce || rank_be32). */
    uint8_t data[8 + BOLT_KVS_NONCE_BYTES + 4], want[BOLT_HMAC_BYTES];
    memcpy(data, "bolt-kvs", 8);
    memcpy(data + 8, nonce, sizeof nonce);
    data[40] = 0; data[41] = 0; data[42] = 1; data[43] = 2;
    ck_assert_int_eq(bolt_hmac_sha256(secret, sizeof secret, data, sizeof data, want), BOLT_OK);
    ck_assert_int_eq(bolt_kvs_auth_mac(secret, nonce, 0x102, mac), BOLT_OK);
    ck_assert(memcmp(want, mac, sizeof mac) == 0);
}
END_TEST

START_TEST(parse_addr)
{
    struct sockaddr_in sa;
    const char *why;
    ck_assert_int_eq(bolt_kvs_parse_addr("127.0.0.1:4567", &sa, &why), BOLT_OK);
    ck_assert_uint_eq(ntohs(sa.sin_port), 4567);
    ck_assert_uint_eq(ntohl(sa.sin_addr.s_addr), 0x7f000001);
    const char *bad[] = {"", "127.0.0.1", ":80", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
                         "127.0.0.1:80x", "localhost:80", "1.2.3:80", "127.0.0.1:-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(bolt_kvs_parse_addr(bad[i], &sa, &why) == BOLT_ERR_ARG, "'%s' accepted", bad[i]);
    ck_assert_int_eq(bolt_kvs_parse_addr(NULL, &sa, &why), BOLT_ERR_ARG);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kvs wire");
    TCase *tc = tcase_create("codec");
    tcase_add_test(tc, put_get_value);
    tcase_add_test(tc, fence_abort);
    tcase_add_test(tc, encode_rejects);
    tcase_add_test(tc, decode_malformed);
    tcase_add_test(tc, handshake);
    tcase_add_test(tc, parse_addr);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}

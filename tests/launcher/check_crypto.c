/* Unit tests: HMAC-SHA256 known answers (RFC 4231), hex, random, compare. */
#include <check.h>

#include "tests/check_run.h"
#include <stdlib.h>
#include <string.h>

#include "bolt.h"
#include "runtime/crypto.h"

START_TEST(rfc4231_case2)
{
    /* Key "Jefe", data "what do ya want for nothing?" */
    uint8_t mac[BOLT_HMAC_BYTES];
    char hex[2 * BOLT_HMAC_BYTES + 1];
    const char *data = "what do ya want for nothing?";
    ck_assert_int_eq(bolt_hmac_sha256("Jefe", 4, data, strlen(data), mac), BOLT_OK);
    bolt_hex_encode(mac, sizeof mac, hex);
    ck_assert_str_eq(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}
END_TEST

START_TEST(rfc4231_case1)
{
    uint8_t key[20], mac[BOLT_HMAC_BYTES];
    char hex[2 * BOLT_HMAC_BYTES + 1];
    memset(key, 0x0b, sizeof key);
    ck_assert_int_eq(bolt_hmac_sha256(key, sizeof key, "Hi There", 8, mac), BOLT_OK);
    bolt_hex_encode(mac, sizeof mac, hex);
    ck_assert_str_eq(hex, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}
END_TEST

START_TEST(hex)
{
    uint8_t in[4] = {0x00, 0x7f, 0xa5, 0xff}, out[4];
    char text[9];
    bolt_hex_encode(in, 4, text);
    ck_assert_str_eq(text, "007fa5ff");
    ck_assert_int_eq(bolt_hex_decode("007fa5ff", out, 4), BOLT_OK);
    ck_assert(memcmp(in, out, 4) == 0);
    ck_assert_int_eq(bolt_hex_decode("007FA5FF", out, 4), BOLT_OK);
    ck_assert(memcmp(in, out, 4) == 0);
    ck_assert_int_eq(bolt_hex_decode("007fa5f", out, 4), BOLT_ERR_ARG);   /* short */
    ck_assert_int_eq(bolt_hex_decode("007fa5ff0", out, 4), BOLT_ERR_ARG); /* long */
    ck_assert_int_eq(bolt_hex_decode("007fa5fg", out, 4), BOLT_ERR_ARG);  /* not hex */
    ck_assert_int_eq(bolt_hex_decode(NULL, out, 4), BOLT_ERR_ARG);
    bolt_hex_encode(in, 0, text);
    ck_assert_str_eq(text, "");
}
END_TEST

START_TEST(random_and_compare)
{
    uint8_t a[1000], b[1000];
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    ck_assert_int_eq(bolt_random_bytes(a, sizeof a), BOLT_OK); /* more than one 256-byte chunk */
    ck_assert_int_eq(bolt_random_bytes(b, sizeof b), BOLT_OK);
    ck_assert_int_eq(bolt_secure_equal(a, b, sizeof a), 0);
    ck_assert_int_eq(bolt_secure_equal(a, a, sizeof a), 1);
    int zeros = 0;
    for (size_t i = 900; i < sizeof a; i++) /* the tail was filled too */
        zeros += a[i] == 0;
    ck_assert_int_lt(zeros, 20);
    memcpy(b, a, sizeof a);
    b[999] ^= 1;
    ck_assert_int_eq(bolt_secure_equal(a, b, sizeof a), 0);
    ck_assert_int_eq(bolt_secure_equal(a, b, 999), 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("crypto");
    TCase *tc = tcase_create("primitives");
    tcase_add_test(tc, rfc4231_case1);
    tcase_add_test(tc, rfc4231_case2);
    tcase_add_test(tc, hex);
    tcase_add_test(tc, random_and_compare);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}

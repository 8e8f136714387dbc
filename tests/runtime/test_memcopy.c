/* Large copies go in pieces (runtime/memcopy.h): every byte lands where
 * memcpy and memmove would put it, at sizes on both sides of a piece and
 * of several, at odd offsets, and a move between overlapping ranges (in
 * either direction) is still a memmove. */
#include <check.h>
#include "tests/check_run.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/memcopy.h"

static const size_t sizes[] = {0, 1, 4095, BOLT_COPY_PIECE - 1, BOLT_COPY_PIECE, BOLT_COPY_PIECE + 1,
                               3 * BOLT_COPY_PIECE + 17, (size_t)4 << 20};

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 2654435761u + seed) >> 7);
}

START_TEST(a_copy_puts_every_byte_where_memcpy_would)
{
    const size_t max = ((size_t)4 << 20) + 64;
    unsigned char *src = malloc(max), *dst = malloc(max), *want = malloc(max);
    ck_assert(src && dst && want);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (size_t off = 0; off < 3; off++) {
            size_t n = sizes[k];
            fill(src, max, (unsigned)(k * 7 + off));
            memset(dst, 0xa5, max);
            memset(want, 0xa5, max);
            memcpy(want + 1 + off, src + off, n);
            bolt_mem_copy(dst + 1 + off, src + off, n);
            ck_assert_msg(memcmp(dst, want, max) == 0, "size %zu, offset %zu", n, off);
        }
    free(src);
    free(dst);
    free(want);
}
END_TEST

START_TEST(a_move_between_overlapping_ranges_is_a_memmove)
{
    const size_t n = 3 * BOLT_COPY_PIECE + 5, room = n + BOLT_COPY_PIECE * 2;
    unsigned char *buf = malloc(room), *want = malloc(room);
    ck_assert(buf && want);
    const size_t shifts[] = {1, 4096, BOLT_COPY_PIECE, n - 1, n, n + 3};
    for (size_t i = 0; i < sizeof shifts / sizeof *shifts; i++)
        for (int dir = 0; dir < 2; dir++) {
            size_t s = shifts[i];
            size_t from = dir ? s : 0, to = dir ? 0 : s; /* forward and backward */
            if (from + n > room || to + n > room)
                continue;
            fill(buf, room, (unsigned)(i + 31 * dir));
            memcpy(want, buf, room);
            memmove(want + to, want + from, n);
            bolt_mem_move(buf + to, buf + from, n);
            ck_assert_msg(memcmp(buf, want, room) == 0, "shift %zu, %s", s, dir ? "down" : "up");
        }
    free(buf);
    free(want);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("memcopy");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, a_copy_puts_every_byte_where_memcpy_would);
    tcase_add_test(tc, a_move_between_overlapping_ranges_is_a_memmove);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}

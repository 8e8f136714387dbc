/*
 * check_gguf.c — the GGUF reader: a file written with every value type,
 * nested arrays, a custom alignment and tensors of several types reads back
 * the same; a model split in three parts opens as one; and every kind of
 * malformed or hostile file is refused with a message naming the file and
 * what was wrong, every truncation of a valid file included.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inference/gguf.h"
#include "inference/gguf_write.h"
#include "tests/check_run.h"

static char dir[] = "/tmp/bolt-gguf-test.XXXXXX";
static char path[512];
static float w0[64 * 3];
static uint8_t w1[34 * 4];

static const char *tmp(const char *name)
{
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

/* A small model-like file: every scalar type, strings, arrays, tensors. */
static gguf_w_t *sample(uint32_t alignment)
{
    gguf_w_t *w = gguf_w_new();
    gguf_w_str(w, "general.architecture", "llama");
    if (alignment)
        gguf_w_u32(w, "general.alignment", alignment);
    uint8_t u8 = 200;
    int8_t i8 = -100;
    uint16_t u16 = 60000;
    int16_t i16 = -30000;
    double f64 = 2.5e100;
    int64_t i64 = -((int64_t)1 << 40);
    gguf_w_raw(w, "t.u8", GGUF_U8, &u8, 1);
    gguf_w_raw(w, "t.i8", GGUF_I8, &i8, 1);
    gguf_w_raw(w, "t.u16", GGUF_U16, &u16, 2);
    gguf_w_raw(w, "t.i16", GGUF_I16, &i16, 2);
    gguf_w_u32(w, "t.u32", 4000000000u);
    gguf_w_i32(w, "t.i32", -7);
    gguf_w_f32(w, "t.f32", 0.25f);
    gguf_w_bool(w, "t.bool", 1);
    gguf_w_u64(w, "t.u64", (uint64_t)1 << 50);
    gguf_w_raw(w, "t.i64", GGUF_I64, &i64, 8);
    gguf_w_raw(w, "t.f64", GGUF_F64, &f64, 8);
    gguf_str_t strs[3] = {{"a", 1}, {"", 0}, {"\xe2\x96\x81hello", 8}};
    gguf_w_arr_str(w, "t.strs", strs, 3);
    float fs[4] = {1, -2, 3.5f, 0};
    gguf_w_arr_f32(w, "t.f32s", fs, 4);
    int32_t is[2] = {-1, 5};
    gguf_w_arr_i32(w, "t.i32s", is, 2);
    /* an array of two arrays of u8 */
    uint8_t nested[] = {9, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, /* array of 2 arrays */
                        0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 2, /* u8 x 2 */
                        0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3};   /* u8 x 1 */
    gguf_w_raw(w, "t.nested", GGUF_ARRAY, nested, sizeof nested);
    for (int i = 0; i < 64 * 3; i++)
        w0[i] = (float)i;
    for (size_t i = 0; i < sizeof w1; i++)
        w1[i] = (uint8_t)i;
    uint64_t ne0[2] = {64, 3}, ne1[2] = {32, 4}, ne2[1] = {8};
    gguf_w_tensor(w, "a.weight", 2, ne0, GGML_F32, w0, NULL, NULL);
    gguf_w_tensor(w, "b.weight", 2, ne1, GGML_Q8_0, w1, NULL, NULL);
    gguf_w_tensor(w, "c.bias", 1, ne2, GGML_F32, w0, NULL, NULL);
    return w;
}

static void check_sample(const gguf_t *g, uint32_t alignment)
{
    char err[256];
    uint32_t u32;
    uint64_t u64;
    float f;
    int b;
    gguf_str_t s;
    ck_assert_uint_eq(g->version, 3);
    ck_assert_uint_eq(g->alignment, alignment ? alignment : 32);
    ck_assert_int_eq(gguf_get_str(g, "general.architecture", &s, err, sizeof err), 1);
    ck_assert(gguf_str_eq(s, "llama"));
    ck_assert_int_eq(gguf_get_u32(g, "t.u8", &u32, err, sizeof err), 1);
    ck_assert_uint_eq(u32, 200);
    ck_assert_int_eq(gguf_get_u32(g, "t.u16", &u32, err, sizeof err), 1);
    ck_assert_uint_eq(u32, 60000);
    ck_assert_int_eq(gguf_get_u32(g, "t.u32", &u32, err, sizeof err), 1);
    ck_assert_uint_eq(u32, 4000000000u);
    ck_assert_int_eq(gguf_get_u64(g, "t.u64", &u64, err, sizeof err), 1);
    ck_assert_uint_eq(u64, (uint64_t)1 << 50);
    ck_assert_int_eq(gguf_get_u32(g, "t.u64", &u32, err, sizeof err), -1); /* too large */
    ck_assert_ptr_nonnull(strstr(err, "t.u64"));
    ck_assert_int_eq(gguf_get_u32(g, "t.i32", &u32, err, sizeof err), -1); /* negative */
    ck_assert_int_eq(gguf_get_f32(g, "t.f32", &f, err, sizeof err), 1);
    ck_assert_float_eq(f, 0.25f);
    ck_assert_int_eq(gguf_get_f32(g, "t.i16", &f, err, sizeof err), 1);
    ck_assert_float_eq(f, -30000.0f);
    ck_assert_int_eq(gguf_get_f32(g, "t.f64", &f, err, sizeof err), 1);
    ck_assert_int_eq(gguf_get_bool(g, "t.bool", &b, err, sizeof err), 1);
    ck_assert_int_eq(b, 1);
    ck_assert_int_eq(gguf_get_bool(g, "t.u8", &b, err, sizeof err), -1);
    ck_assert_int_eq(gguf_get_u32(g, "no.such.key", &u32, err, sizeof err), 0);
    ck_assert_int_eq(gguf_get_str(g, "t.u32", &s, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "'t.u32'") && strstr(err, "expected a string"), "%s", err);
    const gguf_kv_t *a;
    ck_assert_int_eq(gguf_get_arr(g, "t.strs", GGUF_STRING, &a, err, sizeof err), 1);
    ck_assert_uint_eq(a->count, 3);
    ck_assert(gguf_str_eq(a->strs[0], "a") && gguf_str_eq(a->strs[1], "") && gguf_str_eq(a->strs[2], "\xe2\x96\x81hello"));
    ck_assert_int_eq(gguf_get_arr(g, "t.f32s", GGUF_F32, &a, err, sizeof err), 1);
    ck_assert(gguf_arr_f64(a, 2) == 3.5);
    ck_assert_int_eq(gguf_get_arr(g, "t.i32s", GGUF_I32, &a, err, sizeof err), 1);
    ck_assert_int_eq(gguf_arr_i64(a, 0), -1);
    ck_assert_int_eq(gguf_get_arr(g, "t.strs", GGUF_F32, &a, err, sizeof err), -1);
    const gguf_kv_t *n = gguf_find(g, "t.nested");
    ck_assert(n && n->type == GGUF_ARRAY && n->atype == GGUF_ARRAY && n->count == 2);
    ck_assert_uint_eq(g->n_tensors, 3);
    const gguf_tensor_t *t = gguf_tensor(g, "a.weight");
    ck_assert(t && t->n_dims == 2 && t->ne[0] == 64 && t->ne[1] == 3 && t->ne[2] == 1 && t->type == GGML_F32);
    ck_assert_uint_eq(t->nbytes, sizeof w0);
    ck_assert(memcmp(t->data, w0, sizeof w0) == 0);
    ck_assert_uint_eq(t->offset % g->alignment, 0);
    t = gguf_tensor(g, "b.weight");
    ck_assert(t && t->nbytes == sizeof w1 && memcmp(t->data, w1, sizeof w1) == 0);
    ck_assert_ptr_null(gguf_tensor(g, "d.weight"));
}

START_TEST(reads_back_what_was_written)
{
    char err[256];
    for (int k = 0; k < 2; k++) {
        uint32_t al = k ? 64 : 0;
        gguf_w_t *w = sample(al);
        ck_assert_int_eq(gguf_w_write(w, tmp("m.gguf"), 1, err, sizeof err), 0);
        gguf_w_free(w);
        gguf_t *g;
        ck_assert_msg(gguf_open(tmp("m.gguf"), &g, err, sizeof err) == 0, "%s", err);
        check_sample(g, al);
        gguf_close(g);
    }
}
END_TEST

/* --no-mmap: the same model from memory as from the file's mapping, a
 * split one too, and every part's bytes in memory of its own */
START_TEST(a_model_read_into_memory_is_the_mapped_one)
{
    char err[256];
    gguf_w_t *w = sample(64);
    ck_assert_int_eq(gguf_w_write(w, tmp("r.gguf"), 1, err, sizeof err), 0);
    gguf_w_free(w);
    w = sample(0);
    ck_assert_int_eq(gguf_w_write(w, tmp("rs.gguf"), 3, err, sizeof err), 0);
    gguf_w_free(w);
    gguf_t *g;
    ck_assert_msg(gguf_open_with(tmp("r.gguf"), GGUF_OPEN_NO_MMAP, &g, err, sizeof err) == 0, "%s", err);
    check_sample(g, 64);
    ck_assert_ptr_nonnull(g->parts[0].region.base);
    /* placed so that the tensor data starts on a page (rows on cache lines) */
    const uint8_t *first = g->tensors[0].data;
    for (size_t i = 1; i < g->n_tensors; i++)
        first = (const uint8_t *)g->tensors[i].data < first ? g->tensors[i].data : first;
    ck_assert_uint_eq((uintptr_t)first % 4096, 0);
    ck_assert_ptr_nonnull(g->parts[0].map);
    gguf_close(g);
    ck_assert_msg(gguf_open_with(tmp("rs-00001-of-00003.gguf"), GGUF_OPEN_NO_MMAP, &g, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(g->n_parts, 3);
    check_sample(g, 0);
    for (int i = 0; i < 3; i++)
        ck_assert_ptr_nonnull(g->parts[i].region.base);
    gguf_close(g);
}
END_TEST

START_TEST(a_split_model_opens_as_one)
{
    char err[256];
    gguf_w_t *w = sample(0);
    ck_assert_int_eq(gguf_w_write(w, tmp("s.gguf"), 3, err, sizeof err), 0);
    gguf_w_free(w);
    gguf_t *g;
    ck_assert_msg(gguf_open(tmp("s-00001-of-00003.gguf"), &g, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(g->n_parts, 3);
    check_sample(g, 0);
    ck_assert_int_eq(gguf_tensor(g, "c.bias")->part, 2);
    gguf_close(g);
    /* not the first part */
    ck_assert_int_eq(gguf_open(tmp("s-00002-of-00003.gguf"), &g, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "part 2 of 3") && strstr(err, "first part"), "%s", err);
    /* a part missing */
    unlink(tmp("s-00003-of-00003.gguf"));
    ck_assert_int_eq(gguf_open(tmp("s-00001-of-00003.gguf"), &g, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "s-00003-of-00003.gguf") && strstr(err, "cannot open"), "%s", err);
}
END_TEST

/* The sample's bytes, to damage. */
static uint8_t *sample_bytes(size_t *len)
{
    char err[256];
    gguf_w_t *w = sample(0);
    ck_assert_int_eq(gguf_w_write(w, tmp("v.gguf"), 1, err, sizeof err), 0);
    gguf_w_free(w);
    FILE *f = fopen(tmp("v.gguf"), "rb");
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    uint8_t *b = malloc(*len);
    ck_assert_uint_eq(fread(b, 1, *len, f), *len);
    fclose(f);
    return b;
}

static void expect_refused(const uint8_t *b, size_t len, const char *want, const char *what)
{
    char err[256] = "";
    gguf_t *g = NULL;
    int rc = gguf_parse_mem(b, len, "bad.gguf", &g, err, sizeof err);
    ck_assert_msg(rc == -1 && g == NULL, "%s: accepted", what);
    ck_assert_msg(strstr(err, "bad.gguf") && strstr(err, want), "%s: message '%s' lacks '%s'", what, err, want);
}

START_TEST(every_truncation_is_refused)
{
    size_t len;
    uint8_t *b = sample_bytes(&len);
    gguf_t *g;
    char err[256];
    ck_assert_int_eq(gguf_parse_mem(b, len, "bad.gguf", &g, err, sizeof err), 0);
    gguf_close(g);
    for (size_t n = 0; n < len; n++) {
        uint8_t *c = malloc(n ? n : 1); /* exactly n bytes, so ASan sees any read past them */
        memcpy(c, b, n);
        int rc = gguf_parse_mem(c, n, "bad.gguf", &g, err, sizeof err);
        ck_assert_msg(rc == -1, "a file cut at %zu of %zu bytes was accepted", n, len);
        ck_assert_msg(strstr(err, "bad.gguf"), "cut at %zu: '%s'", n, err);
        free(c);
    }
    free(b);
}
END_TEST

/* Offsets of the header's fields in the sample: found by layout, not fixed. */
static size_t find(const uint8_t *b, size_t len, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= len; i++)
        if (!memcmp(b + i, s, n))
            return i;
    ck_abort_msg("'%s' not in the sample", s);
    return 0;
}

START_TEST(hostile_headers_are_refused)
{
    size_t len;
    uint8_t *b = sample_bytes(&len), *c = malloc(len);
#define DAMAGE(what, want, ...)                                                                      \
    do {                                                                                            \
        memcpy(c, b, len);                                                                          \
        __VA_ARGS__;                                                                                \
        expect_refused(c, len, want, what);                                                         \
    } while (0)
    uint64_t huge = (uint64_t)1 << 60;
    uint32_t v;
    DAMAGE("bad magic", "not a GGUF file", c[0] = 'X');
    DAMAGE("version 1", "version 1 is not supported", v = 1; memcpy(c + 4, &v, 4));
    DAMAGE("version 4", "version 4", v = 4; memcpy(c + 4, &v, 4));
    DAMAGE("tensor count", "tensors cannot fit", memcpy(c + 8, &huge, 8));
    DAMAGE("key count", "metadata entries cannot fit", memcpy(c + 16, &huge, 8));
    /* a key's length past the end */
    size_t k = find(b, len, "general.architecture") - 8;
    DAMAGE("key length", "truncated", memcpy(c + k, &huge, 8));
    /* a value type that does not exist */
    DAMAGE("value type", "unknown value type 77", v = 77; memcpy(c + k + 8 + 20, &v, 4));
    /* an array count larger than the file */
    size_t a = find(b, len, "t.f32s") + 6 + 4 + 4; /* key, type, element type */
    DAMAGE("array length", "array of", memcpy(c + a, &huge, 8));
    /* a string array whose count is a little too large */
    size_t sa = find(b, len, "t.strs") + 6 + 4 + 4;
    uint64_t four = 4;
    DAMAGE("string array", "truncated", memcpy(c + sa, &four, 8));
    /* arrays nested too deep: turn the inner arrays' type into arrays again */
    size_t na = find(b, len, "t.nested") + 8 + 4 + 4 + 8; /* first inner array's element type */
    DAMAGE("nesting", "", v = GGUF_ARRAY; memcpy(c + na, &v, 4));
    /* the alignment not a power of two */
    /* tensors: find a.weight's info */
    size_t t = find(b, len, "a.weight") + 8; /* after its name */
    DAMAGE("dimensions", "has 5 dimensions", v = 5; memcpy(c + t, &v, 4));
    DAMAGE("zero dimension", "dimension 0 is 0", uint64_t z = 0; memcpy(c + t + 4, &z, 8));
    DAMAGE("huge dimension", "dimension 1 is", memcpy(c + t + 12, &huge, 8));
    DAMAGE("tensor type", "unknown type 99", v = 99; memcpy(c + t + 4 + 16, &v, 4));
    DAMAGE("block size", "not a multiple of Q4_K", v = GGML_Q4_K; memcpy(c + t + 4 + 16, &v, 4));
    uint64_t off = 3;
    DAMAGE("misaligned", "not a multiple of the alignment", memcpy(c + t + 4 + 16 + 4, &off, 8));
    off = 1 << 20;
    DAMAGE("offset past the end", "run past the end", memcpy(c + t + 4 + 16 + 4, &off, 8));
    /* b.weight's offset onto a.weight's bytes */
    size_t t2 = find(b, len, "b.weight") + 8 + 4 + 16 + 4;
    off = 64;
    DAMAGE("overlap", "overlap", memcpy(c + t2, &off, 8));
    /* a duplicate tensor name and key */
    DAMAGE("duplicate tensor", "appears twice", memcpy(c + find(b, len, "b.weight"), "a", 1));
    DAMAGE("duplicate key", "appears twice", memcpy(c + find(b, len, "t.i8"), "t.u8", 4));
#undef DAMAGE
    free(b);
    free(c);
}
END_TEST

START_TEST(bad_alignment_and_files_are_refused)
{
    char err[256];
    gguf_w_t *w = sample(0);
    gguf_w_u32(w, "general.alignment", 48);
    ck_assert_int_eq(gguf_w_write(w, tmp("al.gguf"), 1, err, sizeof err), 0);
    gguf_w_free(w);
    gguf_t *g;
    ck_assert_int_eq(gguf_open(tmp("al.gguf"), &g, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "general.alignment") && strstr(err, "power of two"), "%s", err);
    ck_assert_int_eq(gguf_open(tmp("missing.gguf"), &g, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "missing.gguf: cannot open"), "%s", err);
    ck_assert_int_eq(gguf_open(dir, &g, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "not a regular file"), "%s", err);
    FILE *f = fopen(tmp("short.gguf"), "wb");
    fputs("GGUF", f);
    fclose(f);
    ck_assert_int_eq(gguf_open(tmp("short.gguf"), &g, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "too short"), "%s", err);
}
END_TEST

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    Suite *s = suite_create("gguf");
    TCase *tc = tcase_create("reader");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, reads_back_what_was_written);
    tcase_add_test(tc, a_split_model_opens_as_one);
    tcase_add_test(tc, a_model_read_into_memory_is_the_mapped_one);
    tcase_add_test(tc, every_truncation_is_refused);
    tcase_add_test(tc, hostile_headers_are_refused);
    tcase_add_test(tc, bad_alignment_and_files_are_refused);
    suite_add_tcase(s, tc);
    int rc = bolt_check_run(s);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        rc = 1;
    return rc;
}

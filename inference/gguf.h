/*
 * gguf.h — reading GGUF model files (versions 2 and 3): the header, every
 * metadata value type (nested arrays included), the tensor infos and their
 * data, mmap'd, never copied. A model split in parts
 * (name-00001-of-00003.gguf) opens as one.
 *
 * Nothing the file says is trusted: every count and length is checked
 * against the bytes left before anything is read or allocated, tensors must
 * lie inside the data section, aligned, without overlapping, with a size
 * their type and shape agree on. A bad file gets a message naming the file,
 * the key or tensor, and what was wrong.
 */
#ifndef INF_GGUF_H
#define INF_GGUF_H

#include <stddef.h>
#include <stdint.h>

#include "inference/mem.h"

enum gguf_vtype {
    GGUF_U8 = 0,
    GGUF_I8 = 1,
    GGUF_U16 = 2,
    GGUF_I16 = 3,
    GGUF_U32 = 4,
    GGUF_I32 = 5,
    GGUF_F32 = 6,
    GGUF_BOOL = 7,
    GGUF_STRING = 8,
    GGUF_ARRAY = 9,
    GGUF_U64 = 10,
    GGUF_I64 = 11,
    GGUF_F64 = 12,
    GGUF_NTYPES
};

/* A string in the file: not NUL-terminated. */
typedef struct gguf_str {
    const char *p;
    uint64_t n;
} gguf_str_t;

typedef struct gguf_kv {
    gguf_str_t key;
    uint32_t type;        /* enum gguf_vtype */
    /* scalars */
    union {
        uint64_t u;
        int64_t i;
        double f;
    } v;
    gguf_str_t str;       /* GGUF_STRING */
    /* arrays: element type and count, the elements' bytes; strings (and
     * nested arrays) are not fixed-size: see gguf_arr_str */
    uint32_t atype;
    uint64_t count;
    const uint8_t *data;
    gguf_str_t *strs;     /* string arrays: each element (allocated, count entries) */
} gguf_kv_t;

/* ggml's tensor types this reader knows the block layout of. */
enum gguf_ttype {
    GGML_F32 = 0,
    GGML_F16 = 1,
    GGML_Q4_0 = 2,
    GGML_Q4_1 = 3,
    GGML_Q5_0 = 6,
    GGML_Q5_1 = 7,
    GGML_Q8_0 = 8,
    GGML_Q8_1 = 9,
    GGML_Q2_K = 10,
    GGML_Q3_K = 11,
    GGML_Q4_K = 12,
    GGML_Q5_K = 13,
    GGML_Q6_K = 14,
    GGML_Q8_K = 15,
    GGML_BF16 = 30,
    GGML_TTYPE_MAX = 64
};

#define GGUF_MAX_DIMS 4

typedef struct gguf_tensor {
    gguf_str_t name;
    uint32_t n_dims;
    uint64_t ne[GGUF_MAX_DIMS]; /* elements along each dimension, 1 past n_dims */
    uint32_t type;              /* enum gguf_ttype */
    uint64_t nbytes;
    int part;                   /* which file of a split model */
    uint64_t offset;            /* in that file */
    const void *data;
} gguf_tensor_t;

typedef struct gguf_part {
    char *path;
    int fd;
    const uint8_t *map;
    size_t size;
    int mapped;               /* map is an mmap (else borrowed memory) */
    inf_region_t region;      /* the file read in whole (GGUF_OPEN_NO_MMAP) */
} gguf_part_t;

typedef struct gguf {
    uint32_t version;
    uint32_t alignment;
    size_t n_kv;
    gguf_kv_t *kv;            /* the first part's */
    size_t n_tensors;
    gguf_tensor_t *tensors;   /* every part's */
    int n_parts;
    gguf_part_t *parts;
} gguf_t;

/* Block size (elements) and bytes per block of a tensor type; 0 when the
 * type is unknown. */
int gguf_type_block(uint32_t type, size_t *bytes);
const char *gguf_type_name(uint32_t type);

/* Opens and maps a model (all its parts when path names the first part of
 * a split). Returns 0, or -1 with a message in err. */
int gguf_open(const char *path, gguf_t **out, char *err, size_t errlen);
/* As gguf_open; with GGUF_OPEN_NO_MMAP every part is read into anonymous
 * memory instead of mapped (llama.cpp's --no-mmap: the bytes cannot be
 * dropped and read back from the file, and stream faster where the page
 * cache is slow). */
enum { GGUF_OPEN_NO_MMAP = 1 };
int gguf_open_with(const char *path, unsigned flags, gguf_t **out, char *err, size_t errlen);
/* Parses a file already in memory (not copied; it must outlive the result):
 * what the fuzz target drives. name is for messages. */
int gguf_parse_mem(const void *buf, size_t len, const char *name, gguf_t **out, char *err, size_t errlen);
void gguf_close(gguf_t *g);
/* Lets the pages of [p, p + len) (tensor data) go from this process when
 * its part is mapped: they are the file's, read again from it if touched.
 * Memory a part was read into is kept (it has no other copy). */
void gguf_release(const gguf_t *g, const void *p, size_t len);

const gguf_kv_t *gguf_find(const gguf_t *g, const char *key);
const gguf_tensor_t *gguf_tensor(const gguf_t *g, const char *name);
/* Whether a string of the file equals a C string. */
int gguf_str_eq(gguf_str_t s, const char *c);

/* Typed getters: 1 found (and converted), 0 absent, -1 present with a type
 * that does not convert (message in err, naming the key). Integers convert
 * between widths when the value fits; floats take any number. */
int gguf_get_u64(const gguf_t *g, const char *key, uint64_t *out, char *err, size_t errlen);
int gguf_get_u32(const gguf_t *g, const char *key, uint32_t *out, char *err, size_t errlen);
int gguf_get_f32(const gguf_t *g, const char *key, float *out, char *err, size_t errlen);
int gguf_get_bool(const gguf_t *g, const char *key, int *out, char *err, size_t errlen);
int gguf_get_str(const gguf_t *g, const char *key, gguf_str_t *out, char *err, size_t errlen);
/* An array of `atype` (GGUF_STRING: out->strs holds them). */
int gguf_get_arr(const gguf_t *g, const char *key, uint32_t atype, const gguf_kv_t **out, char *err,
                 size_t errlen);
/* Element i of a numeric array as a double / an integer. */
double gguf_arr_f64(const gguf_kv_t *kv, uint64_t i);
int64_t gguf_arr_i64(const gguf_kv_t *kv, uint64_t i);

#endif

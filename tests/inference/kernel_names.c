/*
 * kernel_names.c — prints, for each weight type, the kernels the registry
 * chose on this CPU ("Q4_K neon dot4"), one type a line: tests/inference/
 * arm64.sh checks with it that an ARM CPU gets NEON's, so that the kernel
 * tests there compare NEON with the scalar path and not the scalar path with
 * itself.
 */
#include <stdio.h>

#include "inference/types.h"

int main(void)
{
    const uint32_t ids[] = {GGML_F32, GGML_F16, GGML_BF16, GGML_Q8_0, GGML_Q4_0, GGML_Q4_K, GGML_Q5_K, GGML_Q6_K};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        const inf_type_t *t = inf_type(ids[i]);
        if (!t) {
            printf("type %u: none\n", (unsigned)ids[i]);
            return 1;
        }
        printf("%s %s%s\n", t->name, t->simd, t->vec_dot4 ? " dot4" : "");
    }
    return 0;
}

/*
 * arch.c — the architectures the engine runs, one row each (model.h). The
 * forward pass reads the flags; deepseek2 (MLA attention, shared experts,
 * sigmoid group-limited routing) would add flags and a row.
 */
#include <string.h>

#include "inference/model.h"

static const inf_arch_t archs[] = {
    {"llama", INF_ROPE_NORM, 0, 0},
    {"qwen2", INF_ROPE_NEOX, INF_ARCH_QKV_BIAS, 0},
    {"qwen3", INF_ROPE_NEOX, INF_ARCH_QK_NORM, 0},
    {"qwen3moe", INF_ROPE_NEOX, INF_ARCH_QK_NORM | INF_ARCH_MOE, 1},
};

const inf_arch_t *inf_arch_find(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (strlen(archs[i].name) == len && !memcmp(archs[i].name, name, len))
            return &archs[i];
    return NULL;
}

const char *inf_arch_names(void)
{
    return "llama, qwen2, qwen3, qwen3moe";
}

# inference/: Bolt's LLM inference engine (GGUF models, quantized kernels,
# tokenizers, sampling) and bolt-llm. libinference holds everything but
# main, so the tests, the tools and the fuzz target link the same code.
INF_SOURCES = \
	inference/gguf.h inference/gguf.c inference/gguf_write.h inference/gguf_write.c inference/types.h \
	inference/types/types.c inference/types/kquant.h inference/types/f32.c inference/types/f16.c \
	inference/types/bf16.c inference/types/q8_0.c inference/types/q4_0.c inference/types/q8_k.c \
	inference/types/q4_k.c inference/types/q5_k.c inference/types/q6_k.c \
	inference/model.h inference/model.c inference/arch.c
noinst_LTLIBRARIES += libinference.la
libinference_la_SOURCES = $(INF_SOURCES)
libinference_la_LIBADD = -lm

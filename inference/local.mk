# inference/: Bolt's LLM inference engine (GGUF models, quantized kernels,
# tokenizers, sampling) and bolt-llm. libinference holds everything but
# main, so the tests, the tools and the fuzz target link the same code.
INF_SOURCES = \
	inference/err.h inference/err.c inference/mem.h inference/gguf.h inference/gguf.c inference/gguf_write.h inference/gguf_write.c inference/types.h \
	inference/types/types.c inference/types/kquant.h inference/types/kq16.h inference/types/x86.h inference/types/arm.h inference/types/f32.c inference/types/f16.c inference/types/f16_attn.c inference/types/softmax.c inference/types/swiglu.c inference/types/vexp.h \
	inference/types/bf16.c inference/types/q8_0.c inference/types/q8_0p.c inference/types/q4_0.c inference/types/q8_k.c inference/types/q8_kn.c \
	inference/types/q4_k.c inference/types/q5_k.c inference/types/q6_k.c \
	inference/model.h inference/model.c inference/arch.c inference/pool.h inference/pool.c \
	inference/matmul.h inference/matmul.c inference/attn.h inference/attn.c inference/engine.h inference/shard.h inference/shard.c inference/balance.h inference/balance.c inference/forward.c inference/sample.h inference/sample.c
noinst_LTLIBRARIES += libinference.la
libinference_la_SOURCES = $(INF_SOURCES)
# no errno from math functions: lrintf becomes one instruction (the K-quant
# activations round each value of every token with it); nothing reads errno
libinference_la_CFLAGS = $(AM_CFLAGS) -fno-math-errno
libinference_la_LIBADD = -lm -lpthread
# memory for a model read in whole: the platform's file, or the POSIX fallback
EXTRA_DIST += inference/mem_linux.c inference/mem_posix.c
if BOLT_OS_LINUX
libinference_la_SOURCES += inference/mem_linux.c
else
libinference_la_SOURCES += inference/mem_posix.c
endif
EXTRA_DIST += inference/types/f32_sgemm.c
if HAVE_BLAS
libinference_la_SOURCES += inference/types/f32_sgemm.c
libinference_la_CFLAGS += $(BLAS_CFLAGS) -DINF_HAVE_BLAS
libinference_la_LIBADD += $(BLAS_LIBS)
endif
EXTRA_DIST += inference/pairq.h inference/vocab.h inference/vocab.c inference/tok_spm.c inference/tok_bpe.c inference/main.c inference/share_model.h inference/share_model.c inference/coll_times.h inference/coll_times.c
if HAVE_PCRE2
libinference_la_SOURCES += inference/pairq.h inference/vocab.h inference/vocab.c inference/tok_spm.c inference/tok_bpe.c
libinference_la_CFLAGS += $(PCRE2_CFLAGS)
libinference_la_LIBADD += $(PCRE2_LIBS)
bin_PROGRAMS += bolt-llm
bolt_llm_SOURCES = inference/main.c inference/share_model.h inference/share_model.c inference/coll_times.h inference/coll_times.c
bolt_llm_CFLAGS = $(AM_CFLAGS) $(ZLIB_CFLAGS)
bolt_llm_LDADD = libinference.la libblaskernels.la libbolt.la $(ZLIB_LIBS) -lm
endif
# the model maker: random weights on a real tokenizer, quantized here
noinst_PROGRAMS += bolt-llm-mkmodel
bolt_llm_mkmodel_SOURCES = inference/tools/mkmodel.c
bolt_llm_mkmodel_LDADD = libinference.la -lm

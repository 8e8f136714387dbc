# tests/inference/: the engine's parts (GGUF reading, kernels, tokenizers)
# and bolt-llm end to end.
EXTRA_DIST += tests/inference/check_types.c tests/inference/check_gguf.c
if HAVE_CHECK
check_PROGRAMS += tests/inference/check_types
TESTS += tests/inference/check_types
tests_inference_check_types_SOURCES = tests/inference/check_types.c
tests_inference_check_types_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_inference_check_types_LDADD = libinference.la $(CHECK_LIBS) -lm
check_PROGRAMS += tests/inference/check_gguf
TESTS += tests/inference/check_gguf
tests_inference_check_gguf_SOURCES = tests/inference/check_gguf.c
tests_inference_check_gguf_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_inference_check_gguf_LDADD = libinference.la $(CHECK_LIBS) -lm
endif

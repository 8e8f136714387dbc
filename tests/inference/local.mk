# tests/inference/: the engine's parts (GGUF reading, kernels, tokenizers)
# and bolt-llm end to end.
EXTRA_DIST += tests/inference/check_types.c tests/inference/check_attn.c tests/inference/check_gguf.c tests/inference/ref_llama.c
dist_check_SCRIPTS += tests/inference/lib.sh tests/inference/simd.sh
TESTS += tests/inference/simd.sh
# the model's memory: the platform's file, and the POSIX fallback whatever the platform
check_PROGRAMS += tests/inference/mem_test tests/inference/mem_posix_test
TESTS += tests/inference/mem_test tests/inference/mem_posix_test
tests_inference_mem_test_SOURCES = tests/inference/mem_test.c
tests_inference_mem_test_LDADD = libinference.la
tests_inference_mem_posix_test_SOURCES = tests/inference/mem_test.c inference/mem_posix.c
tests_inference_mem_posix_test_CPPFLAGS = $(AM_CPPFLAGS) -DMEM_TEST_POSIX
if HAVE_CHECK
check_PROGRAMS += tests/inference/check_types
tests_inference_check_types_SOURCES = tests/inference/check_types.c
tests_inference_check_types_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_inference_check_types_LDADD = libinference.la $(CHECK_LIBS) -lm
check_PROGRAMS += tests/inference/check_attn
TESTS += tests/inference/check_attn
tests_inference_check_attn_SOURCES = tests/inference/check_attn.c
tests_inference_check_attn_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_inference_check_attn_LDADD = libinference.la $(CHECK_LIBS) -lm
check_PROGRAMS += tests/inference/check_sample
TESTS += tests/inference/check_sample
tests_inference_check_sample_SOURCES = tests/inference/check_sample.c
tests_inference_check_sample_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_inference_check_sample_LDADD = libinference.la $(CHECK_LIBS) -lm
check_PROGRAMS += tests/inference/check_balance
TESTS += tests/inference/check_balance
tests_inference_check_balance_SOURCES = tests/inference/check_balance.c
tests_inference_check_balance_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_inference_check_balance_LDADD = libinference.la $(CHECK_LIBS) -lm
check_PROGRAMS += tests/inference/check_gguf
TESTS += tests/inference/check_gguf
tests_inference_check_gguf_SOURCES = tests/inference/check_gguf.c
tests_inference_check_gguf_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_inference_check_gguf_LDADD = libinference.la $(CHECK_LIBS) -lm
endif
if HAVE_PCRE2
INF_SCRIPT_TESTS = tests/inference/tokenizers.sh tests/inference/reference.sh tests/inference/cli.sh tests/inference/tp.sh
# tensor parallel over TCP alone (BOLT_TRANSPORTS=tcp) on one host
INF_SCRIPT_TESTS += tests/inference/tp_tcp.sh
TESTS += $(INF_SCRIPT_TESTS)
dist_check_SCRIPTS += $(INF_SCRIPT_TESTS)
check_PROGRAMS += tests/inference/tokvec tests/inference/bolt_dump tests/inference/logits_cmp
tests_inference_tokvec_SOURCES = tests/inference/tokvec.c
tests_inference_tokvec_LDADD = libinference.la
tests_inference_bolt_dump_SOURCES = tests/inference/bolt_dump.c
tests_inference_bolt_dump_LDADD = libinference.la
check_PROGRAMS += tests/inference/tp_check
tests_inference_tp_check_SOURCES = tests/inference/tp_check.c
tests_inference_tp_check_LDADD = libinference.la libblaskernels.la libbolt.la -lm
check_PROGRAMS += tests/inference/coll_times_check
tests_inference_coll_times_check_SOURCES = tests/inference/coll_times_check.c inference/coll_times.h inference/coll_times.c
tests_inference_coll_times_check_LDADD = libbolt.la -lm
tests_inference_logits_cmp_SOURCES = tests/inference/logits_cmp.c
tests_inference_logits_cmp_LDADD = -lm
endif
# `make check-arm64`: the kernels on 64-bit ARM (NEON) from an x86-64 host,
# cross-built and run under qemu-user (tests/inference/arm64.sh); not part of
# `make check` (it builds its own binaries, a minute or two under emulation):
# scripts/test runs it once, after the release build's suite.
check-arm64:
	$(SHELL) $(srcdir)/tests/inference/arm64.sh $(abs_top_srcdir)
.PHONY: check-arm64
EXTRA_DIST += tests/inference/arm64.sh tests/inference/kernel_names.c

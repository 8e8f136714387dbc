# tests/fuzz/: a fuzz target for the framing code (runtime/kvs_wire.c,
# launcher/chan_wire.c). `make check` replays the corpus through it; with
# clang, `make fuzz-kvs-wire` builds the libFuzzer binary
# (./fuzz-kvs-wire tests/fuzz/corpus to run it).
check_PROGRAMS += tests/fuzz/fuzz_kvs_wire_replay
tests_fuzz_fuzz_kvs_wire_replay_SOURCES = tests/fuzz/fuzz_kvs_wire.c tests/fuzz/replay.c launcher/chan_wire.c
tests_fuzz_fuzz_kvs_wire_replay_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS)
tests_fuzz_fuzz_kvs_wire_replay_LDADD = libboltcore.la $(CRYPTO_LIBS)
TESTS += tests/fuzz/replay.sh
dist_check_SCRIPTS += tests/fuzz/replay.sh
EXTRA_DIST += tests/fuzz/corpus

FUZZ_CC = clang
fuzz-kvs-wire: $(top_srcdir)/tests/fuzz/fuzz_kvs_wire.c $(top_srcdir)/runtime/kvs_wire.c $(top_srcdir)/launcher/chan_wire.c
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -I$(top_builddir) -include config.h -I$(top_srcdir) \
	  -I$(top_srcdir)/include $(CRYPTO_CFLAGS) -o $@ $(top_srcdir)/tests/fuzz/fuzz_kvs_wire.c \
	  $(top_srcdir)/runtime/kvs_wire.c $(top_srcdir)/launcher/chan_wire.c $(top_srcdir)/runtime/crypto_hex.c \
	  $(top_srcdir)/runtime/crypto_openssl.c $(top_srcdir)/runtime/errors.c $(CRYPTO_LIBS)
.PHONY: fuzz-kvs-wire

# bolt-hpl's HPL.dat reader (hpl_port/hpl_dat.c): `make check` replays
# tests/fuzz/corpus_hpl_dat; `make fuzz-hpl-dat` builds the libFuzzer binary
# (./fuzz-hpl-dat tests/fuzz/corpus_hpl_dat to run it).
check_PROGRAMS += tests/fuzz/fuzz_hpl_dat_replay
tests_fuzz_fuzz_hpl_dat_replay_SOURCES = tests/fuzz/fuzz_hpl_dat.c tests/fuzz/replay.c hpl_port/hpl_dat.c
tests_fuzz_fuzz_hpl_dat_replay_LDADD =
TESTS += tests/fuzz/replay_hpl_dat.sh
dist_check_SCRIPTS += tests/fuzz/replay_hpl_dat.sh
EXTRA_DIST += tests/fuzz/corpus_hpl_dat
fuzz-hpl-dat: $(top_srcdir)/tests/fuzz/fuzz_hpl_dat.c $(top_srcdir)/hpl_port/hpl_dat.c
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -I$(top_builddir) -include config.h -I$(top_srcdir) \
	  -I$(top_srcdir)/include -o $@ $(top_srcdir)/tests/fuzz/fuzz_hpl_dat.c $(top_srcdir)/hpl_port/hpl_dat.c
.PHONY: fuzz-hpl-dat

# The GGUF reader (inference/gguf.c): `make check` replays tests/fuzz/corpus_gguf;
# `make fuzz-gguf` builds the libFuzzer binary (./fuzz-gguf tests/fuzz/corpus_gguf).
check_PROGRAMS += tests/fuzz/fuzz_gguf_replay
tests_fuzz_fuzz_gguf_replay_SOURCES = tests/fuzz/fuzz_gguf.c tests/fuzz/replay.c
tests_fuzz_fuzz_gguf_replay_LDADD = libinference.la
TESTS += tests/fuzz/replay_gguf.sh
dist_check_SCRIPTS += tests/fuzz/replay_gguf.sh
EXTRA_DIST += tests/fuzz/corpus_gguf
FUZZ_GGUF_SRCS = $(top_srcdir)/inference/gguf.c $(top_srcdir)/inference/err.c $(top_srcdir)/inference/mem_posix.c
fuzz-gguf: $(top_srcdir)/tests/fuzz/fuzz_gguf.c $(FUZZ_GGUF_SRCS)
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined -I$(top_builddir) -include config.h -I$(top_srcdir) \
	  -I$(top_srcdir)/include -o $@ $(top_srcdir)/tests/fuzz/fuzz_gguf.c $(FUZZ_GGUF_SRCS)
.PHONY: fuzz-gguf

# examples/: small programs on the native API (the quick start runs pi_ring).
noinst_PROGRAMS += examples/pi_ring
examples_pi_ring_SOURCES = examples/pi_ring.c
examples_pi_ring_LDADD = libbolt.la -lm

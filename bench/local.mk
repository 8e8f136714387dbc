# bench/: benchmarks (not tests). bolt_pingpong measures point-to-point.
noinst_PROGRAMS += bench/bolt_pingpong
bench_bolt_pingpong_SOURCES = bench/bolt_pingpong.c bench/bench_stats.h
bench_bolt_pingpong_LDADD = libbolt.la

# bench/: benchmarks (not tests). mpi_pingpong measures point-to-point on the
# MPI API (bench/compare also builds it with Open MPI and MPICH);
# bolt_pingpong makes the same measurement on the native API, so the cost of
# the MPI face shows.
noinst_PROGRAMS += bench/bolt_pingpong bench/mpi_pingpong
bench_bolt_pingpong_SOURCES = bench/bolt_pingpong.c bench/bench_stats.h
bench_bolt_pingpong_LDADD = libbolt.la
# bolt_allreduce times the all-reduce algorithms (BOLT_ALLREDUCE_ALGO).
noinst_PROGRAMS += bench/bolt_allreduce
bench_bolt_allreduce_SOURCES = bench/bolt_allreduce.c bench/bench_stats.h
bench_mpi_pingpong_SOURCES = bench/mpi_pingpong.c bench/bench_stats.h
bench_mpi_pingpong_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi
bench_mpi_pingpong_LDADD = libmpi.la libbolt.la
EXTRA_DIST += bench/compare bench/compare_report.py bench/launch.sh bench/osu-compare bench/compare-tcp bench/rdma-vm \
    bench/calib-compare
noinst_PROGRAMS += bench/mpi_coll
bench_mpi_coll_SOURCES = bench/mpi_coll.c bench/bench_stats.h
bench_mpi_coll_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi
bench_mpi_coll_LDADD = libmpi.la libbolt.la

# who leaves a barrier first, and the rooted call timed after it (bench/README)
noinst_PROGRAMS += bench/mpi_barrier_exit
bench_mpi_barrier_exit_SOURCES = bench/mpi_barrier_exit.c
bench_mpi_barrier_exit_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi
bench_mpi_barrier_exit_LDADD = libmpi.la libbolt.la

# mpi_window: OSU-style windowed streaming (bandwidth, bidirectional, rate).
noinst_PROGRAMS += bench/mpi_window
bench_mpi_window_SOURCES = bench/mpi_window.c bench/bench_stats.h
bench_mpi_window_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi
bench_mpi_window_LDADD = libmpi.la libbolt.la
# bench/llm-compare: bolt-llm's engine against llama.cpp (llm_bench_ref is
# built by the script against the test data), and the memory bandwidth;
# bench/llm-parallel: bolt-llm across ranks against llama.cpp's RPC backend.
noinst_PROGRAMS += bench/stream_triad
bench_stream_triad_SOURCES = bench/stream_triad.c
bench_stream_triad_LDADD = -lpthread
EXTRA_DIST += bench/llm-compare bench/llm_bench_ref.c bench/llm-parallel
if HAVE_PCRE2
noinst_PROGRAMS += bench/llm_bench_bolt
bench_llm_bench_bolt_SOURCES = bench/llm_bench_bolt.c bench/bench_stats.h
bench_llm_bench_bolt_LDADD = libinference.la libblaskernels.la
endif

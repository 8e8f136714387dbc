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
EXTRA_DIST += bench/compare bench/compare-tcp bench/rdma-vm
noinst_PROGRAMS += bench/mpi_coll
bench_mpi_coll_SOURCES = bench/mpi_coll.c bench/bench_stats.h
bench_mpi_coll_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi
bench_mpi_coll_LDADD = libmpi.la libbolt.la

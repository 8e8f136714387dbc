# tests/mpi/: MPI programs that check their own results. Each is built here
# against libmpi and run under boltrun; compat.sh also builds the same source
# with Open MPI's mpicc and runs it under mpirun, so a test is trusted only
# once it passes on Open MPI too.
MPI_TEST_PROGS = tests/mpi/mpi_env tests/mpi/mpi_p2p tests/mpi/mpi_dtype tests/mpi/mpi_comm \
	tests/mpi/mpi_coll tests/mpi/mpi_group tests/mpi/mpi_topo tests/mpi/mpi_info \
	tests/mpi/mpi_mprobe tests/mpi/mpi_halo tests/mpi/mpi_master_worker \
	tests/mpi/mpi_panel_bcast tests/mpi/mpi_cg tests/mpi/mpi_type_free \
	tests/mpi/mpi_comm_create tests/mpi/mpi_errhandler tests/mpi/mpi_attr_err \
	tests/mpi/mpi_complex tests/mpi/mpi_consts tests/mpi/mpi_nbc tests/mpi/mpi_graph tests/mpi/mpi_neighbor \
	tests/mpi/mpi_intercomm tests/mpi/mpi_intercoll \
	tests/mpi/mpi_type_decode tests/mpi/mpi_darray tests/mpi/mpi_external32 tests/mpi/mpi_type_attr \
	tests/mpi/mpi_type_misc \
	tests/mpi/mpi_cxx
# Handles, error classes, generalized requests, communicator info, tools interface.
MPI_TEST_PROGS += tests/mpi/mpi_handles tests/mpi/mpi_errclass tests/mpi/mpi_grequest \
	tests/mpi/mpi_comm_info tests/mpi/mpi_keyval_errh tests/mpi/mpi_tools
# Several threads calling at once (MPI_THREAD_MULTIPLE).
MPI_TEST_PROGS += tests/mpi/mpi_thread tests/mpi/mpi_thread_soak
# One-sided communication (issue 28): built here, run by compat.sh once
# RMA_TESTS joins ALL there (BOLT_MPI_TESTS="$RMA_TESTS" runs them now).
MPI_RMA_PROGS = tests/mpi/mpi_rma_win tests/mpi/mpi_rma_fence tests/mpi/mpi_rma_pscw \
	tests/mpi/mpi_rma_passive tests/mpi/mpi_rma_progress tests/mpi/mpi_rma_sibling
MPI_TEST_PROGS += $(MPI_RMA_PROGS)
# Programs whose expectations hold only on Bolt (run by compat.sh on Bolt alone).
MPI_BOLT_ONLY_PROGS = tests/mpi/mpi_unsupported
MPI_BOLT_ONLY_PROGS += tests/mpi/mpi_unsupported_more tests/mpi/mpi_tools_bolt
check_PROGRAMS += $(MPI_TEST_PROGS) $(MPI_BOLT_ONLY_PROGS)
MPI_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi
MPI_TEST_LDADD = libmpi.la libbolt.la
tests_mpi_mpi_env_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_env_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_p2p_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_p2p_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_dtype_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_dtype_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_comm_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_comm_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_coll_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_coll_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_group_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_group_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_topo_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_topo_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_info_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_info_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_mprobe_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_mprobe_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_halo_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_halo_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_master_worker_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_master_worker_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_panel_bcast_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_panel_bcast_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_cg_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_cg_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_type_free_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_type_free_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_comm_create_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_comm_create_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_errhandler_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_errhandler_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_attr_err_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_attr_err_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_complex_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_complex_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_consts_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_consts_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_nbc_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_nbc_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_graph_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_graph_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_neighbor_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_neighbor_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_intercomm_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_intercomm_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_intercoll_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_intercoll_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_type_decode_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_type_decode_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_darray_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_darray_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_external32_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_external32_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_type_attr_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_type_attr_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_type_misc_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_type_misc_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_handles_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_handles_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_errclass_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_errclass_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_grequest_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_grequest_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_thread_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_thread_LDADD = $(MPI_TEST_LDADD)
# The same program with 200 rounds: a soak of a few seconds (compat.sh).
tests_mpi_mpi_thread_soak_SOURCES = tests/mpi/mpi_thread.c
tests_mpi_mpi_thread_soak_CPPFLAGS = $(MPI_TEST_CPPFLAGS) -DROUNDS=200
tests_mpi_mpi_thread_soak_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_comm_info_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_comm_info_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_keyval_errh_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_keyval_errh_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_unsupported_more_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_unsupported_more_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_tools_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_tools_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_tools_bolt_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_tools_bolt_LDADD = $(MPI_TEST_LDADD)
# mpi_cxx: mpi.h from C++, as a user's program includes it (no config.h).
tests_mpi_mpi_cxx_SOURCES = tests/mpi/mpi_cxx.cc
tests_mpi_mpi_cxx_CPPFLAGS = -I$(top_srcdir)/mpi
tests_mpi_mpi_cxx_CXXFLAGS = $(BOLT_CXXFLAGS)
tests_mpi_mpi_cxx_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_rma_win_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_rma_win_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_rma_fence_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_rma_fence_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_rma_pscw_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_rma_pscw_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_rma_passive_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_rma_passive_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_rma_progress_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_rma_progress_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_rma_sibling_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_rma_sibling_LDADD = $(MPI_TEST_LDADD)
tests_mpi_mpi_unsupported_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_unsupported_LDADD = $(MPI_TEST_LDADD)
EXTRA_DIST += tests/mpi/mtest.h

MPI_TESTS = tests/mpi/compat.sh tests/mpi/compat_rma.sh tests/mpi/compat_ompi.sh tests/mpi/fatal.sh tests/mpi/boltcc.sh tests/mpi/peers.sh
# bench/compare's and osu-compare's instruments and report, on Bolt alone.
MPI_TESTS += tests/mpi/bench_tools.sh
EXTRA_DIST += tests/mpi/peers/Make.Bolt tests/mpi/peers/osu_graph.txt
# peers.sh's copies of the peer programs and their builds.
clean-local: clean-mpi-peers
clean-mpi-peers:
	-chmod -R u+w tests/mpi/peers-work 2>/dev/null; rm -rf tests/mpi/peers-work tests/mpi/bench-tools-work
.PHONY: clean-mpi-peers
TESTS += $(MPI_TESTS)
dist_check_SCRIPTS += $(MPI_TESTS)
AM_TESTS_ENVIRONMENT += BOLT_TEST_OMPI_MPICC='$(OMPI_MPICC)'; TOP_SRCDIR=$(abs_top_srcdir); BOLT_TEST_CC='$(CC)'; BOLT_TEST_CFLAGS='$(BOLT_CFLAGS)'; export BOLT_TEST_OMPI_MPICC TOP_SRCDIR BOLT_TEST_CC BOLT_TEST_CFLAGS;
AM_TESTS_ENVIRONMENT += BOLT_TEST_OMPI_MPICXX='$(OMPI_MPICXX)'; BOLT_TEST_CXX='$(CXX)'; export BOLT_TEST_OMPI_MPICXX BOLT_TEST_CXX;
check_PROGRAMS += tests/mpi/mpi_fatal
tests_mpi_mpi_fatal_CPPFLAGS = $(MPI_TEST_CPPFLAGS)
tests_mpi_mpi_fatal_LDADD = $(MPI_TEST_LDADD)
EXTRA_DIST += tests/mpi/pmpi_tool.c

# The names libmpi exports against MPI 3.1's list of C functions: every one,
# with its PMPI_ twin (a missing name is printed and fails the test).
TESTS += tests/mpi/exports.sh
dist_check_SCRIPTS += tests/mpi/exports.sh
EXTRA_DIST += tests/mpi/mpi31_functions.txt

# The Fortran bindings (mpi/fortran/): Fortran programs built with boltfort,
# run here and on Open MPI; skipped when configure found no gfortran.
if BOLT_FORTRAN
MPI_TEST_FC = $(FC)
endif
TESTS += tests/mpi/fortran.sh
dist_check_SCRIPTS += tests/mpi/fortran.sh
EXTRA_DIST += tests/mpi/ftest.f90 tests/mpi/fort_p2p.f90 tests/mpi/fort_coll.f90 tests/mpi/fort_types.f90 \
	tests/mpi/fort_comm.f90 tests/mpi/fort_legacy.f tests/mpi/fort_pmpi_tool.f tests/mpi/fort_fatal.f90
AM_TESTS_ENVIRONMENT += BOLT_TEST_FC='$(MPI_TEST_FC)'; BOLT_TEST_OMPI_MPIFORT='$(OMPI_MPIFORT)'; export BOLT_TEST_FC BOLT_TEST_OMPI_MPIFORT;

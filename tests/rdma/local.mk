# tests/rdma/: the rdma transport tested for real inside a VM with a
# Soft-RoCE device (`make check-rdma`).
#
# `make check-rdma` builds the library, the tools and the test programs it runs, then
# tests/rdma/check boots qemu twice (tests/rdma/vm/run): one guest with one
# rxe device for 2- and 4-rank jobs, one with a mesh of 4 hosts (network
# namespaces, a cable and an rxe device per pair) for multi-host jobs through
# tests/rdma/netns-rsh and a cable pull. Not part of `make check` (it needs
# root and takes minutes); scripts/test runs it after the release build's
# suite. BOLT_RDMA_CHECK_TRANSPORTS=tcp runs the same cases over TCP. See
# docs/rdma-testing.md.
# Only the programs it runs (not every check program: a broken unit test does
# not stop it), after `all` (not beside it: with -j, all's sub-make and this
# one would build the same objects at once).
CHECK_RDMA_PROGS = $(INTEGRATION_PROGS) tests/collectives/coll_check$(EXEEXT) $(MPI_TEST_PROGS)
if HAVE_PCRE2
# tensor parallel inference over rdma (bolt-llm itself is in `all`)
CHECK_RDMA_PROGS += tests/inference/tp_check$(EXEEXT)
endif
check-rdma: all
	$(MAKE) $(AM_MAKEFLAGS) $(CHECK_RDMA_PROGS)
	$(SHELL) $(srcdir)/tests/rdma/check $(abs_top_builddir) $(abs_top_srcdir)
.PHONY: check-rdma

EXTRA_DIST += tests/rdma/check tests/rdma/in-vm tests/rdma/netns-rsh tests/rdma/hpl.dat \
	tests/rdma/vm/README.md tests/rdma/vm/run tests/rdma/vm/init tests/rdma/vm/mesh \
	tests/rdma/vm/selftest/run tests/rdma/vm/selftest/guest.sh tests/rdma/vm/selftest/mesh.sh \
	tests/rdma/vm/selftest/devlist.c

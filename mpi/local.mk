# mpi/: the MPI face (mpi.h, libmpi, boltcc, boltc++) over the native API.
lib_LTLIBRARIES += libmpi.la
libmpi_la_SOURCES = \
	mpi/face.h mpi/dtype.h \
	mpi/env.c mpi/errors.c mpi/errclass.c mpi/comm.c mpi/attr.c mpi/attr_callbacks.c \
	mpi/comm_info.c mpi/mpi1.c \
	mpi/dtype.c mpi/dtype_create.c mpi/pack.c \
	mpi/dtype_contents.c mpi/darray.c mpi/dtype_f90.c mpi/dtype_attr.c mpi/dtype_mpi1.c \
	mpi/external32.c \
	mpi/p2p.c mpi/request.c mpi/bsend.c \
	mpi/coll.h mpi/op.c mpi/op_extra.c mpi/coll.c mpi/coll_reduce.c mpi/coll_nbv.c \
	mpi/alltoallw.c \
	mpi/group.c mpi/comm_create.c mpi/cart.c mpi/graph.c mpi/dist_graph.c mpi/neighbor.c \
	mpi/info.c mpi/mprobe.c mpi/intercomm.c mpi/intercoll.c \
	mpi/handles.c mpi/grequest.c \
	mpi/mpit.h mpi/mpit.c mpi/mpit_cvar.c mpi/mpit_pvar.c \
	mpi/unsupported.c mpi/file.c \
	mpi/rma.h mpi/win.c mpi/win_create.c mpi/win_shm.c mpi/rma_apply.c mpi/rma_ops.c \
	mpi/rma_target.c mpi/rma_sync.c mpi/rma_agent.c mpi/rma_cma.c mpi/rma_mail.c \
	mpi/profile.c
libmpi_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi -I$(top_builddir)/mpi
# face_impl.h renames each PMPI_X the face defines to face_impl_X, so that
# profile.c's PMPI_X can take the runtime lock around it (thread.h) and the
# face's own calls between functions go straight to the implementation.
nodist_libmpi_la_SOURCES = mpi/face_impl.h
BUILT_SOURCES = mpi/face_impl.h
$(libmpi_la_OBJECTS): mpi/face_impl.h
mpi/face_impl.h: $(top_srcdir)/mpi/mpi_functions.h
	$(AM_V_GEN)$(MKDIR_P) mpi && \
	    sed -n 's/^BOLT_MPI_FN(\([A-Za-z0-9_]*\),.*/#define PMPI_\1 face_impl_\1/p' \
	    $(top_srcdir)/mpi/mpi_functions.h >$@.tmp && mv $@.tmp $@
libmpi_la_LIBADD = libbolt.la
libmpi_la_LDFLAGS = -version-info 0:0:0 $(BOLT_LIB_SYMBOLIC)
boltmpiincdir = $(includedir)/bolt
boltmpiinc_HEADERS = mpi/mpi.h mpi/mpi_functions.h

# boltcc (C) and boltc++ (C++): one template, the language's compiler and the
# variable that overrides it filled in.
bin_SCRIPTS = boltcc boltc++
CLEANFILES = boltcc boltc++ mpi/face_impl.h
EXTRA_DIST += mpi/boltcc.in
MPI_WRAPPER_SED = sed -e 's|@includedir[@]|$(includedir)|g' -e 's|@libdir[@]|$(libdir)|g' \
	-e 's|@VERSION[@]|$(VERSION)|g'
boltcc: $(top_srcdir)/mpi/boltcc.in Makefile
	$(AM_V_GEN)$(MPI_WRAPPER_SED) -e 's|@NAME[@]|boltcc|g' -e 's|@LANG[@]|C|g' -e 's|@EXT[@]|c|g' \
	    -e 's|@CCVAR[@]|BOLTCC_CC|g' -e 's|@CC[@]|$(CC)|g' \
	    $(top_srcdir)/mpi/boltcc.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
boltc++: $(top_srcdir)/mpi/boltcc.in Makefile
	$(AM_V_GEN)$(MPI_WRAPPER_SED) -e 's|@NAME[@]|boltc++|g' -e 's|@LANG[@]|C++|g' -e 's|@EXT[@]|cc|g' \
	    -e 's|@CCVAR[@]|BOLTCXX_CXX|g' -e 's|@CC[@]|$(CXX)|g' \
	    $(top_srcdir)/mpi/boltcc.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@

pkgconfig_DATA += bolt-mpi.pc

# --enable-mpi-aliases: mpicc, mpicxx, mpic++, mpirun and mpiexec as links to
# boltcc, boltc++ and boltrun, for build systems that look for those names.
if BOLT_MPI_ALIASES
install-exec-hook: install-mpi-aliases
uninstall-hook: uninstall-mpi-aliases
endif
install-mpi-aliases:
	cd $(DESTDIR)$(bindir) && ln -sf boltcc mpicc && ln -sf boltc++ mpicxx && \
	    ln -sf boltc++ mpic++ && ln -sf boltrun mpirun && ln -sf boltrun mpiexec
uninstall-mpi-aliases:
	rm -f $(DESTDIR)$(bindir)/mpicc $(DESTDIR)$(bindir)/mpicxx $(DESTDIR)$(bindir)/mpic++ \
	    $(DESTDIR)$(bindir)/mpirun $(DESTDIR)$(bindir)/mpiexec
.PHONY: install-mpi-aliases uninstall-mpi-aliases

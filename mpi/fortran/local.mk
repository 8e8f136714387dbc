# mpi/fortran/: MPI's Fortran bindings, built when configure finds gfortran:
# libmpifort (the mpi_xxx_ routines over libmpi), mpif.h, the mpi module and
# boltfort. mpif.h is generated from mpi.h (genmpifh.sh) and the wrappers
# and the module's interfaces from mpi_functions.h (genbind.awk), so they
# follow the C face as it grows.
EXTRA_DIST += mpi/fortran/genmpifh.sh mpi/fortran/genmpifh.c mpi/fortran/genbind.awk \
	mpi/fortran/special.in mpi/fortran/boltfort.in
if BOLT_FORTRAN
lib_LTLIBRARIES += libmpifort.la
libmpifort_la_SOURCES = mpi/fortran/fortran.h mpi/fortran/fsupport.c
nodist_libmpifort_la_SOURCES = mpi/fortran/fbind.c
libmpifort_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/mpi -I$(top_srcdir)/mpi/fortran
libmpifort_la_LIBADD = libmpi.la $(DL_LIBS)
libmpifort_la_LDFLAGS = -version-info 0:0:0

FORT_GEN = $(top_srcdir)/mpi/fortran/genbind.awk $(top_srcdir)/mpi/fortran/special.in \
	$(top_srcdir)/mpi/mpi_functions.h
mpi/fortran/fbind.c: $(FORT_GEN)
	$(AM_V_GEN)$(MKDIR_P) mpi/fortran && \
	    $(AWK) -v mode=c -f $(FORT_GEN) >$@.tmp && mv $@.tmp $@
mpi/fortran/mpi.f90: $(FORT_GEN)
	$(AM_V_GEN)$(MKDIR_P) mpi/fortran && \
	    $(AWK) -v mode=f90 -f $(FORT_GEN) >$@.tmp && mv $@.tmp $@
# mpif-consts.h (the module's constants) comes with mpif.h.
mpi/fortran/mpif.h: $(top_srcdir)/mpi/mpi.h $(top_srcdir)/mpi/fortran/genmpifh.sh \
	    $(top_srcdir)/mpi/fortran/genmpifh.c
	$(AM_V_GEN)$(MKDIR_P) mpi/fortran && \
	    CC='$(CC)' $(SHELL) $(top_srcdir)/mpi/fortran/genmpifh.sh $(top_srcdir)/mpi mpi/fortran
# The module has only constants, common blocks and interfaces: its .mod is
# all programs need (its object defines nothing). gfortran leaves a .mod
# whose content did not change as it was: touched, so make sees it new.
mpi/fortran/mpi.mod: mpi/fortran/mpi.f90 mpi/fortran/mpif.h
	$(AM_V_GEN)$(FC) $(FCFLAGS) -c -I mpi/fortran -J mpi/fortran -o mpi/fortran/mpi-mod.o mpi/fortran/mpi.f90 && \
	    touch $@

fortincdir = $(includedir)/bolt
nodist_fortinc_DATA = mpi/fortran/mpif.h mpi/fortran/mpi.mod
CLEANFILES += mpi/fortran/fbind.c mpi/fortran/mpi.f90 mpi/fortran/mpif.h mpi/fortran/mpif-consts.h \
	mpi/fortran/mpi.mod mpi/fortran/mpi-mod.o mpi/fortran/genmpifh mpi/fortran/genmpifh.inc boltfort

bin_SCRIPTS += boltfort
boltfort: $(top_srcdir)/mpi/fortran/boltfort.in Makefile
	$(AM_V_GEN)sed -e 's|@FC[@]|$(FC)|g' -e 's|@FORT_EXTRA[@]|$(BOLT_FORT_EXTRA)|g' \
	    -e 's|@includedir[@]|$(includedir)|g' -e 's|@libdir[@]|$(libdir)|g' -e 's|@VERSION[@]|$(VERSION)|g' \
	    $(top_srcdir)/mpi/fortran/boltfort.in >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
# --enable-mpi-aliases: mpifort, mpif90 and mpif77 as links to boltfort.
if BOLT_MPI_ALIASES
install-exec-local:
	$(MKDIR_P) $(DESTDIR)$(bindir)
	cd $(DESTDIR)$(bindir) && ln -sf boltfort mpifort && ln -sf boltfort mpif90 && ln -sf boltfort mpif77
uninstall-local:
	rm -f $(DESTDIR)$(bindir)/mpifort $(DESTDIR)$(bindir)/mpif90 $(DESTDIR)$(bindir)/mpif77
endif
endif

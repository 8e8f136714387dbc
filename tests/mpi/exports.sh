#!/bin/sh
# libmpi exports every function of MPI 3.1's C bindings and its PMPI_ twin:
# the names in mpi31_functions.txt, compared with the library's dynamic
# symbol table. Prints each missing name and how many of the standard's
# names are exported, so progress shows while some are still missing.
set -u
: "${TOP_SRCDIR:?TOP_SRCDIR must be set (make check sets it)}"
: "${TOP_BUILDDIR:?TOP_BUILDDIR must be set (make check sets it)}"
list="$TOP_SRCDIR/tests/mpi/mpi31_functions.txt"
lib=
for f in "$TOP_BUILDDIR/.libs/libmpi.so" "$TOP_BUILDDIR/.libs/libmpi.dylib"; do
    [ -f "$f" ] && lib=$f && break
done
if [ -z "$lib" ]; then
    echo "SKIP: no shared libmpi in $TOP_BUILDDIR/.libs (a static-only build)"
    exit 77
fi
W="$TOP_BUILDDIR/tests/mpi/exports-work"
mkdir -p "$W"

# The standard's names, each with its PMPI_ twin.
sed 's/#.*//' "$list" | tr ' \t' '\n\n' | grep . | sed 'p;s/^/P/' | sort -u >"$W/want"
# What the library defines. macOS's nm prefixes C names with '_'.
case "$lib" in
*.dylib) nm -gU "$lib" | awk '{print $3}' | sed 's/^_//' ;;
*) nm -D --defined-only "$lib" | awk '{print $3}' ;;
esac | sed 's/@.*//' | sort -u >"$W/have"
if [ ! -s "$W/have" ]; then
    echo "FAIL: nm found no symbols in $lib"
    exit 1
fi

comm -23 "$W/want" "$W/have" >"$W/missing"
want=$(wc -l <"$W/want" | tr -d ' ')
missing=$(wc -l <"$W/missing" | tr -d ' ')
sed 's/^/missing: /' "$W/missing"
echo "libmpi exports $((want - missing)) of the $want names of MPI 3.1's C bindings (MPI_ and PMPI_); $missing missing"
[ "$missing" -eq 0 ]

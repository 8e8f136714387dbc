#!/bin/sh
# genmpifh.sh MPI_INCDIR OUTDIR — writes OUTDIR/mpif.h and OUTDIR/mpif-consts.h
# from MPI_INCDIR/mpi.h: the preprocessor lists mpi.h's macros, genmpifh.c
# prints each integer one's value as the C compiler sees it. $CC compiles.
set -eu
inc=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-cc}
# Object-like macros named MPI_ + capitals (mpi.h's constants); function
# names and function-like macros are not.
# shellcheck disable=SC2086
echo '#include "mpi.h"' | $cc -I"$inc" -dM -E -x c - |
    sed -n 's/^#define \(MPI_[A-Z0-9_]*\) .*/P(\1)/p' | LC_ALL=C sort >"$out/genmpifh.inc.tmp"
[ -s "$out/genmpifh.inc.tmp" ] || { echo "genmpifh.sh: no MPI_ constants found in $inc/mpi.h" >&2; exit 1; }
mv "$out/genmpifh.inc.tmp" "$out/genmpifh.inc"
# shellcheck disable=SC2086
$cc -std=c11 -w -I"$inc" -I"$out" -o "$out/genmpifh" "$here/genmpifh.c"
"$out/genmpifh" consts >"$out/mpif-consts.h.tmp"
"$out/genmpifh" mpif >"$out/mpif.h.tmp"
mv "$out/mpif-consts.h.tmp" "$out/mpif-consts.h"
mv "$out/mpif.h.tmp" "$out/mpif.h"

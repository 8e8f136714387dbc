#!/bin/sh
# compat.sh's programs built with Open MPI's compilers and run under its
# mpirun: the cross-check that their expectations are MPI's, not Bolt's.
COMPAT_PART=ompi exec sh "$(dirname "$0")/compat.sh"

#!/bin/sh
# The one-sided programs of compat.sh on Bolt (a test of their own, so that
# make -j runs them beside the rest).
COMPAT_PART=rma exec sh "$(dirname "$0")/compat.sh"

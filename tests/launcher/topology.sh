#!/bin/sh
# bolt-info --topology: host, identity, and the counts nproc and hwloc give;
# bolt-info's default output carries a one-line summary.
. "$(dirname "$0")/lib.sh"

INFO="$TOP_BUILDDIR/bolt-info"
"$INFO" --topology >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "bolt-info --topology"
[ ! -s "$T/err" ] || fail "bolt-info --topology wrote to stderr"
field() { sed -n "s/^$1 *: //p" "$T/out"; }

[ "$(field host)" = "$(hostname)" ] || fail "host is not $(hostname)"
id=$(field 'host id')
[ -n "$id" ] && [ "$id" != unknown ] || fail "no host id"
if [ -r /proc/sys/kernel/random/boot_id ]; then
    want="$(hostname)/$(cat /proc/sys/kernel/random/boot_id)/net:$(stat -L -c %i /proc/self/ns/net)"
    [ "$id" = "$want" ] || fail "host id '$id' is not hostname/boot_id/net:netns-inode ($want)"
fi
[ "$("$INFO" --topology | sed -n 's/^host id *: //p')" = "$id" ] || fail "host id changes between runs"

cores=$(field cores)
pus=$(field PUs)
usable_pus=$(field 'usable here' | sed 's/.*, \([0-9]*\) PU.*/\1/')
[ "$cores" -ge 1 ] && [ "$pus" -ge "$cores" ] || fail "counts: $cores cores, $pus PUs"
if command -v nproc >/dev/null 2>&1; then
    [ "$usable_pus" = "$(nproc)" ] || fail "usable PUs $usable_pus, nproc says $(nproc)"
fi
case $(field source) in
hwloc)
    for k in packages 'NUMA nodes'; do
        [ "$(field "$k")" -ge 1 ] 2>/dev/null || fail "$k: '$(field "$k")'"
    done
    if command -v hwloc-calc >/dev/null 2>&1; then
        [ "$cores" = "$(hwloc-calc --number-of core machine:0)" ] ||
            fail "cores $cores, hwloc-calc says $(hwloc-calc --number-of core machine:0)"
        [ "$pus" = "$(hwloc-calc --number-of pu machine:0)" ] || fail "PUs $pus, hwloc-calc disagrees"
    else
        echo "SKIP: hwloc-calc not installed; core count not cross-checked"
    fi
    grep -Eq '^(L1d|L2|L3) +: [0-9]+ x [0-9]+ (B|KiB|MiB)$' "$T/out" || echo "note: hwloc reports no caches here"
    ;;
sysconf*)
    echo "SKIP: hwloc checks (this Bolt was built without hwloc)"
    [ "$cores" = "$(getconf _NPROCESSORS_ONLN)" ] || fail "cores $cores, sysconf says $(getconf _NPROCESSORS_ONLN)"
    [ "$(field packages)" = unknown ] || fail "packages should be unknown without hwloc"
    ;;
*) fail "source: '$(field source)'" ;;
esac

"$INFO" >"$T/out" 2>"$T/err" || fail "bolt-info"
grep -Eq "^  topology +: $cores cores?, $pus PUs?" "$T/out" || fail "bolt-info lacks the topology summary"
"$INFO" --help | grep -q -- '--topology' || fail "bolt-info --help lacks --topology"
exit 0

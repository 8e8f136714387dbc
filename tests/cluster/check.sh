#!/bin/sh
# check.sh — bolt-cluster check on the namespace cluster (4 hosts in a full
# mesh of cables; no RDMA: tests/rdma's cluster boot checks the device pairs):
#  - the full mesh is found as such, every host reported (OS, Bolt version,
#    cores, memory, RDMA, interfaces), every link measured; --json agrees;
#    --dot writes a graph graphviz renders; the hostfile it writes runs a
#    job, the calibration file has every host and link, and boltrun
#    --calibration hands every link to the ranks (BOLT_COLL_LINKS), whose
#    collectives run on it;
#  - one cable slowed with tc (netem delay) is flagged with its numbers;
#  - a host whose bolt-hostd reports another Bolt version: named, exit 1;
#  - one cable removed: named ("h2 and h4 are not connected: plug a cable
#    between them"), the wiring partial, exit status 1;
#  - a host whose sshd is down: named with ssh's error, exit status 1;
#  - usage errors: exit status 2 with the reason.
. "$(dirname "$0")/lib.sh"
BC="$TOP_BUILDDIR/bolt-cluster"
[ -x "$BC" ] || { echo "SKIP: bolt-cluster not built"; exit 77; }
printf '# the test cluster\nh1 slots=2\nh2\nh3\nh4\n' >"$T/hosts"
check() {
    "$BC" check "$@" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
}
raw() {
    "$BC" "$@" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
}
has() { grep -qF -- "$1" "$T/out" || fail "no line with '$1' in the report"; }

# 1. The full mesh.
check --hostfile "$T/hosts" --dot "$T/mesh.dot" --write-hostfile "$T/written" --write-calibration "$T/calib" \
    --write-devmap "$T/devmap"
cat "$T/out"
cp "$T/out" "$T/mesh.out"
expect_rc 0 "full mesh"
has "wiring: full mesh (6 cables between 4 reachable hosts)"
has "bolt-cluster: a job can run on these 4 hosts"
for i in 1 2 3 4; do
    grep -Eq "^h$i: Linux [^ ]+ [^ ]+, Bolt [0-9.]+, [0-9]+ cores, [0-9.]+ [GM]iB memory$" "$T/out" ||
        fail "no host line for h$i"
done
# Each cable found at its own addresses, on the right interfaces.
for pair in "1 2" "1 3" "1 4" "2 3" "2 4" "3 4"; do
    set -- $pair
    line="h$1 tb$2 $(cluster_mesh_addr "$1" "$2") <-> h$2 tb$1 $(cluster_mesh_addr "$2" "$1"): cable, "
    has "$line"
done
[ "$(grep -c ': cable, .* us, .* GB/s' "$T/out")" -eq 6 ] || fail "not every link was measured"
grep -q "^problem:" "$T/out" && fail "problems reported on a sound cluster"
# The management addresses reach no other host: never a link.
grep -q " mgmt0 .*<->" "$T/out" && fail "a management address was taken for a link"
grep -q 'graph cluster' "$T/mesh.dot" || fail "--dot wrote no graph"
[ "$(grep -c 'penwidth=2' "$T/mesh.dot")" -eq 6 ] || fail "--dot: not 6 cables"
if command -v dot >/dev/null 2>&1; then
    dot -Tsvg "$T/mesh.dot" -o "$T/mesh.svg" || fail "graphviz cannot render the --dot output"
    grep -q '<svg' "$T/mesh.svg" || fail "no SVG from the --dot output"
fi

# The hostfile it wrote runs a job on every host, a rank per core; the
# calibration has every host and every link with its alpha and beta.
[ "$(grep -c '^h[1-4] slots=[1-9][0-9]*$' "$T/written")" -eq 4 ] || fail "--write-hostfile: $(cat "$T/written")"
slots=$(awk -F'slots=' '/^h/ { s += $2 } END { print s }' "$T/written")
run --hostfile "$T/written" sh -c 'echo "$BOLT_RANK $(hostname)"'
expect_rc 0 "a job on the written hostfile"
[ "$(wc -l <"$T/out")" -eq "$slots" ] || fail "the written hostfile ran $(wc -l <"$T/out") ranks, not $slots"
[ "$(cut -d' ' -f2 "$T/out" | sort -u | paste -sd, -)" = "h1,h2,h3,h4" ] || fail "not every host ran ranks"
grep -qx 'bolt-calibration 1' "$T/calib" || fail "--write-calibration: no header"
[ "$(grep -c '^host h[1-4] cores=[0-9]* pus=[0-9]* mem=[0-9]* l1d=[0-9]* l2=[0-9]* l3=[0-9]*$' "$T/calib")" -eq 4 ] ||
    fail "--write-calibration: hosts"
[ "$(grep -c '^link h[1-4] h[1-4] transport=tcp kind=cable .* alpha_us=[0-9.]* beta_ab_ns=[0-9.]* beta_ba_ns=[0-9.]*$' "$T/calib")" -eq 6 ] ||
    fail "--write-calibration: links"

# boltrun --calibration: every rank gets every link between the job's hosts
# (BOLT_COLL_LINKS, the same text everywhere: h1-h2's measured alpha in it)
# and a job's collectives run on them; a value given with -x wins; a bad
# file is refused with its line.
a12=$(awk '$1 == "link" && $2 == "h1" && $3 == "h2" { for (i = 4; i <= NF; i++) if ($i ~ /^alpha_us=/) {
           sub(/alpha_us=/, "", $i); printf "%g", $i } }' "$T/calib")
run --hostfile "$T/written" --calibration "$T/calib" sh -c 'echo "$BOLT_COLL_LINKS"'
expect_rc 0 "--calibration"
[ "$(sort -u "$T/out" | wc -l)" -eq 1 ] || fail "--calibration: the ranks got different links: $(sort -u "$T/out")"
links=$(sort -u "$T/out")
case "$links" in
"1 hosts=h1,h2,h3,h4 ranks=0*"*" links=$a12/"*) ;;
*) fail "--calibration: the ranks got '$links' (h1-h2's alpha $a12)" ;;
esac
[ "$(echo "$links" | sed 's/.*links=//' | tr ',' '\n' | grep -c '^[0-9.e+-]*/[0-9.e+-]*\(/slow\)\{0,1\}$')" -eq 6 ] ||
    fail "--calibration: not 6 measured links in '$links'"
run --hostfile "$T/written" --calibration "$T/calib" "$TOP_BUILDDIR/tests/collectives/coll_route" 1
expect_rc 0 "collectives on the measured calibration"
grep -q "coll_route ok" "$T/out" || fail "collectives on the measured calibration did not finish"
run --hostfile "$T/written" --calibration "$T/calib" -x BOLT_COLL_LINKS=mine sh -c 'echo "$BOLT_COLL_LINKS"'
expect_rc 0 "--calibration with -x"
[ "$(sort -u "$T/out")" = mine ] || fail "-x BOLT_COLL_LINKS=mine did not win over the calibration"
printf 'bolt-calibration 1\nlink h1 h2 alpha_us=fast beta_ab_ns=1 beta_ba_ns=1\n' >"$T/badcal"
run --hostfile "$T/written" --calibration "$T/badcal" true
expect_rc 2 "bad calibration"
grep -qxF "boltrun: $T/badcal:2: alpha_us= expects a number of 0 or more, got 'fast'" "$T/err" ||
    fail "bad calibration message: $(cat "$T/err")"

# No RDMA here (the kernel has none): every host says so, nothing is
# probed, and the device map says no pair was proven; bolt-info reads the
# map as the rdma transport would, and names a bad record's line.
[ "$(grep -c '^  rdma: none (no RDMA devices' "$T/mesh.out")" -eq 4 ] || fail "not every host says it has no RDMA devices"
grep -q '^rdma (device pairs' "$T/mesh.out" && fail "RDMA pairs reported without RDMA devices"
grep -qx 'bolt-devmap 1' "$T/devmap" || fail "--write-devmap: no header"
grep -q '^pair ' "$T/devmap" && fail "--write-devmap: pairs without RDMA devices"
grep -q '^# no RDMA device pair was proven' "$T/devmap" || fail "--write-devmap: does not say no pair was proven"
if grep -q '^#define BOLT_HAVE_RDMA 1' "$TOP_BUILDDIR/config.h" 2>/dev/null; then
    BOLT_RDMA_DEVMAP="$T/devmap" "$TOP_BUILDDIR/bolt-info" --rdma >"$T/info" 2>&1
    grep -qF "rdma device map  : $T/devmap, 0 proven device pair(s)" "$T/info" || fail "bolt-info --rdma: $(cat "$T/info")"
    printf 'bolt-devmap 1\npair h1 d1 ::ffff:10.0.0.1 h2 d2\n' >"$T/baddevmap"
    BOLT_RDMA_DEVMAP="$T/baddevmap" "$TOP_BUILDDIR/bolt-info" --rdma >"$T/info" 2>&1
    grep -qF "rdma device map  : unusable: $T/baddevmap:2: a pair record is" "$T/info" ||
        fail "bolt-info --rdma, bad map: $(cat "$T/info")"
fi

# --json says the same.
check --hostfile "$T/hosts" --json --no-measure
expect_rc 0 "--json"
if command -v jq >/dev/null 2>&1; then
    [ "$(jq -r '.wiring' "$T/out")" = "full mesh" ] || fail "--json: wiring"
    [ "$(jq -r '.can_run' "$T/out")" = true ] || fail "--json: can_run"
    [ "$(jq '[.links[] | select(.kind == "cable")] | length' "$T/out")" -eq 6 ] || fail "--json: links"
    [ "$(jq -r '[.hosts[].bolt_version] | unique | length' "$T/out")" -eq 1 ] || fail "--json: versions"
    [ "$(jq '.hosts[0].cores' "$T/out")" -ge 1 ] || fail "--json: cores"
fi

# 2. The cable h1-h3 slowed down (h1's end sends at most 50 Mbit/s, a
# hundredth of the others): flagged, with its numbers; the job can still run.
ip netns exec "$(cluster_ns 1)" tc qdisc add dev tb3 root tbf rate 50mbit burst 64kb latency 100ms ||
    fail "tc cannot shape h1's cable to h3"
check --hostfile "$T/hosts"
ip netns exec "$(cluster_ns 1)" tc qdisc del dev tb3 root
cat "$T/out"
expect_rc 0 "one slow cable"
line=$(grep "^warning: the link h1-h3 (h1 tb3 - h3 tb1) is well below the others: latency [0-9.]* us (median [0-9.]* us), bandwidth [0-9.]* / [0-9.]* GB/s (median [0-9.]* GB/s); check its cable$" "$T/out") ||
    fail "the slowed cable h1-h3 was not flagged with its numbers"
# 50 Mbit/s is 0.00625 GB/s (tbf's burst lets a little more through): h1 ->
# h3 is measured at about that.
gbs=$(echo "$line" | sed 's/.*bandwidth \([0-9.e-]*\) \/.*/\1/')
awk -v g="$gbs" 'BEGIN { exit !(g > 0.003 && g < 0.01) }' || fail "h1 -> h3 measured at $gbs GB/s (shaped to 0.00625)"
[ "$(grep -c '^warning: the link .* is well below' "$T/out")" -eq 1 ] || fail "other links were flagged too"
grep -q '^  h1 .*== [0-9]*/0.00[0-9]*!' "$T/out" || fail "the map does not mark h1-h3 slow"

# 2b. h3 runs another Bolt version: its bolt-hostd's report, passed
# through a filter on h3 alone, names another version of the same length.
# Named, and the check fails.
if command -v python3 >/dev/null 2>&1; then
    ver=$("$BC" --version | awk '{ print $NF }')
    other=$(echo "$ver" | tr 0-8 1-9)
    cat >"$T/vfilter.py" <<'PYEOF'
import os, sys
old, new = sys.argv[1].encode(), sys.argv[2].encode()
while True:
    data = os.read(0, 65536)
    if not data:
        break
    os.write(1, data.replace(old, new))
PYEOF
    cat >"$T/hostd-wrap" <<EOF
#!/bin/sh
[ "\$(hostname)" = h3 ] || exec "$TOP_BUILDDIR/bolt-hostd" "\$@"
"$TOP_BUILDDIR/bolt-hostd" "\$@" | python3 "$T/vfilter.py" "$ver" "$other"
EOF
    chmod +x "$T/hostd-wrap"
    BOLT_HOSTD="$T/hostd-wrap" check --hostfile "$T/hosts" --no-measure
    cat "$T/out"
    expect_rc 1 "a host with another Bolt version"
    grep -q "^h3: .*Bolt $other (DIFFERS)" "$T/out" || fail "h3's version is not marked as differing"
    has "problem: h3 runs Bolt $other, bolt-cluster here is Bolt $ver: install the same version on every host"
    [ "$(grep -c '^problem:' "$T/out")" -eq 1 ] || fail "more problems than h3's version"
    grep -q "^h1: .*Bolt $ver," "$T/out" || fail "h1's version is not reported as $ver"
else
    echo "note: no python3: the version-mismatch case is skipped"
fi

# 3. The cable h2-h4 removed.
ip -n "$(cluster_ns 2)" link del tb4 || fail "cannot remove the cable h2-h4"
check --hostfile "$T/hosts" --no-measure --dot "$T/partial.dot"
cat "$T/out"
expect_rc 1 "a cable missing"
has "wiring: partial (5 cables between 4 reachable hosts)"
has "problem: h2 and h4 are not connected: plug a cable between them"
[ "$(grep -c '^problem:' "$T/out")" -eq 1 ] || fail "more problems than the missing cable"
has "bolt-cluster: a job cannot run on these hosts as wired"
grep -q '"h2" -- "h4" .*missing' "$T/partial.dot" || fail "--dot does not show the missing cable"

# 4. sshd of h3 down.
kill "$(echo $CL_PIDS | cut -d' ' -f3)" || fail "cannot stop h3's sshd"
sleep 0.2
check --hostfile "$T/hosts" --no-measure
cat "$T/out"
expect_rc 1 "a host unreachable"
grep -E "^problem: h3 is unreachable: cannot reach bolt-hostd on h3: ssh: connect to host [0-9.]+ port 22: Connection refused" "$T/out" >/dev/null ||
    fail "h3's ssh error is not named"
has "h3: UNREACHABLE"
has "hosts (3 of 4 reached):"

# 5. Usage errors.
raw
expect_rc 2 "no command"
raw check
expect_rc 2 "no hosts"
grep -qF "bolt-cluster: check needs the hosts: --hostfile FILE or --host H1,H2,..." "$T/err" || fail "no-hosts message"
printf 'h1\nh2 slots=x\n' >"$T/bad"
raw check --hostfile "$T/bad"
expect_rc 2 "bad hostfile"
grep -qF "$T/bad:2:" "$T/err" || fail "the bad hostfile's line is not named: $(cat "$T/err")"
raw check --hostfile "$T/hosts" --timeout abc
expect_rc 2 "bad timeout"
echo "check: full mesh found, slow cable flagged, missing cable named, unreachable host named"

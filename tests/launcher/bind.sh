#!/bin/sh
# boltrun --bind-to / --map-by / --report-bindings: ranks are bound before
# exec (seen inside the rank in /proc/self/status), bad values get one clear
# line, oversubscribed jobs stay unbound by default, and a build without
# hwloc warns once for --bind-to core and runs unbound.
. "$(dirname "$0")/lib.sh"

host=$(hostname)
topo=$("$TOP_BUILDDIR/bolt-info" --topology) || fail "bolt-info --topology failed"
field() { printf '%s\n' "$topo" | sed -n "s/^$1 *: //p"; }
cores=$(field 'usable here' | sed 's/ core.*//')
source=$(field source)

bad() { # expected-line args...
    line=$1
    shift
    run "$@"
    expect_rc 2 "boltrun $*"
    [ "$(wc -l <"$T/err")" -eq 1 ] || fail "boltrun $*: expected exactly one line on stderr"
    expect_err_line "$line"
}
bad "boltrun: --bind-to expects core, numa or none, got 'socket'" --bind-to socket true
bad "boltrun: --bind-to expects core, numa or none, got ''" --bind-to= true
bad "boltrun: --map-by expects slot, node, core or numa, got 'board'" --map-by board true
bad "boltrun: --bind-to needs a value" --bind-to
bad "boltrun: --report-bindings takes no value" --report-bindings=yes true
BOLT_BIND_TO=socket bad "boltrun: BOLT_BIND_TO expects core, numa or none, got 'socket'" true
BOLT_MAP_BY=board bad "boltrun: BOLT_MAP_BY expects slot, node, core or numa, got 'board'" true

# The rank prints "RANK CPULIST BOLT_LOCAL_CORES" (CPULIST empty off Linux).
SHOW='echo "$BOLT_RANK $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status 2>/dev/null) $BOLT_LOCAL_CORES"'
full=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status 2>/dev/null)
linux=yes
[ -n "$full" ] || linux=no

# --bind-to none: silent, and every rank keeps boltrun's whole set.
run --timeout 20 --bind-to none -np 2 sh -c "$SHOW"
expect_rc 0 "--bind-to none"
[ ! -s "$T/err" ] || fail "--bind-to none wrote to stderr"
[ "$(cut -d' ' -f2 "$T/out" | sort -u)" = "$full" ] || fail "--bind-to none changed the ranks' CPUs"
[ "$(cut -d' ' -f3 "$T/out" | sort -u)" = "$cores" ] || fail "BOLT_LOCAL_CORES is not $cores"

# Oversubscribed (more ranks than cores): unbound by default, and silent.
over=$((cores + 2))
run --timeout 20 --report-bindings -np "$over" sh -c "$SHOW"
expect_rc 0 "default, -np $over"
[ "$(cut -d' ' -f2 "$T/out" | sort -u)" = "$full" ] || fail "-np $over on $cores cores should run unbound"
[ "$(grep -c "^boltrun: rank [0-9]* on $host not bound" "$T/err")" -eq "$over" ] ||
    fail "--report-bindings should report $over unbound ranks"
[ "$(grep -vc '^boltrun: rank ' "$T/err")" -eq 0 ] || fail "default binding, oversubscribed: unexpected stderr"

if [ "${source%% *}" != hwloc ]; then
    echo "SKIP: binding checks (this Bolt was built without hwloc); checking the warning instead"
    run --timeout 20 --bind-to core -np 2 sh -c "$SHOW"
    expect_rc 0 "--bind-to core without hwloc"
    [ "$(wc -l <"$T/err")" -eq 1 ] || fail "--bind-to core without hwloc: expected one warning line"
    grep -q "^boltrun: warning: --bind-to core: this Bolt was built without hwloc.*the ranks run unbound" "$T/err" ||
        fail "--bind-to core without hwloc: warning"
    [ "$(cut -d' ' -f2 "$T/out" | sort -u)" = "$full" ] || fail "without hwloc, the ranks should run unbound"
    run --timeout 20 -np 2 true
    [ ! -s "$T/err" ] || fail "default binding without hwloc should be silent"
    exit 0
fi
if [ "$linux" = no ]; then
    echo "SKIP: binding checks need /proc/self/status (Linux)"
    exit 0
fi
if [ "$cores" -lt 2 ]; then
    echo "SKIP: binding two ranks to distinct cores needs 2 cores ($cores here)"
    exit 0
fi

# Two ranks on distinct cores, as reported, by default and with --bind-to core.
for opt in "" "--bind-to core" "--map-by core" "--map-by numa"; do
    run --timeout 20 --report-bindings $opt -np 2 sh -c "$SHOW"
    expect_rc 0 "$opt -np 2"
    for r in 0 1; do
        set -- $(grep "^$r " "$T/out")
        [ -n "${2:-}" ] || fail "$opt: rank $r printed no CPU list"
        [ "$2" != "$full" ] || fail "$opt: rank $r is not bound ($2)"
        grep -Eqx "boltrun: rank $r on $host bound to core [0-9]+ \\(PUs $2\\)" "$T/err" ||
            fail "$opt: rank $r runs on $2, which the report does not say"
        eval "cpus_$r=\$2"
    done
    [ "$cpus_0" != "$cpus_1" ] || fail "$opt: ranks 0 and 1 share CPUs $cpus_0"
    [ "$(wc -l <"$T/err")" -eq 2 ] || fail "$opt: stderr should hold the 2 report lines only"
done

# --bind-to core with more ranks than cores: one warning, everyone bound.
run --timeout 20 --bind-to core -np "$over" sh -c "$SHOW"
expect_rc 0 "--bind-to core -np $over"
expect_err_line "boltrun: warning: --bind-to core: $over ranks on the $cores cores of $host, so ranks share cores (--bind-to none lets the OS spread them)"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "--bind-to core -np $over: one warning expected"
! cut -d' ' -f2 "$T/out" | grep -qxF "$full" || fail "--bind-to core -np $over: a rank is unbound"

# --bind-to numa: each rank runs on the PUs of one NUMA node.
run --timeout 20 --bind-to numa --report-bindings -np 2 sh -c "$SHOW"
expect_rc 0 "--bind-to numa"
for r in 0 1; do
    set -- $(grep "^$r " "$T/out")
    grep -Eqx "boltrun: rank $r on $host bound to NUMA node [0-9]+ \\(PUs $2\\)" "$T/err" ||
        fail "--bind-to numa: rank $r runs on $2, which the report does not say"
done

# BOLT_BIND_TO gives the default; the option wins over it.
BOLT_BIND_TO=none run --timeout 20 -np 2 sh -c "$SHOW"
[ "$(cut -d' ' -f2 "$T/out" | sort -u)" = "$full" ] || fail "BOLT_BIND_TO=none should leave the ranks unbound"
BOLT_BIND_TO=none run --timeout 20 --bind-to core -np 2 sh -c "$SHOW"
! cut -d' ' -f2 "$T/out" | grep -qxF "$full" || fail "--bind-to core should win over BOLT_BIND_TO=none"

# Under taskset, boltrun places the ranks within its own set.
if command -v taskset >/dev/null 2>&1; then
    first=$(printf '%s\n' "$full" | sed 's/[-,].*//')
    taskset -c "$first" "$BOLTRUN" --timeout 20 --report-bindings -np 1 sh -c "$SHOW" >"$T/out" 2>"$T/err" </dev/null ||
        fail "boltrun under taskset -c $first"
    [ "$(cut -d' ' -f2 "$T/out")" = "$first" ] || fail "under taskset -c $first the rank ran on $(cut -d' ' -f2 "$T/out")"
    [ "$(cut -d' ' -f3 "$T/out")" = 1 ] || fail "under taskset -c $first BOLT_LOCAL_CORES should be 1"
fi
exit 0

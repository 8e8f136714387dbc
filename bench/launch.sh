# bench/launch.sh — sourced by bench/compare and bench/osu-compare: how each
# MPI runs a program over each transport, one run at a time, with its time
# kept and its failure named. The caller sets b (Bolt's build), tmp (a
# scratch folder), limit (seconds a run may take) and mpis ("openmpi mpich").
#   shm: Bolt shm,tcp; Open MPI ob1 with vader; MPICH's default (ch4 shm).
#   tcp: Bolt tcp, one-sided operations as messages too (BOLT_RMA_SHARED=0,
#        as between hosts: else ranks of one host share the window's memory
#        whatever the transport); Open MPI ob1 with tcp over lo; MPICH
#        ch4:ucx forced to tcp over lo with MPIR_CVAR_NOLOCAL=1.
#   One-sided, Open MPI: over shm its default osc (rdma over vader; sm for
#   Win_allocate); over tcp osc/pt2pt, which moves everything through ob1
#   (osc/rdma cannot make a Win_create or dynamic window over the tcp BTL,
#   and would take Win_allocate through shared memory).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
failed=0

# launch WHO TRANSPORT NP PROGRAM ARGS...: runs it (no capture).
launch() {
    l_who=$1 l_t=$2 l_np=$3; shift 3
    case $l_who in
    bolt)
        l_bt=tcp l_rs=0; [ "$l_t" = shm ] && l_bt=shm,tcp l_rs=1
        env BOLT_TRANSPORTS=$l_bt BOLT_RMA_SHARED=$l_rs "$b/boltrun" --timeout "$limit" -np "$l_np" "$@" ;;
    openmpi)
        l_btl=tcp,self l_osc="--mca osc pt2pt"; [ "$l_t" = shm ] && l_btl=vader,self l_osc=
        # shellcheck disable=SC2086
        timeout "$limit" mpirun.openmpi --allow-run-as-root --oversubscribe -np "$l_np" --mca pml ob1 \
            --mca btl "$l_btl" $l_osc --mca btl_tcp_if_include lo "$@" ;;
    mpich)
        if [ "$l_t" = shm ]; then
            timeout "$limit" mpirun.mpich -np "$l_np" "$@"
        else
            env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self UCX_NET_DEVICES=lo timeout "$limit" mpirun.mpich -np "$l_np" "$@"
        fi ;;
    *) echo "launch: unknown MPI '$l_who'" >&2; return 2 ;;
    esac
}

# runs_here WHO NP: whether WHO runs at NP ranks here. MPICH busy-polls
# without yielding: with more ranks than cores a quick run of its collectives
# takes minutes, not a second, so it runs there only with MPICH_OVERSUBSCRIBE=1.
runs_here() {
    [ "$1" != mpich ] || [ "$2" -le "$cores" ] || [ "${MPICH_OVERSUBSCRIBE:-0}" = 1 ]
}
# say_skipped RANKS...: names the rank counts MPICH sits out, once.
say_skipped() {
    case " $mpis " in *" mpich "*) ;; *) return 0 ;; esac
    for s_np in "$@"; do
        runs_here mpich "$s_np" ||
            echo "${0##*/}: MPICH does not run at $s_np ranks on $cores cores (it busy-polls; MPICH_OVERSUBSCRIBE=1 runs it anyway)" >&2
    done
}

# run ROUND WHO WHAT TRANSPORT NP PROGRAM ARGS...: one run, its output in
# $tmp/out; its seconds go to $tmp/times; a failure is named (which MPI,
# what, the end of its output) and returns 1, and the caller goes on.
run() {
    r_r=$1 r_who=$2 r_what=$3 r_t=$4 r_np=$5; shift 5
    r_t0=$(date +%s.%N)
    if launch "$r_who" "$r_t" "$r_np" "$@" >"$tmp/out" 2>&1; then
        echo "$r_who $r_what $r_t ${r_np}r $r_t0 $(date +%s.%N)" >>"$tmp/times"
        return 0
    else
        r_rc=$?
        r_why="exit $r_rc"; [ $r_rc = 124 ] && r_why="timed out after $limit s"
        echo "${0##*/}: round $r_r: $r_who $r_what over $r_t at $r_np ranks failed ($r_why): $*" >&2
        tail -n 5 "$tmp/out" | sed 's/^/    /' >&2
        failed=1
        return 1
    fi
}

# times_report: where the time went (stderr: not part of the report).
times_report() {
    [ -f "$tmp/times" ] || return 0
    echo "${0##*/}: seconds per MPI, benchmark, transport and ranks (all rounds):" >&2
    awk '{ s[$1 " " $2 " " $3 " " $4] += $6 - $5 }
        END { for (k in s) printf "    %-40s %7.1f\n", k, s[k] }' "$tmp/times" | sort >&2
}

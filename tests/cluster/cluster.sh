# cluster.sh — a throw-away cluster of K "hosts" on this machine (sourced).
#
# Each host is a network namespace wired like a Thunderbolt full mesh: one
# veth pair per pair of hosts ("cable" tb<j> in host i goes to host j), each
# pair its own /30, no switch. Each host also has one management link to the
# root namespace (its own /30), over which its sshd listens; hosts have no
# route beyond their /30s, so they cannot reach each other, nor the launcher,
# through it. Every address is in 169.254.0.0/16.
#
# Optionally (cluster_lan), a second path: an Ethernet switch — a bridge in a
# namespace of its own — with every host on it (lan0, 169.254.200.<i>/24),
# so that each pair of hosts shares two subnets, the cable's /30 and the LAN.
#
# sshd runs inside `ip netns exec NS unshare --uts --mount`, with its own
# hostname and a private tmpfs on /dev/shm, so that Bolt sees separate
# machines. Keys (host and client) and configs live in a temp dir.
#
#   cluster_require          exit 77 (SKIP) unless root, netns, veth and sshd work
#   cluster_up [K]           bring up K hosts (default 4): h1..hK
#   cluster_down             tear everything down (also run from the EXIT trap)
#   cluster_ns I             namespace name of host I
#   cluster_bytes I J        bytes host I sent and received on its cable to J
#   cluster_lan              add the LAN (after cluster_up)
#   cluster_lan_addr I       host I's LAN address
#   cluster_lan_bytes I      bytes host I sent and received on the LAN
#   cluster_procs_matching P processes in any host's namespace whose args match P
#
# After cluster_up: CL (temp dir), CL_K, CL_HOSTS (h1,h2,...), BOLT_RSH
# (ssh with the cluster's config; exported).

CL=""
CL_K=0
CL_SLOT=""
CL_PIDS=""

cluster_skip() {
    echo "SKIP: $*"
    exit 77
}

cluster_require() {
    [ "$(id -u)" -eq 0 ] || cluster_skip "the cluster tests need root (network namespaces)"
    command -v ip >/dev/null 2>&1 || cluster_skip "no 'ip' command (iproute2)"
    command -v unshare >/dev/null 2>&1 || cluster_skip "no 'unshare' command (util-linux)"
    command -v ssh >/dev/null 2>&1 || cluster_skip "no ssh client (openssh-client)"
    SSHD=$(command -v sshd 2>/dev/null || echo /usr/sbin/sshd)
    [ -x "$SSHD" ] || cluster_skip "no sshd (install openssh-server; scripts/deps does)"
    probe="boltprobe$$"
    ip netns add "$probe" 2>/dev/null || cluster_skip "cannot create a network namespace here"
    ok=1
    ip netns exec "$probe" unshare --uts --mount true 2>/dev/null || ok=0
    ip link add "${probe}a" type veth peer name "${probe}b" 2>/dev/null || ok=0
    ip link del "${probe}a" 2>/dev/null
    ip netns del "$probe" 2>/dev/null
    [ $ok = 1 ] || cluster_skip "cannot create veth pairs or UTS/mount namespaces here"
}

# A slot number unique among the clusters on this machine (names and
# addresses derive from it). A slot whose owner died is taken over.
cluster_slot() {
    local n d owner
    for n in $(seq 0 39); do
        d=/tmp/bolt-cluster-slot.$n
        if mkdir "$d" 2>/dev/null; then
            echo $$ >"$d/pid"
            CL_SLOT=$n
            return 0
        fi
        owner=$(cat "$d/pid" 2>/dev/null || echo "")
        if [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null; then
            cluster_down_slot "$n"
            rm -rf "$d"
            if mkdir "$d" 2>/dev/null; then
                echo $$ >"$d/pid"
                CL_SLOT=$n
                return 0
            fi
        fi
    done
    return 1
}

cluster_ns() { echo "bc${CL_SLOT}h$1"; }

# Third octets: mesh links in 169.254.(100 + 2 * slot).0/24, management
# links in the next /24.
cluster_mesh_net() { echo "169.254.$((100 + 2 * CL_SLOT))"; }
cluster_mgmt_net() { echo "169.254.$((101 + 2 * CL_SLOT))"; }
cluster_mgmt_addr() { echo "$(cluster_mgmt_net).$((4 * $1 + 2))"; }

# Index of the /30 of the cable between hosts i < j.
cluster_pair_index() {
    local pi=$1 pj=$2 k=0 a b
    for a in $(seq 1 "$CL_K"); do
        for b in $(seq $((a + 1)) "$CL_K"); do
            if [ "$a" -eq "$pi" ] && [ "$b" -eq "$pj" ]; then echo $k; return; fi
            k=$((k + 1))
        done
    done
}

# Mesh address of host i on its cable to j.
cluster_mesh_addr() {
    local mi=$1 mj=$2 mk
    if [ "$mi" -lt "$mj" ]; then mk=$(cluster_pair_index "$mi" "$mj"); echo "$(cluster_mesh_net).$((4 * mk + 1))"
    else mk=$(cluster_pair_index "$mj" "$mi"); echo "$(cluster_mesh_net).$((4 * mk + 2))"; fi
}

cluster_down_slot() {
    local s=$1 ns p l
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^bc${s}h"); do
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null
    done
    for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep "^bc${s}m"); do
        ip link del "$l" 2>/dev/null
    done
}

cluster_down() {
    [ -n "$CL_SLOT" ] || return 0
    for p in $CL_PIDS; do kill -9 "$p" 2>/dev/null; done
    cluster_down_slot "$CL_SLOT"
    [ -n "$CL" ] && rm -rf "$CL"
    rm -rf "/tmp/bolt-cluster-slot.$CL_SLOT"
    CL_SLOT=""
}

cluster_up() {
    CL_K=${1:-4}
    cluster_slot || cluster_skip "no free cluster slot (40 clusters up?)"
    CL=$(mktemp -d /tmp/bolt-cluster.XXXXXX)
    trap 'cluster_down' EXIT
    trap 'exit 130' INT TERM
    mkdir -p /run/sshd
    ssh-keygen -q -t ed25519 -N "" -f "$CL/host_key" >/dev/null
    ssh-keygen -q -t ed25519 -N "" -f "$CL/id" >/dev/null
    cp "$CL/id.pub" "$CL/authorized_keys"
    chmod 600 "$CL/authorized_keys" "$CL/id" "$CL/host_key"
    {
        echo "Host *"
        echo "  User root"
        echo "  IdentityFile $CL/id"
        echo "  IdentitiesOnly yes"
        echo "  UserKnownHostsFile /dev/null"
        echo "  GlobalKnownHostsFile /dev/null"
        echo "  StrictHostKeyChecking no"
        echo "  BatchMode yes"
        echo "  LogLevel ERROR"
        echo "  ConnectTimeout 5"
        echo "  ControlMaster no"
    } >"$CL/ssh_config.tail"
    : >"$CL/ssh_config.head"
    mesh=$(cluster_mesh_net) mgmt=$(cluster_mgmt_net)
    for i in $(seq 1 "$CL_K"); do
        ns=$(cluster_ns "$i")
        ip netns add "$ns" || return 1
        ip -n "$ns" link set lo up
        # Management link: root side bc<slot>m<i>, host side mgmt0.
        ip link add "bc${CL_SLOT}m$i" type veth peer name mgmt0 netns "$ns" || return 1
        ip addr add "$mgmt.$((4 * i + 1))/30" dev "bc${CL_SLOT}m$i"
        ip link set "bc${CL_SLOT}m$i" up
        ip -n "$ns" addr add "$(cluster_mgmt_addr "$i")/30" dev mgmt0
        ip -n "$ns" link set mgmt0 up
        printf 'Host h%s\n  HostName %s\n' "$i" "$(cluster_mgmt_addr "$i")" >>"$CL/ssh_config.head"
    done
    for i in $(seq 1 "$CL_K"); do
        for j in $(seq $((i + 1)) "$CL_K"); do
            ip link add "tb$j" netns "$(cluster_ns "$i")" type veth peer name "tb$i" netns "$(cluster_ns "$j")" || return 1
            ip -n "$(cluster_ns "$i")" addr add "$(cluster_mesh_addr "$i" "$j")/30" dev "tb$j"
            ip -n "$(cluster_ns "$j")" addr add "$(cluster_mesh_addr "$j" "$i")/30" dev "tb$i"
            ip -n "$(cluster_ns "$i")" link set "tb$j" up
            ip -n "$(cluster_ns "$j")" link set "tb$i" up
        done
    done
    cat "$CL/ssh_config.head" "$CL/ssh_config.tail" >"$CL/ssh_config"
    for i in $(seq 1 "$CL_K"); do
        {
            echo "ListenAddress $(cluster_mgmt_addr "$i")"
            echo "HostKey $CL/host_key"
            echo "PidFile $CL/sshd$i.pid"
            echo "AuthorizedKeysFile $CL/authorized_keys"
            echo "PermitRootLogin prohibit-password"
            echo "PasswordAuthentication no"
            echo "KbdInteractiveAuthentication no"
            echo "UsePAM no"
            echo "UseDNS no"
            echo "StrictModes no"
            echo "MaxStartups 200"
            echo "MaxSessions 200"
            echo "LogLevel ERROR"
        } >"$CL/sshd$i.conf"
        # Own hostname and own /dev/shm; sshd stays in the foreground (-D) as
        # the namespace's anchor, its pid recorded for the teardown. The
        # login shell's rc files are hidden in the host's mount namespace:
        # bash reads ~/.bashrc for every ssh command, and a slow one (pyenv,
        # conda) would cost seconds per connection.
        hide=""
        for rc in "$HOME/.bashrc" "$HOME/.bash_profile" "$HOME/.profile"; do
            [ -f "$rc" ] && hide="$hide mount --bind /dev/null $rc &&"
        done
        ip netns exec "$(cluster_ns "$i")" unshare --uts --mount sh -c \
            "hostname h$i && mount -t tmpfs -o mode=1777,size=256m tmpfs /dev/shm && $hide exec $SSHD -D -e -f $CL/sshd$i.conf" \
            >"$CL/sshd$i.log" 2>&1 &
        CL_PIDS="$CL_PIDS $!"
    done
    BOLT_RSH="ssh -F $CL/ssh_config"
    export BOLT_RSH
    CL_HOSTS=$(seq 1 "$CL_K" | sed 's/^/h/' | paste -sd, -)
    # sshd is up once it answers.
    for i in $(seq 1 "$CL_K"); do
        n=0
        until ssh -F "$CL/ssh_config" -o ConnectTimeout=1 "h$i" true 2>/dev/null; do
            n=$((n + 1))
            if [ $n -gt 50 ]; then
                echo "cluster: sshd of h$i did not come up:" >&2
                cat "$CL/sshd$i.log" >&2
                return 1
            fi
            sleep 0.1
        done
    done
    return 0
}

# The switch's namespace ("bc<slot>h..." like the hosts', so that
# cluster_down_slot removes it with them, even after a crash).
cluster_lan_ns() { echo "bc${CL_SLOT}hlan"; }
cluster_lan_addr() { echo "169.254.200.$1"; }

cluster_lan() {
    local sw i
    sw=$(cluster_lan_ns)
    ip netns add "$sw" || return 1
    ip -n "$sw" link set lo up
    ip -n "$sw" link add br0 type bridge || return 1
    ip -n "$sw" link set br0 up
    for i in $(seq 1 "$CL_K"); do
        ip link add lan0 netns "$(cluster_ns "$i")" type veth peer name "p$i" netns "$sw" || return 1
        ip -n "$sw" link set "p$i" master br0 || return 1
        ip -n "$sw" link set "p$i" up
        ip -n "$(cluster_ns "$i")" addr add "$(cluster_lan_addr "$i")/24" dev lan0
        ip -n "$(cluster_ns "$i")" link set lan0 up
    done
    return 0
}

# "TX RX" bytes of host i's LAN port.
cluster_lan_bytes() {
    ip netns exec "$(cluster_ns "$1")" sh -c "cat /sys/class/net/lan0/statistics/tx_bytes /sys/class/net/lan0/statistics/rx_bytes" | paste -sd' ' -
}

# "TX RX" bytes of host i's cable to host j.
cluster_bytes() {
    ip netns exec "$(cluster_ns "$1")" sh -c "cat /sys/class/net/tb$2/statistics/tx_bytes /sys/class/net/tb$2/statistics/rx_bytes" | paste -sd' ' -
}

# Pids (one per line) of processes inside the cluster's namespaces whose
# command line contains $1.
cluster_procs_matching() {
    for i in $(seq 1 "$CL_K"); do
        for p in $(ip netns pids "$(cluster_ns "$i")" 2>/dev/null); do
            { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -qF -- "$1" && echo "$p"
        done
    done
    return 0
}

# Files left in any host's /dev/shm (one "hI: name" per line).
cluster_shm_files() {
    for i in $(seq 1 "$CL_K"); do
        ssh -F "$CL/ssh_config" "h$i" 'ls -A /dev/shm' 2>/dev/null | sed "s/^/h$i: /"
    done
}

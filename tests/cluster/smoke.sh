#!/bin/sh
# smoke.sh — the cluster itself: ssh reaches every host, each host has its
# own hostname and /dev/shm, cables carry traffic between their two hosts
# only, and the management links do not connect hosts to each other.
. "$(dirname "$0")/lib.sh"

for i in $(seq 1 "$CL_K"); do
    name=$(ssh -F "$CL/ssh_config" "h$i" hostname) || fail "ssh into h$i failed"
    [ "$name" = "h$i" ] || fail "h$i calls itself '$name'"
done
ssh -F "$CL/ssh_config" h1 'touch /dev/shm/bolt-smoke' || fail "cannot write h1's /dev/shm"
ssh -F "$CL/ssh_config" h2 'test ! -e /dev/shm/bolt-smoke' || fail "h2 sees h1's /dev/shm"
ssh -F "$CL/ssh_config" h1 'rm -f /dev/shm/bolt-smoke'
# h1 reaches h2 over their cable (a TCP connect to sshd's closed port there is
# refused at once, which is an answer), and h2's management address not at all.
ip netns exec "$(cluster_ns 1)" ip route get "$(cluster_mesh_addr 2 1)" | grep -q "dev tb2" ||
    fail "h1 does not route h2's cable address over tb2"
ip netns exec "$(cluster_ns 1)" bash -c "exec 3<>/dev/tcp/$(cluster_mesh_addr 2 1)/22" 2>/dev/null
if ip netns exec "$(cluster_ns 1)" ip route get "$(cluster_mgmt_addr 2)" >/dev/null 2>&1; then
    fail "h1 has a route to h2's management address: the management links must not join hosts"
fi
set -- $(cluster_bytes 1 2)
[ "$1" -gt 0 ] || fail "no bytes counted on h1's cable to h2"
echo "cluster of $CL_K hosts: ssh, hostnames, /dev/shm, cables OK"

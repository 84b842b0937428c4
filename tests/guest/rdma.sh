#!/bin/bash
# Runs inside the test VM (as root): what the software RDMA devices of the
# test kernels do, checked before kfi_verbs relies on it (issue 16,
# increment V0 of Documentation/verbs-plan.md). Userspace only: rdma_rxe
# and siw devices on veth pairs between two network namespaces, the real
# fi_info and fi_pingpong (libfabric 1.17 verbs provider) over them.
#   rdma.sh
# Prints one "KFI-RESULT PASS|FAIL rdma_<name>" line per check and
# "KFI-FIGURE" lines with the fabric names the verbs provider gives.
#
# Layout: namespace "here" (the guest's own) and "kfirdma"; veth kra/krb
# (10.97.0.1/.2) has an rxe device at each end, veth ksa/ksb
# (10.96.0.1/.2) a siw device at each end. The RDMA subsystem's namespace
# mode is shared (the default): every namespace sees every device; rdma_cm
# picks the device by the address it resolves in the caller's namespace.
#
# Found here (Linux 6.12): siw connects across the namespaces; rxe does
# not (rdma_cm times out): rxe opens its RoCE v2 UDP socket and routes in
# the initial namespace only, so a device whose netdev is elsewhere never
# receives. rxe is used by one device to its own address (loopback), siw
# both ways. fi_info lists a device only in the namespace of its netdev.
set -u
peer_ns=kfirdma
in_peer() { nsenter --net=/run/netns/$peer_ns "$@"; }
log=/tmp/rdma-check.log

result() { # result NAME CMD...
	local name=$1
	shift
	echo "KFI-STEP rdma_$name $(cut -d' ' -f1 /proc/uptime)"
	if "$@" >$log 2>&1; then
		echo "KFI-RESULT PASS rdma_$name"
	else
		echo "KFI-RESULT FAIL rdma_$name"
	fi
	sed 's/^/    /' $log | tail -30
}

# pair A B IP_A IP_B: veth A (here) and B (peer namespace) with addresses
pair() {
	ip link add "$1" type veth peer name "$2" || return 1
	ip link set "$2" netns $peer_ns || return 1
	ip addr add "$3/24" dev "$1" && ip link set "$1" up || return 1
	in_peer ip addr add "$4/24" dev "$2" && in_peer ip link set "$2" up
}

setup() {
	mkdir -p /run/netns
	ip netns add $peer_ns || return 1
	ip link set lo up
	in_peer ip link set lo up || return 1
	pair kra krb 10.97.0.1 10.97.0.2 || return 1
	pair ksa ksb 10.96.0.1 10.96.0.2 || return 1
	rdma link add rxe_a type rxe netdev kra || return 1
	in_peer rdma link add rxe_b type rxe netdev krb || return 1
	rdma link add siw_a type siw netdev ksa || return 1
	in_peer rdma link add siw_b type siw netdev ksb || return 1
	rdma link show
	ibv_devices
}

# The verbs provider lists each device (domain names) and the fabric
# names it gives them: what kfi_verbs's getinfo has to match.
listing() {
	local out ns d
	for ns in here peer; do
		if [ $ns = here ]; then
			out=$(fi_info -p verbs -v 2>&1) || { echo "$out"; return 1; }
			set -- rxe_a siw_a
		else
			out=$(in_peer fi_info -p verbs -v 2>&1) || { echo "$out"; return 1; }
			set -- rxe_b siw_b
		fi
		echo "$ns:"
		echo "$out" | grep -E '^ *(name|prov_name|type|protocol):' |
			sort | uniq -c
		for d in "$@"; do
			echo "$out" | grep -q "name: $d\$" ||
				{ echo "no domain $d in $ns"; return 1; }
		done
	done
	# the fabric names of MSG endpoints (kfi_verbs matches them)
	out=$(fi_info -p verbs -t FI_EP_MSG -d rxe_a -v 2>&1)
	echo "KFI-FIGURE rdma_fabric_rxe $(echo "$out" |
		awk '/fabric_attr:/ { f = 1 } f && /^ *name:/ { print $2; exit }')" >&3
	out=$(in_peer fi_info -p verbs -t FI_EP_MSG -d siw_b -v 2>&1)
	echo "KFI-FIGURE rdma_fabric_siw $(echo "$out" |
		awk '/fabric_attr:/ { f = 1 } f && /^ *name:/ { print $2; exit }')" >&3
}

# pingpong NS DOMAIN SRV: the real fi_pingpong (libfabric 1.17 verbs
# provider, message endpoints, every size of its list up to 6 MiB, 4
# iterations each,
# data checked) with its server on DOMAIN in namespace NS ("peer" or
# "here") and its client here on the device that reaches SRV. The control
# connection (TCP, port 47592) goes to SRV too.
pingpong() {
	local ns=$1 dom=$2 srv=$3 spid rc
	local args=(-p verbs -e msg -I 4 -S all -c)
	if [ "$ns" = here ]; then
		timeout -k 5 120 fi_pingpong "${args[@]}" -d "$dom" &
	else
		timeout -k 5 120 nsenter --net=/run/netns/$peer_ns \
			fi_pingpong "${args[@]}" -d "$dom" &
	fi
	spid=$!
	# until the server listens on its control port
	for _ in $(seq 50); do
		if [ "$ns" = here ]; then
			ss -ltn | grep -q ':47592 ' && break
		else
			in_peer ss -ltn | grep -q ':47592 ' && break
		fi
		sleep 0.2
	done
	timeout 100 fi_pingpong "${args[@]}" "$srv"
	rc=$?
	wait $spid || rc=1
	return $rc
}

teardown() {
	local rc=0
	rdma link delete rxe_a || rc=1
	in_peer rdma link delete rxe_b || rc=1
	rdma link delete siw_a || rc=1
	in_peer rdma link delete siw_b || rc=1
	ip link del kra || rc=1
	ip link del ksa || rc=1
	ip netns del $peer_ns || rc=1
	return $rc
}

exec 3>&1
result setup setup
result verbs_listing listing
result siw_pair_pingpong pingpong peer siw_b 10.96.0.2
result rxe_loopback_pingpong pingpong here rxe_a 10.97.0.1
result siw_loopback_pingpong pingpong here siw_a 10.96.0.1
result teardown teardown

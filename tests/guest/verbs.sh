#!/bin/bash
# Runs inside the test VM (as root): the software RDMA devices kfi_verbs'
# tests run on, in the guest's own network namespace.
#   verbs.sh setup      veth pair kva/kvb (10.95.0.1/24, 10.95.0.2/24), an
#                       rxe device kv_rxe on kva and a siw device kv_siw on kvb
#   verbs.sh teardown   removes them (kv_rxe may be gone already)
# The names and addresses are also in tests/guest/run.sh (module
# parameters of the verbs suites).
set -u
case ${1:-} in
setup)
	ip link add kva type veth peer name kvb || exit 1
	ip addr add 10.95.0.1/24 dev kva || exit 1
	ip addr add 10.95.0.2/24 dev kvb || exit 1
	ip link set kva up && ip link set kvb up || exit 1
	rdma link add kv_rxe type rxe netdev kva || exit 1
	rdma link add kv_siw type siw netdev kvb || exit 1
	rdma link show
	;;
teardown)
	rc=0
	if rdma link show kv_rxe/1 >/dev/null 2>&1; then
		rdma link delete kv_rxe || rc=1
	fi
	rdma link delete kv_siw || rc=1
	ip link del kva || rc=1
	exit $rc
	;;
*)
	echo "usage: verbs.sh setup|teardown" >&2
	exit 2
	;;
esac

#!/bin/bash
# Runs inside the test VM (as root), from tests/guest/run.sh's verbs step
# (kfi_verbs.ko loaded, tests/guest/verbs.sh's devices up): kfi_pingpong
# over the verbs provider, kernel to kernel and against the real
# fi_pingpong (libfabric 1.17, -p verbs -e msg), on the rxe device kv_rxe
# (10.95.0.1), and a kernel pair on the siw device kv_siw (10.95.0.2):
# fi_pingpong's default sizes (64 B to 1 MiB), data checked; tagged pairs
# (the soft mode) on both devices, and a soft-mode client refused by
# fi_pingpong; and the raw ib_verbs baseline (ibv_pingpong.ko) kernel to
# kernel on both devices.
#   verbs.sh KODIR [ITERS]
# Prints one "KFI-RESULT PASS|FAIL pp_verbs_<name>" line per check and
# unloads kfi_pingpong again.
set -u
ko=${1:?module directory}
iters=${2:-20}
dbg=/sys/kernel/debug/kfi_pingpong
node=10.95.0.1
node_siw=10.95.0.2

mount -t debugfs none /sys/kernel/debug 2>/dev/null
result() { # result NAME CONDITION...
	local name=$1
	shift
	if "$@"; then echo "KFI-RESULT PASS pp_verbs_$name"; else echo "KFI-RESULT FAIL pp_verbs_$name"; fi
}
pp() { # pp OUTFILE ARGS...: one session, its status in OUTFILE
	local out=$1
	shift
	(echo "$*" >$dbg/run) >"$out" 2>&1
	echo "rc=$?" >>"$out"
}
wait_listen() { # until a server listens on the control port (10 s)
	for _ in $(seq 50); do
		ss -ltn | grep -q ':47592 ' && return
		sleep 0.2
	done
}
show() { # show FILE...: the output of the sides that failed
	local f
	for f in "$@"; do
		grep -q '^rc=0$' "$f" 2>/dev/null || echo "    $(basename "$f"): $(tr '\n' ' ' <"$f")"
	done
}

insmod "$ko/kfi_pingpong.ko" || { result insmod false; exit 1; }

# kernel to kernel: both ends on kv_rxe
pp /tmp/pv.s "role=server prov=verbs addr=$node verify=1 iters=$iters" &
sleep 0.5
pp /tmp/pv.c "role=client prov=verbs addr=$node verify=1 iters=$iters"
wait
result kernel_pair bash -c "grep -q '^rc=0$' /tmp/pv.s && grep -q '^rc=0$' /tmp/pv.c"
show /tmp/pv.s /tmp/pv.c
echo "--- last:"
cat $dbg/last
# the same on the siw device kv_siw (the client's entry is the one whose
# device reaches the server's address)
pp /tmp/pw.s "role=server prov=verbs addr=$node_siw verify=1 iters=$iters" &
sleep 0.5
pp /tmp/pw.c "role=client prov=verbs addr=$node_siw verify=1 iters=$iters"
wait
result kernel_pair_siw bash -c "grep -q '^rc=0$' /tmp/pw.s && grep -q '^rc=0$' /tmp/pw.c"
show /tmp/pw.s /tmp/pw.c

# tagged messages (the KFI_TAGGED hint picks the soft mode's entry),
# kernel to kernel on kv_rxe and on kv_siw
for n in "$node" "$node_siw"; do
	pp /tmp/pt.s "role=server prov=verbs addr=$n tagged=1 verify=1 iters=$iters" &
	sleep 0.5
	pp /tmp/pt.c "role=client prov=verbs addr=$n tagged=1 verify=1 iters=$iters"
	wait
	name=tagged_pair
	[ "$n" = "$node_siw" ] && name=tagged_pair_siw
	result $name bash -c "grep -q '^rc=0$' /tmp/pt.s && grep -q '^rc=0$' /tmp/pt.c"
	show /tmp/pt.s /tmp/pt.c
done

# RDM endpoints (rxm over RC: eager up to 16 KiB, segmented above),
# kernel to kernel on kv_rxe, untagged and tagged
rdm_sizes="sizes=0,1,64,4096,16384,16385,65536,1048576"
for t in 0 1; do
	pp /tmp/pr.s "role=server prov=verbs ep=rdm addr=$node tagged=$t verify=1 $rdm_sizes iters=$iters" &
	sleep 0.5
	pp /tmp/pr.c "role=client prov=verbs ep=rdm addr=$node tagged=$t verify=1 $rdm_sizes iters=$iters"
	wait
	name=rdm_pair
	[ $t = 1 ] && name=rdm_tagged_pair
	result $name bash -c "grep -q '^rc=0$' /tmp/pr.s && grep -q '^rc=0$' /tmp/pr.c"
	show /tmp/pr.s /tmp/pr.c
done

if command -v fi_pingpong >/dev/null; then
	# RDM against fi_pingpong -p "verbs;ofi_rxm" -e rdm (one size per
	# run, data checked), both roles, untagged and tagged: eager, and
	# segmented (SAR) both ways; at 1 MiB libfabric sends rendezvous
	# requests (over 128 KiB), which the kernel reads (RDMA READ) and
	# answers, and takes the kernel's 64 segments. FI_UNIVERSE_SIZE: rxm
	# sizes its CQ as (tx + rx) x universe (1024 by default), more than
	# rxe's largest CQ.
	for sz in 64 16384 65536 1048576; do
		for t in 0 1; do
			m=""
			[ $t = 1 ] && m="-m tagged"
			tag=""
			[ $t = 1 ] && tag=tagged_
			pp /tmp/prf.s "role=server prov=verbs ep=rdm addr=$node tagged=$t verify=1 sizes=$sz iters=$iters" &
			wait_listen
			FI_UNIVERSE_SIZE=32 FI_VERBS_IFACE=kva timeout 120 fi_pingpong -p "verbs;ofi_rxm" -e rdm $m -c -S $sz -I "$iters" "$node" >/tmp/prf.f 2>&1
			frc=$?
			wait
			result fi_pp_rdm_${tag}client_$sz bash -c "grep -q '^rc=0$' /tmp/prf.s && [ $frc = 0 ]"
			[ $frc = 0 ] || sed 's/^/      /' /tmp/prf.f
			show /tmp/prf.s
			FI_UNIVERSE_SIZE=32 FI_VERBS_IFACE=kva timeout 120 fi_pingpong -p "verbs;ofi_rxm" -e rdm $m -c -S $sz -I "$iters" -d kv_rxe >/tmp/prc.f 2>&1 &
			fpid=$!
			wait_listen
			pp /tmp/prc.c "role=client prov=verbs ep=rdm addr=$node tagged=$t verify=1 sizes=$sz iters=$iters"
			wait $fpid
			frc=$?
			result fi_pp_rdm_${tag}server_$sz bash -c "grep -q '^rc=0$' /tmp/prc.c && [ $frc = 0 ]"
			[ $frc = 0 ] || sed 's/^/      /' /tmp/prc.f
			show /tmp/prc.c
		done
	done

	# a soft-mode client (tagged) cannot talk to libfabric: fi_pingpong
	# accepts it in its own (direct) mode, the kernel says EPROTO
	timeout 60 fi_pingpong -p verbs -e msg -I 2 -d kv_rxe >/tmp/pm.f 2>&1 &
	fpid=$!
	wait_listen
	pp /tmp/pm.c "role=client prov=verbs addr=$node tagged=1 iters=2"
	wait $fpid
	result soft_vs_libfabric grep -q 'Protocol error' /tmp/pm.c
	cat /tmp/pm.c | sed 's/^/    /'

	# the kernel serves, fi_pingpong (-c: data checked) connects
	pp /tmp/pf.s "role=server prov=verbs addr=$node verify=1 iters=$iters" &
	wait_listen
	timeout 120 fi_pingpong -p verbs -e msg -c -I "$iters" "$node" >/tmp/pf.f 2>&1
	frc=$?
	wait
	result fi_pp_client bash -c "grep -q '^rc=0$' /tmp/pf.s && [ $frc = 0 ]"
	echo "    fi_pingpong (rc=$frc):"
	sed 's/^/      /' /tmp/pf.f
	show /tmp/pf.s
	# fi_pingpong serves on kv_rxe, the kernel connects
	timeout 120 fi_pingpong -p verbs -e msg -c -I "$iters" -d kv_rxe >/tmp/pc.f 2>&1 &
	fpid=$!
	wait_listen
	pp /tmp/pc.c "role=client prov=verbs addr=$node verify=1 iters=$iters"
	wait $fpid
	frc=$?
	result fi_pp_server bash -c "grep -q '^rc=0$' /tmp/pc.c && [ $frc = 0 ]"
	echo "    fi_pingpong (rc=$frc):"
	sed 's/^/      /' /tmp/pc.f
	show /tmp/pc.c
fi
rmmod kfi_pingpong

# the benchmark's baseline: the same exchange over a raw RC queue pair
# (ibv_pingpong.ko, transport=ibv), both ends on kv_rxe, then on kv_siw
dbg=/sys/kernel/debug/ibv_pingpong
if insmod "$ko/ibv_pingpong.ko"; then
	for n in "$node" "$node_siw"; do
		pp /tmp/pi.s "role=server transport=ibv addr=$n verify=1 iters=$iters" &
		sleep 0.5
		pp /tmp/pi.c "role=client transport=ibv addr=$n verify=1 iters=$iters"
		wait
		name=ibv_pair
		[ "$n" = "$node_siw" ] && name=ibv_pair_siw
		result $name bash -c "grep -q '^rc=0$' /tmp/pi.s && grep -q '^rc=0$' /tmp/pi.c"
		show /tmp/pi.s /tmp/pi.c
	done
	echo "--- last:"
	cat $dbg/last
	rmmod ibv_pingpong
else
	result ibv_pair false
	result ibv_pair_siw false
fi

#!/bin/bash
# Runs inside the test VM (as root, host filesystem shared read-only).
#   run.sh check KODIR [LOG]   KUnit suites + integration checks
#   run.sh demo KODIR           the listing
# KODIR holds the built modules (copied there by the host scripts). With
# LOG, everything is appended to that file (in a writable shared
# directory) as it happens, with a KFI-STEP line before each step.
# Prints results between markers that scripts/check.sh parses:
#   "KFI-RESULT PASS|FAIL <name>" for each integration check,
#   the KTAP of each KUnit suite between "KFI-KTAP-BEGIN/END",
#   the guest's dmesg between "KFI-DMESG-BEGIN/END",
#   "KFI-FIGURE <name> <value>" for figures a test measured.
# tests/guest/expected lists every check and suite; scripts/check.sh fails
# a run in which one is missing.
set -u
mode=${1:-check}
ko=${2:?module directory}
if [ -n "${3:-}" ]; then
	exec >>"$3" 2>&1
fi
step() { echo "KFI-STEP $* $(cut -d' ' -f1 /proc/uptime)"; }
core=$ko/kfabric.ko
tcp=$ko/kfi_tcp.ko
kunit=$ko/kfabric_kunit.ko
tcp_kunit=$ko/kfi_tcp_kunit.ko
prov_kunit=$ko/kfi_prov_kunit.ko
verbs=$ko/kfi_verbs.ko
verbs_kunit=$ko/kfi_verbs_kunit.ko
kfilnd_kunit=$ko/kfi_kfilnd_kunit.ko
consumer=$ko/kfi_consumer.ko

mount -t debugfs none /sys/kernel/debug 2>/dev/null
dmesg -n 1 2>/dev/null
ip link set lo up
# The tests' fixed ports (fi_pingpong's 47592, the hostile sinks' 477xx)
# lie in the ephemeral range: keep outgoing connections off them, or a
# lingering one makes a later listen fail with EADDRINUSE.
echo 47000-47999 >/proc/sys/net/ipv4/ip_local_reserved_ports

result() { # result NAME CMD...
	local name=$1
	shift
	step "$name"
	if "$@" >/tmp/kfi-check.log 2>&1; then
		echo "KFI-RESULT PASS $name"
	else
		echo "KFI-RESULT FAIL $name"
		sed 's/^/    /' /tmp/kfi-check.log | tail -40
	fi
}

# Loads a KUnit module (its suites run at load), prints the KTAP of the
# suites it added, and unloads it (which removes their debugfs results).
kunit_module() { # kunit_module KO [PARAM=VALUE...]
	local before after s
	step "kunit $(basename "$1")"
	before=$(ls /sys/kernel/debug/kunit/)
	insmod "$@" || { echo "KFI-RESULT FAIL insmod_$(basename "$1")"; return; }
	after=$(ls /sys/kernel/debug/kunit/)
	for s in $after; do
		grep -qx "$s" <<<"$before" && continue
		echo "KFI-KTAP-BEGIN $s"
		cat "/sys/kernel/debug/kunit/$s/results"
		echo "KFI-KTAP-END $s"
	done
	rmmod "$(basename "$1" .ko)"
}

listing() {
	echo "--- loaded: $(lsmod | awk '$1 ~ /^(kfabric|kfi_)/ { printf "%s ", $1 }')"
	echo "--- /sys/kernel/debug/kfabric/info ---"
	cat /sys/kernel/debug/kfabric/info
}

load_unload_loop() {
	local i n=50
	# the debug kernel takes ~2 s a cycle (KASAN, lockdep): fewer there,
	# still enough for kmemleak and the object debugging to see a leak
	[ -e /sys/kernel/debug/kmemleak ] && n=10
	for i in $(seq 1 $n); do
		insmod "$core" || { echo "iteration $i: insmod kfabric"; return 1; }
		insmod "$consumer" || { echo "iteration $i: insmod consumer"; return 1; }
		# the consumer pins the core: unloading it first must fail
		if rmmod kfabric 2>/dev/null; then echo "iteration $i: core unloaded under consumer"; return 1; fi
		rmmod kfi_consumer || { echo "iteration $i: rmmod consumer"; return 1; }
		rmmod kfabric || { echo "iteration $i: rmmod kfabric"; return 1; }
	done
	echo "$n load/unload cycles"
}

# Injected allocation failures (tests/faults): only on a kernel with fault
# injection (the debug one). failslab must reach sleeping allocations
# (fail-nth counts only those it may fail) and log nothing (each failure
# would print a stack trace); fail_page_alloc likewise when present. The
# settings are restored afterwards.
fault_sweep() {
	local fs=/sys/kernel/debug/failslab fp=/sys/kernel/debug/fail_page_alloc
	local s_wait s_verbose p_wait p_high p_order p_verbose
	s_wait=$(cat $fs/ignore-gfp-wait)
	s_verbose=$(cat $fs/verbose)
	echo N >$fs/ignore-gfp-wait
	echo 0 >$fs/verbose
	if [ -e $fp ]; then
		p_wait=$(cat $fp/ignore-gfp-wait)
		p_high=$(cat $fp/ignore-gfp-highmem)
		p_order=$(cat $fp/min-order)
		p_verbose=$(cat $fp/verbose)
		echo N >$fp/ignore-gfp-wait
		echo N >$fp/ignore-gfp-highmem
		echo 0 >$fp/min-order
		echo 0 >$fp/verbose
	fi
	kunit_module "$ko/kfi_fault_kunit.ko"
	dmesg | grep -o 'kfi_fault: [0-9]* injected failures survived' | tail -1 |
		awk '{ print "KFI-FIGURE fault_injected_failures_survived", $2 }'
	echo "$s_wait" >$fs/ignore-gfp-wait
	echo "$s_verbose" >$fs/verbose
	if [ -e $fp ]; then
		echo "$p_wait" >$fp/ignore-gfp-wait
		echo "$p_high" >$fp/ignore-gfp-highmem
		echo "$p_order" >$fp/min-order
		echo "$p_verbose" >$fp/verbose
	fi
}

debugfs_empty_listing() {
	insmod "$core" || return 1
	local out
	out=$(cat /sys/kernel/debug/kfabric/info)
	rmmod kfabric || return 1
	echo "$out"
	[ "$out" = "# no entries" ]
}

compat_module_loads() {
	# every header and wrapper compiled; its provider registers and goes
	insmod "$core" || return 1
	insmod "$ko/kfi_compat.ko" || { rmmod kfabric; return 1; }
	grep -q 'provider "test" registered' <(dmesg) || { echo "no registration"; return 1; }
	rmmod kfi_compat && rmmod kfabric
}

tcp_listing_shows_lo() {
	local out
	out=$(cat /sys/kernel/debug/kfabric/info)
	grep -q 'prov_name: tcp' <<<"$out" && grep -q 'name: lo' <<<"$out" &&
		grep -q 'name: 127.0.0.0/8' <<<"$out"
}

# The modules DKMS built and installed on the host (scripts/install-check.sh,
# base kernel only) and a consumer built against the installed headers and
# Module.symvers alone: they load, the consumer's calls work, and a
# ping-pong with data checks runs through them. Everything is unloaded
# again whatever happens.
dkms_modules_work() {
	local d=$ko/dkms run=/sys/kernel/debug/kfi_pingpong/run rc=1 args
	args="prov=tcp verify=1 sizes=64,65536 iters=5"
	if insmod "$d/kfabric.ko" && insmod "$d/kfi_consumer.ko" && rmmod kfi_consumer &&
		insmod "$d/kfi_tcp.ko" && grep -q 'prov_name: tcp' /sys/kernel/debug/kfabric/info &&
		insmod "$ko/kfi_pingpong.ko"; then
		grep -H . /sys/module/{kfabric,kfi_tcp}/srcversion 2>/dev/null
		(echo "role=server addr=127.0.0.1 $args" >$run) &
		sleep 0.5
		echo "role=client addr=127.0.0.1 $args" >$run && rc=0
		wait $! || rc=1
		cat /sys/kernel/debug/kfi_pingpong/last
	fi
	for m in kfi_pingpong kfi_consumer kfi_tcp kfabric; do
		grep -q "^$m " /proc/modules && rmmod $m
	done
	return $rc
}

# kfabric's trace events through tracefs (kernels with event tracing: the
# debug one), as trace-cmd uses them: enabled, a kfi_pingpong session of
# three 4 KiB round trips over lo, disabled; the trace shows both ends
# of the connection established with the peer's address, the posts with
# their results and the completions, in kfi_trace.h's format (4 KiB
# messages: smaller ones are injects, which complete nowhere).
tracefs_events() {
	local t=/sys/kernel/tracing run=/sys/kernel/debug/kfi_pingpong/run out rc=0 args
	args="prov=tcp verify=1 sizes=4096 iters=3"
	mountpoint -q $t || mount -t tracefs nodev $t || return 1
	[ -d $t/events/kfabric ] || { echo "no events/kfabric in tracefs"; return 1; }
	ls $t/events/kfabric
	: >$t/trace
	echo 1 >$t/events/kfabric/enable
	insmod "$ko/kfi_pingpong.ko" || return 1
	(echo "role=server addr=127.0.0.1 $args" >$run) &
	sleep 0.5
	echo "role=client addr=127.0.0.1 $args" >$run || rc=1
	wait $! || rc=1
	echo 0 >$t/events/kfabric/enable
	rmmod kfi_pingpong
	out=$(grep -v '^#' $t/trace)
	echo "$out" | head -40
	[ $rc -eq 0 ] || { echo "pingpong failed"; return 1; }
	[ "$(grep -c 'kfi_conn: kfi_tcp conn=.* peer=127\.0\.0\.1:[0-9]* [a-z_]* -> established' <<<"$out")" -eq 2 ] ||
		{ echo "not two connections established"; return 1; }
	[ "$(grep -c 'kfi_post: kfi_tcp ep=.* send ctx=.* len=4096 .* ret=0$' <<<"$out")" -ge 6 ] ||
		{ echo "fewer than 6 sends of 4096 bytes posted"; return 1; }
	[ "$(grep -c 'kfi_complete: kfi_tcp cq=.* err=0$' <<<"$out")" -ge 12 ] ||
		{ echo "fewer than 12 completions"; return 1; }
	[ "$(grep -c 'kfi_complete: kfi_tcp cq=.* len=4096 err=0$' <<<"$out")" -ge 6 ] ||
		{ echo "fewer than 6 receives of 4096 bytes completed"; return 1; }
	! grep -E 'kfi_error:' <<<"$out" || { echo "an error was traced"; return 1; }
	! grep -E 'kfi_post: .* ret=-[0-9]+$' <<<"$out" | grep -v 'ret=-11$' ||
		{ echo "a post failed"; return 1; }
}

# tools/kfi_info (fi_info's options) against the listing it reads, with
# tcp and verbs loaded: -l names both, the short form has one block per
# entry, -p/-t/-c select exactly the entries an independent count of
# kfabric/info finds, -v prints them verbatim, no match is fi_info's
# -61 and exit 1.
kfi_info_tool() {
	local k info=/sys/kernel/debug/kfabric/info out n want
	k="python3 $(dirname "$0")/../../tools/kfi_info"
	out=$($k -l) || return 1
	echo "$out"
	grep -qx 'tcp:' <<<"$out" && grep -qx 'verbs:' <<<"$out" || { echo "-l: not both"; return 1; }
	n=$($k | grep -c '^provider: ')
	want=$(grep -c '^# entry ' $info)
	echo "entries: $n of $want"
	[ "$n" -eq "$want" ] && [ "$n" -gt 2 ] || return 1
	# tcp's RDM entries, counted in the listing itself
	want=$(awk '/^# entry /{ if (p && r) c++; p = r = 0 } /prov_name: tcp$/{ p = 1 } /type: KFI_EP_RDM$/{ r = 1 } END { if (p && r) c++; print c + 0 }' $info)
	out=$($k -p tcp -t rdm) || return 1
	n=$(grep -c '^provider: tcp$' <<<"$out")
	echo "tcp RDM: $n of $want"
	[ "$n" -eq "$want" ] && [ "$n" -ge 1 ] || return 1
	[ "$(grep -c '^    type: KFI_EP_RDM$' <<<"$out")" -eq "$n" ] || return 1
	# -v: the entries verbatim
	diff <($k -v | grep -v '^---$') <(grep -v '^# entry ' $info) || { echo "-v differs"; return 1; }
	# -c: every entry printed has the caps
	out=$($k -v -c KFI_TAGGED,KFI_RMA) || return 1
	n=$(grep -c '^kfi_info:$' <<<"$out")
	[ "$n" -ge 1 ] && [ "$(grep -cE '^    caps: .* KFI_TAGGED[ ,]' <<<"$out")" -eq "$n" ] &&
		[ "$(grep -cE '^    caps: .* KFI_RMA[ ,]' <<<"$out")" -eq "$n" ] ||
		{ echo "-c: $n entries, not all with both caps"; return 1; }
	out=$($k -p nosuch)
	[ $? -eq 1 ] && [ "$out" = "kfi_getinfo: -61 (No data available)" ] || { echo "no match: $out"; return 1; }
}

# kfi_info -s while a real peer is connected to a kernel consumer
# (kfi_pingpong's sink): tests/guest/stats_check.py
kfi_info_stats() {
	local rc
	insmod "$ko/kfi_pingpong.ko" || return
	python3 "$(dirname "$0")/stats_check.py" \
		"$(dirname "$0")/../../tools/kfi_info"
	rc=$?
	rmmod kfi_pingpong
	return $rc
}

consumer_rejects_missing_core() {
	# without kfabric.ko the consumer's symbols cannot resolve
	! insmod "$consumer" 2>/dev/null
}

# make demo: a kernel<->kernel pingpong (fi_pingpong's protocol, data
# verified), server and client in this guest, over provider $1 (tcp or
# verbs) at address $2, with kfi_pingpong keys $3 (e.g. ep=rdm).
demo_pingpong() {
	local run=/sys/kernel/debug/kfi_pingpong/run args
	args="prov=$1 verify=1 sizes=64,4096,65536,1048576 iters=200${3:+ $3}"
	insmod "$ko/kfi_pingpong.ko" || return
	echo "--- kernel pingpong over kfi_$1 ($2, $args) ---"
	(echo "role=server addr=$2 $args" >$run) &
	sleep 0.5
	if echo "role=client addr=$2 $args" >$run; then
		wait
		sed 's/^/    /' /sys/kernel/debug/kfi_pingpong/last
	else
		wait
		echo "    pingpong failed"
	fi
	rmmod kfi_pingpong
}

# kmemleak (debug kernel): forget what booting left behind, so that the
# scan after the tests reports only what they leaked.
kmemleak=/sys/kernel/debug/kmemleak
kmemleak_forget_boot() {
	[ -e $kmemleak ] || return 0
	echo scan >$kmemleak
	echo clear >$kmemleak
}

# Any unreferenced object after the tests fails the run (whoever leaked
# it), with one exception: objects siw's connection manager allocated
# for itself (its endpoints, their work items) are listed and counted
# (figure kmemleak_siw_cm_objects) but do not fail it. Seen once (7
# objects, work items from siw_cm_alloc_work in its accept path, during
# the siw RDM suite's connect/close races): siw keeps an endpoint only
# through its socket and the iw_cm id's provider_data, which rdma_cm owns,
# so an unreferenced one is lost inside siw, which a consumer of
# rdma_cm's public calls cannot do. kmemleak reports only objects older
# than 5 s that a scan found unreferenced: wait, scan twice. One line per
# object (size, the first frame past the allocator), then the report.
kmemleak_clean() {
	sleep 6
	echo scan >$kmemleak
	echo scan >$kmemleak
	local report objs siw
	report=$(cat $kmemleak)
	[ -z "$report" ] && return 0
	objs=$(awk '/unreferenced object/ { if (o) print o; o = $3 " " $4 " " $5; f = 0; next }
		/backtrace/ { f = 1; next }
		f && $1 !~ /^(__)?(kmalloc|kmem_cache|kzalloc|kvmalloc|__kmalloc|slab|kmemleak|alloc_|__alloc)/ { o = o " " $1; f = 0 }
		END { if (o) print o }' <<<"$report")
	siw=$(grep -cE ' (siw_cm_|siw_cep_alloc|siw_accept_newconn)' <<<"$objs")
	echo "kmemleak reports $(wc -l <<<"$objs") object(s), $siw of siw's connection manager:"
	echo "$objs"
	# for the lines after the result (result() keeps a passing check's
	# output to itself)
	{ echo "KFI-FIGURE kmemleak_siw_cm_objects $siw"; sed 's/^/    /' <<<"$objs"; } >/tmp/kfi-kmemleak.txt
	if [ "$siw" -eq "$(wc -l <<<"$objs")" ]; then
		return 0
	fi
	echo "$report" | head -60
	return 1
}

case $mode in
check)
	kmemleak_forget_boot
	result debugfs_empty_listing debugfs_empty_listing
	result consumer_needs_core consumer_rejects_missing_core
	result compat_headers_module compat_module_loads
	result load_unload_cycles load_unload_loop
	[ -d "$ko/dkms" ] && result dkms_modules_work dkms_modules_work
	insmod "$core"
	# the core's suites use fake providers only: before kfi_tcp is loaded
	kunit_module "$kunit"
	result tcp_provider_loads insmod "$tcp"
	kunit_module "$tcp_kunit"
	[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -d /sys/kernel/tracing/events ] && result tracefs_events tracefs_events
	# kfi_verbs on the software RDMA devices (tests/guest/verbs.sh),
	# loaded while they exist: its own suites (hot removal and addition
	# of kv_rxe included), then, with the suites every provider runs,
	# unloaded while the devices are still there
	step verbs
	result verbs_devices "$(dirname "$0")/verbs.sh" setup
	result verbs_provider_loads insmod "$verbs"
	kunit_module "$verbs_kunit" rxe_dev=kv_rxe rxe_netdev=kva \
		rxe_node=10.95.0.1 siw_dev=kv_siw siw_netdev=kvb \
		siw_node=10.95.0.2
	# the suites every provider runs (kfi_<set>_<provider>), for each
	# provider in the test's table (tcp; verbs on kv_rxe; RDM on kv_siw)
	kunit_module "$prov_kunit" verbs_node=10.95.0.1 siw_node=10.95.0.2
	# kfi_pingpong over verbs (kv_rxe): kernel to kernel, and against
	# the real fi_pingpong -p verbs as client and as server
	step pingpong_verbs
	iters=20
	[ -e /sys/kernel/debug/kmemleak ] && iters=4
	"$(dirname "$0")/../pingpong/verbs.sh" "$ko" $iters
	# a consumer of the public headers making Lustre kfilnd's calls (over
	# kfi_tcp on lo; its bulk case also over kfi_verbs on kv_rxe, whose
	# network device kva has 10.95.0.1/24: NIC address 1)
	# (128 MiB over verbs on the debug kernel: rxe falls behind there)
	mib=1024
	[ -e /sys/kernel/debug/kmemleak ] && mib=128
	kunit_module "$kfilnd_kunit" verbs_node=10.95.0.1 verbs_if=kva \
		verbs_nic=1 verbs_mib=$mib
	# kfilnd_getinfo_trace's refusal, explained in the log
	result getinfo_trace_logged grep -q \
		'kfi_getinfo: provider "tcp" entry [0-9]* left out: DomainTxCtxCnt' <(dmesg)
	result kfi_info_tool kfi_info_tool
	result kfi_info_stats kfi_info_stats
	result unload_verbs rmmod kfi_verbs
	result verbs_devices_removed "$(dirname "$0")/verbs.sh" teardown
	# injected allocation failures along every allocating path
	[ -e /sys/kernel/debug/failslab ] && fault_sweep
	# kfi_pingpong sessions: kernel<->kernel and against the real
	# fi_pingpong (tests/pingpong/guest.sh prints its own KFI-RESULT lines)
	step pingpong
	# (50 iterations a size; 10 on the debug kernel, where KASAN makes
	# each about five times slower: the sizes and paths are the same)
	iters=50
	[ -e /sys/kernel/debug/kmemleak ] && iters=10
	"$(dirname "$0")/../pingpong/guest.sh" "$ko" $iters check
	# a malicious peer against a kernel endpoint (KFI-RESULT lines of
	# its own; loads and unloads kfi_pingpong again)
	step hostile
	"$(dirname "$0")/../hostile/guest.sh" "$ko"
	# the stress with data checks (tests/stress/): threads on many
	# endpoints, every kind of operation, every byte and completion
	# accounted for; its summary line follows
	result stress_mix "$(dirname "$0")/../stress/guest.sh" "$ko" 45
	grep -a '^kfi_stress:' /tmp/kfi-check.log | sed 's/^/KFI-STRESS /'
	# network faults and peer death across a veth pair between two
	# namespaces (KFI-RESULT lines of its own, net_*)
	step net
	"$(dirname "$0")/../faults/net.sh" "$ko"
	# the software RDMA devices (rxe, siw) and the real fi_pingpong over
	# the libfabric verbs provider: what kfi_verbs is tested with
	# (KFI-RESULT lines of its own, rdma_*). Userspace only, none of our
	# code: on the base kernel only (KASAN would add ~5 minutes).
	if [ ! -e /sys/kernel/debug/failslab ]; then
		step rdma
		"$(dirname "$0")/rdma.sh"
	fi
	result tcp_listing_shows_lo tcp_listing_shows_lo
	result unload_tcp rmmod kfi_tcp
	result unload_after_kunit rmmod kfabric
	[ -e $kmemleak ] && result kmemleak_clean kmemleak_clean
	[ -e /tmp/kfi-kmemleak.txt ] && cat /tmp/kfi-kmemleak.txt
	;;
demo)
	insmod "$core"
	insmod "$tcp"
	# the verbs provider on an rxe and a siw device (its fabrics and
	# domains are listed next to tcp's)
	"$(dirname "$0")/verbs.sh" setup >/dev/null && insmod "$verbs"
	listing
	demo_pingpong tcp 127.0.0.1
	# RDM endpoints (tcp;ofi_rxm): an AV, the first send connects; 64 KiB
	# and 1 MiB go by rendezvous
	demo_pingpong tcp 127.0.0.1 ep=rdm
	# over the rxe device (verbs.sh: kv_rxe on kva, 10.95.0.1)
	demo_pingpong verbs 10.95.0.1
	rmmod kfi_verbs 2>/dev/null
	"$(dirname "$0")/verbs.sh" teardown >/dev/null
	rmmod kfi_tcp
	rmmod kfabric
	;;
esac
step done
echo "KFI-DMESG-BEGIN"
dmesg
echo "KFI-DMESG-END"

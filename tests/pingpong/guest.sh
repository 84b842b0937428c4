#!/bin/bash
# Runs inside the test VM (as root): exercises kfi_pingpong.ko.
#   guest.sh KODIR [ITERS [MODE]]
# KODIR holds kfabric.ko, kfi_tcp.ko and kfi_pingpong.ko. MODE "all"
# (default) runs every check and the side-by-side timing runs and unloads
# the modules; "check" (tests/guest/run.sh, part of make check) runs the
# checks only, prefixed pp_, and leaves kfabric and kfi_tcp loaded. Prints
# one "<PREFIX> PASS|FAIL <name>" line per check (PREFIX: PP-RESULT, or
# KFI-RESULT in check mode), the session results and the module's log.
#   scripts/vm.sh "$(scripts/kernel.sh base)" --rwdir DIR \
#	"$PWD/tests/pingpong/guest.sh DIR/modules"
set -u
ko=${1:?module directory}
iters=${2:-200}
mode=${3:-all}
dbg=/sys/kernel/debug/kfi_pingpong
prefix=PP-RESULT
pfx=
if [ "$mode" = check ]; then
	prefix=KFI-RESULT
	pfx=pp_
fi

mount -t debugfs none /sys/kernel/debug 2>/dev/null
dmesg -n 1 2>/dev/null
ip link set lo up
# The tests' fixed ports (fi_pingpong's 47592, the hostile sinks' 477xx)
# lie in the ephemeral range: keep outgoing connections off them, or a
# lingering one makes a later listen fail with EADDRINUSE.
echo 47000-47999 >/proc/sys/net/ipv4/ip_local_reserved_ports

result() { # result NAME CONDITION...
	local name=$1
	shift
	if "$@"; then echo "$prefix PASS $pfx$name"; else echo "$prefix FAIL $pfx$name"; fi
}

# pp OUTFILE ARGS...: one session; OUTFILE gets the shell's error text and
# the write's status (0, or 1 with the errno text).
pp() {
	local out=$1
	shift
	(echo "$*" >$dbg/run) >"$out" 2>&1
	echo "rc=$?" >>"$out"
}

ok() { grep -q '^rc=0$' "$1"; }
failed_with() { grep -q "^rc=1$" "$1" && grep -qi "$2" "$1"; }

loaded() { grep -q "^$1 " /proc/modules; }
loaded kfabric || insmod "$ko/kfabric.ko" || exit 1
loaded kfi_tcp || insmod "$ko/kfi_tcp.ko" || exit 1
insmod "$ko/kfi_pingpong.ko" || { result insmod_kfi_pingpong false; exit 1; }
result debugfs_files test -w $dbg/run -a -r $dbg/last

# --- argument errors fail visibly
pp /tmp/e1 "role=bogus"
result bad_role failed_with /tmp/e1 "invalid argument"
pp /tmp/e2 "role=client sizes=64,99999999"
result bad_size failed_with /tmp/e2 "invalid argument"
pp /tmp/e3 "role=client transport=raw tagged=1"
result raw_has_no_tagged failed_with /tmp/e3 "invalid argument"

# --- raw transport, default sizes, data verification
pp /tmp/s1 "role=server transport=raw verify=1 iters=$iters" &
sleep 0.5
pp /tmp/c1 "role=client addr=127.0.0.1 transport=raw verify=1 iters=$iters"
wait
result raw_verify_client ok /tmp/c1
result raw_verify_server ok /tmp/s1
echo "--- last:"
cat $dbg/last
result raw_last_has_6_sizes test "$(grep -c 'bytes=' $dbg/last)" -eq 6

# --- raw: latency run without verification, client started first
pp /tmp/c2 "role=client transport=raw sizes=1,64,4096 iters=$((iters * 5))" &
sleep 0.5
pp /tmp/s2 "role=server transport=raw sizes=1,64,4096 iters=$((iters * 5))"
wait
result raw_client_first ok /tmp/c2
result raw_server_second ok /tmp/s2

# --- two pairs at once, on two control ports
pp /tmp/s3 "role=server transport=raw oob_port=47600 sizes=64,65536 iters=$iters verify=1" &
pp /tmp/s4 "role=server transport=raw oob_port=47601 sizes=256 iters=$iters verify=1" &
sleep 0.5
pp /tmp/c3 "role=client transport=raw oob_port=47600 sizes=64,65536 iters=$iters verify=1" &
pp /tmp/c4 "role=client transport=raw oob_port=47601 sizes=256 iters=$iters verify=1"
wait
result raw_concurrent_pairs bash -c "grep -q '^rc=0$' /tmp/s3 && grep -q '^rc=0$' /tmp/s4 && grep -q '^rc=0$' /tmp/c3 && grep -q '^rc=0$' /tmp/c4"

# --- mismatched sizes: the stream desynchronises, both sides wait for
# bytes that never come; the timeout ends one, the other sees it go
pp /tmp/s5 "role=server transport=raw sizes=64 iters=4 verify=1 timeout_ms=3000" &
sleep 0.5
pp /tmp/c5 "role=client transport=raw sizes=65 iters=4 verify=1 timeout_ms=3000"
wait
result raw_mismatch_fails bash -c "! grep -q '^rc=0$' /tmp/s5 && ! grep -q '^rc=0$' /tmp/c5"
echo "--- mismatch: server: $(tail -2 /tmp/s5 | tr '\n' ' ') client: $(tail -2 /tmp/c5 | tr '\n' ' ')"

# --- timeouts: no peer
pp /tmp/s6 "role=server transport=raw timeout_ms=1500"
result server_alone_times_out failed_with /tmp/s6 "timed out"
pp /tmp/c6 "role=client transport=raw timeout_ms=1500"
result client_alone_fails failed_with /tmp/c6 "refused"

# --- the module cannot go while a session runs, and can once it is over
pp /tmp/s7 "role=server transport=raw timeout_ms=3000" &
sleep 0.5
if rmmod kfi_pingpong 2>/dev/null; then busy=0; else busy=1; fi
wait
result busy_while_running test $busy = 1

# --- kfi transport, kernel to kernel
pair() { # pair NAME SERVER_ARGS -- CLIENT_ARGS: both sides must succeed
	local name=$1 sargs=() cargs=()
	shift
	while [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	cargs=("$@")
	pp "/tmp/$name.s" "role=server ${sargs[*]}" &
	sleep 0.5
	pp "/tmp/$name.c" "role=client ${cargs[*]}"
	wait
	result "$name" bash -c "grep -q '^rc=0$' /tmp/$name.s && grep -q '^rc=0$' /tmp/$name.c"
	grep -q '^rc=0$' "/tmp/$name.s" || echo "    server: $(tr '\n' ' ' <"/tmp/$name.s")"
	grep -q '^rc=0$' "/tmp/$name.c" || echo "    client: $(tr '\n' ' ' <"/tmp/$name.c")"
}
pair kfi_msg_verify verify=1 iters=$iters -- verify=1 iters=$iters
echo "--- last:"
cat $dbg/last
pair kfi_tagged_verify tagged=1 verify=1 iters=$iters -- tagged=1 verify=1 iters=$iters
pair kfi_msg_sleep wait=sleep verify=1 sizes=64,4096 iters=$iters -- wait=sleep verify=1 sizes=64,4096 iters=$iters
pair kfi_all_sizes verify=1 sizes=all iters=3 -- verify=1 sizes=all iters=3
pair kfi_latency sizes=1,64,127,128,4096 iters=$((iters * 5)) -- sizes=1,64,127,128,4096 iters=$((iters * 5))
# every send of the client a triggered one, made due by one counter add
# (the server's sends plain): data checked both ways; its lines give the
# mean add
pair kfi_trigger_verify verify=1 sizes=64,4096,65536 iters=$iters -- trigger=1 verify=1 sizes=64,4096,65536 iters=$iters
result kfi_trigger_add_reported test "$(dmesg | grep -c 'kfi_pingpong: client kfi msg bytes=.* trigger=1 add_ns=[0-9]*$')" -eq 3
pp /tmp/e7 "role=client transport=raw trigger=1"
result trigger_needs_kfi failed_with /tmp/e7 "invalid argument"

# --- against the real fi_pingpong (userspace libfabric 1.17, tcp provider)
fpp() { # fpp NAME ROLE MODULE_ARGS -- FI_PINGPONG_ARGS
	local name=$1 role=$2 margs=() fargs=() frc
	shift 2
	while [ "$1" != -- ]; do margs+=("$1"); shift; done
	shift
	fargs=("$@")
	if [ "$role" = server ]; then
		pp "/tmp/$name.m" "role=server ${margs[*]}" &
		sleep 0.5
		# the server's address: the last argument when it is one
		[[ "${fargs[-1]:-}" == *:* ]] || fargs+=(127.0.0.1)
		timeout 120 fi_pingpong ${FPP_PE:--p tcp -e msg} "${fargs[@]}" >"/tmp/$name.f" 2>&1
		frc=$?
	else
		timeout 120 fi_pingpong ${FPP_PE:--p tcp -e msg} "${fargs[@]}" >"/tmp/$name.f" 2>&1 &
		local fpid=$!
		sleep 1
		pp "/tmp/$name.m" "role=client ${margs[*]}"
		wait $fpid
		frc=$?
	fi
	wait
	result "$name" bash -c "grep -q '^rc=0$' /tmp/$name.m && [ $frc = 0 ]"
	echo "    fi_pingpong (rc=$frc):"
	sed 's/^/      /' "/tmp/$name.f"
	grep -q '^rc=0$' "/tmp/$name.m" || echo "    module: $(tr '\n' ' ' <"/tmp/$name.m")"
}
if command -v fi_pingpong >/dev/null; then
	fpp fi_pp_client_msg server verify=1 iters=$iters -- -c -I "$iters"
	fpp fi_pp_server_msg client verify=1 iters=$iters -- -c -I "$iters"
	# libfabric 1.17's tcp provider offers FI_TAGGED on MSG endpoints only
	# with a shared receive context (for rxm): fi_pingpong -e msg -m tagged
	# stops in its fi_getinfo, so tagged mode is checked kernel to kernel.
	# (fi_pingpong asks for it once the control connection is up.)
	pp /tmp/mt "role=server tagged=1 timeout_ms=5000" &
	sleep 0.5
	timeout 20 fi_pingpong -p tcp -e msg -m tagged 127.0.0.1 >/tmp/ft 2>&1
	wait
	result fi_pp_tagged_msg_unsupported grep -q 'fi_getinfo.*-61' /tmp/ft
	echo "    fi_pingpong: $(tr '\n' ' ' </tmp/ft)"
	echo "    module: $(tr '\n' ' ' </tmp/mt)"
	fpp fi_pp_all_sizes server verify=1 sizes=all iters=3 -- -c -S all -I 3
fi

# --- RDM endpoints (tcp;ofi_rxm): kernel to kernel, eager sizes and, past
# rxm's eager limit (16 KiB), rendezvous ones, untagged and tagged; then
# against the real fi_pingpong -p "tcp;ofi_rxm" -e rdm (one size per run),
# kernel as server and as client
rdm_sizes="sizes=0,1,64,256,1024,4096,16384,16385,65536,1048576"
pair kfi_rdm_verify ep=rdm verify=1 $rdm_sizes iters=$iters -- ep=rdm verify=1 $rdm_sizes iters=$iters
result kfi_rdm_names grep -q 'kfi rdm local=127.0.0.1:[0-9]* peer=127.0.0.1:[0-9]*$' $dbg/last
pair kfi_rdm_tagged_verify ep=rdm tagged=1 verify=1 $rdm_sizes iters=$iters -- ep=rdm tagged=1 verify=1 $rdm_sizes iters=$iters
pair kfi_rdm_sleep ep=rdm wait=sleep verify=1 sizes=64,4096 iters=$iters -- ep=rdm wait=sleep verify=1 sizes=64,4096 iters=$iters
if command -v fi_pingpong >/dev/null; then
	for sz in 64 16384 65536 1048576; do
		FPP_PE='-p tcp;ofi_rxm -e rdm' fpp fi_pp_rdm_client_$sz server ep=rdm verify=1 sizes=$sz iters=$iters -- -c -S $sz -I "$iters"
		FPP_PE='-p tcp;ofi_rxm -e rdm' fpp fi_pp_rdm_server_$sz client ep=rdm verify=1 sizes=$sz iters=$iters -- -c -S $sz -I "$iters"
		FPP_PE='-p tcp;ofi_rxm -e rdm' fpp fi_pp_rdm_tagged_client_$sz server ep=rdm tagged=1 verify=1 sizes=$sz iters=$iters -- -m tagged -c -S $sz -I "$iters"
		FPP_PE='-p tcp;ofi_rxm -e rdm' fpp fi_pp_rdm_tagged_server_$sz client ep=rdm tagged=1 verify=1 sizes=$sz iters=$iters -- -m tagged -c -S $sz -I "$iters"
	done
	# below rxm's inject size (64): fi_inject / fi_tinject frames
	FPP_PE='-p tcp;ofi_rxm -e rdm' fpp fi_pp_rdm_inject server ep=rdm verify=1 sizes=8 iters=$iters -- -c -S 8 -I "$iters"
	FPP_PE='-p tcp;ofi_rxm -e rdm' fpp fi_pp_rdm_tagged_inject server ep=rdm tagged=1 verify=1 sizes=8 iters=$iters -- -m tagged -c -S 8 -I "$iters"
	# fi_pingpong's whole size list (0 to 6 MiB, eager and rendezvous)
	FPP_PE='-p tcp;ofi_rxm -e rdm' fpp fi_pp_rdm_all_sizes server ep=rdm verify=1 sizes=all iters=3 -- -c -S all -I 3
	# a peer without dynamic receive buffers segments messages between
	# 16 and 128 KiB (rxm's SAR): the kernel reassembles them, either role
	# (msg mode: such a peer takes tagged messages only as rxm packets)
	FI_OFI_RXM_ENABLE_DYN_RBUF=0 FPP_PE='-p tcp;ofi_rxm -e rdm' fpp fi_pp_rdm_sar_client server ep=rdm verify=1 sizes=65536 iters=$iters -- -c -S 65536 -I "$iters"
	FI_OFI_RXM_ENABLE_DYN_RBUF=0 FPP_PE='-p tcp;ofi_rxm -e rdm' fpp fi_pp_rdm_sar_server client ep=rdm verify=1 sizes=65536 iters=$iters -- -c -S 65536 -I "$iters"
fi

# --- IPv6 (::1): kernel to kernel, each side's kfi_getname/kfi_getpeer
# in "last" ("client kfi local=[::1]:P peer=[::1]:P")
names6() { # names6 LOCAL PEER: the last session's line shows both
	grep -q "kfi local=\[$1\]:[0-9]* peer=\[$2\]:[0-9]*\$" $dbg/last
}
pair kfi6_msg_verify addr=::1 verify=1 iters=$iters -- addr=::1 verify=1 iters=$iters
result kfi6_client_names names6 ::1 ::1
pair kfi6_tagged_verify addr=:: tagged=1 verify=1 iters=$iters -- addr=::1 tagged=1 verify=1 iters=$iters
pair raw6_verify addr=::1 transport=raw verify=1 iters=$iters -- addr=::1 transport=raw verify=1 iters=$iters
pp /tmp/e6 "role=client addr=fe80::1%nosuchif"
result addr_unknown_zone failed_with /tmp/e6 "invalid argument"
if command -v fi_pingpong >/dev/null; then
	# fi_pingpong -6: its control connection over IPv6; the fabric
	# address is the server's (the kernel's ::1 name, or the one its tcp
	# provider picked: the only address of an IPv6-only interface)
	fpp fi_pp6_client_msg server addr=::1 verify=1 iters=$iters -- -6 -c -I "$iters" ::1
	ip link add kfi6 type dummy && ip link set kfi6 addrgenmode none &&
		ip addr add fd00:97::1/64 dev kfi6 nodad && ip link set kfi6 up
	FI_TCP_IFACE=kfi6 fpp fi_pp6_server_msg client addr=::1 verify=1 iters=$iters -- -6 -c -I "$iters"
	result fi_pp6_server_is_ipv6 names6 'fd00:97::1' 'fd00:97::1'
	ip link del kfi6
fi

# --- tools/kfi_pingpong: fi_pingpong's options and table at both ends,
# its streaming mode (fi_msg_bw's loop, -W) with data checks, against the
# real fi_pingpong (whose row for the same run is the table's oracle)
tool=$(cd "$(dirname "$0")/../.." && pwd)/tools/kfi_pingpong
# tpair NAME SERVER_ARGS -- CLIENT_ARGS: both ends through the tool; each
# output file (/tmp/NAME.s, /tmp/NAME.c) ends with its exit status "rc=N"
tpair() {
	local name=$1 sa=() p
	shift
	while [ "$1" != "--" ]; do sa+=("$1"); shift; done
	shift
	(python3 "$tool" "${sa[@]}"; echo "rc=$?") >"/tmp/$name.s" 2>&1 &
	p=$!
	sleep 0.5
	(python3 "$tool" "$@"; echo "rc=$?") >"/tmp/$name.c" 2>&1
	wait $p
	echo "    $name (server, then client):"
	sed 's/^/      /' "/tmp/$name.s" "/tmp/$name.c"
}
# tables "FILE..." ROW...: in each FILE the tool ran (rc=0) and printed
# fi_pingpong's header and exactly these rows ("BYTES SENT =ACK TOTAL", its
# first four columns), in order, each row's figures consistent (MB/sec x
# usec/xfer is the message size, Mxfers/sec x usec/xfer is 1, within
# rounding)
tables() {
	local f files=$1
	shift
	for f in $files; do
		python3 - "$f" "$@" <<'EOF' || return 1
import re, sys
lines = open(sys.argv[1]).read().splitlines()
want = sys.argv[2:]
head = ("bytes   #sent   #ack     total       time     MB/sec    usec/xfer"
        "   Mxfers/sec")
rows = [l for l in lines if re.match(r"^\S+ +\S+ +=\S+ +\S+ +[0-9.]+s ", l)]
ok = lines[-1:] == ["rc=0"] and head in lines and len(rows) == len(want)
for r, w in zip(rows, want):
    b, sent, ack, total = w.split()
    ok &= r[:33] == "%-8s%-8s%-9s%-8s" % (b, sent, ack, total)
    mbs, usec, mx = (float(x) for x in r[33:].split()[1:])
    mult = {"k": 10, "m": 20}.get(b[-1])
    size = int(b[:-1]) << mult if mult else int(b)
    if usec >= 1 and size >= 1024:
        ok &= abs(mbs * usec - size) <= 0.02 * size
    if usec >= 1 and mx >= 0.05:
        ok &= abs(mx * usec - 1) <= 0.1
    if not ok:
        break
if not ok:
    print("table %s: not the rows %r" % (sys.argv[1], want))
sys.exit(0 if ok else 1)
EOF
	done
}
tpair tool_pingpong -I 20 -c -- -I 20 -c 127.0.0.1
result tool_pingpong tables "/tmp/tool_pingpong.s /tmp/tool_pingpong.c" \
	'64 20 =20 2.5k' '256 20 =20 10k' '1k 20 =20 40k' \
	'4k 20 =20 160k' '64k 20 =20 2.5m' '1m 20 =20 40m'
tpair tool_stream_verify -W 16 -c -I 200 -S 4k -- -W 16 -c -I 200 -S 4k 127.0.0.1
result tool_stream_verify tables "/tmp/tool_stream_verify.s /tmp/tool_stream_verify.c" \
	'4k 200 =200 800k'
tpair tool_stream_rdm_tagged -e rdm -m tagged -W 8 -c -I 100 -S 64 -- \
	-e rdm -m tagged -W 8 -c -I 100 -S 64 127.0.0.1
result tool_stream_rdm_tagged tables "/tmp/tool_stream_rdm_tagged.s /tmp/tool_stream_rdm_tagged.c" \
	'64 100 =100 6.2k'
tpair tool_stream_more -W 64 --more -c -I 2000 -S 64 -- \
	-W 64 --more -c -I 2000 -S 64 -v 127.0.0.1
tool_more_ok() {
	tables "/tmp/tool_stream_more.s /tmp/tool_stream_more.c" '64 2k =2k 125k' &&
		grep -q "client kfi .* window=64 more=1" /tmp/tool_stream_more.c
}
result tool_stream_more tool_more_ok
tpair tool_stream_raw --raw -W 64 -c -I 1000 -S 64 -- --raw -W 64 -c -I 1000 -S 64 127.0.0.1
result tool_stream_raw tables "/tmp/tool_stream_raw.s /tmp/tool_stream_raw.c" \
	'64 1000 =1000 62k'
(python3 "$tool" -I 10 -P 47111 --timeout-ms 2000 127.0.0.1; echo "rc=$?") >/tmp/tool_refused 2>&1
result tool_reports_errors bash -c "grep -qx 'rc=1' /tmp/tool_refused && grep -q 'Connection refused' /tmp/tool_refused"
# fpp_same_row TOOL_OUT FPP_OUT SIZE: fi_pingpong printed the same header
# and the same first four columns for SIZE
fpp_same_row() {
	[ "$(grep "^$3 " "$2" | cut -c1-33)" = "$(grep "^$3 " "$1" | cut -c1-33)" ] &&
		grep -qxF "$(sed -n 1p "$2")" "$1"
}
if command -v fi_pingpong >/dev/null; then
	# the tool's server, the real fi_pingpong's client
	(python3 "$tool" -I 50 -c -S 1024; echo "rc=$?") >/tmp/tool_fpp.s 2>&1 &
	# (fi_pingpong does not retry its connection: wait for the listener)
	for _ in $(seq 100); do
		grep -qi ":$(printf %04X 47592) 00000000:0000 0A" /proc/net/tcp && break
		sleep 0.1
	done
	timeout 120 fi_pingpong -p tcp -e msg -I 50 -c -S 1024 127.0.0.1 >/tmp/tool_fpp.f 2>&1
	frc=$?
	wait
	echo "    tool_vs_fi_pingpong (tool, then fi_pingpong, rc=$frc):"
	sed 's/^/      /' /tmp/tool_fpp.s /tmp/tool_fpp.f
	tool_fpp_ok() {
		[ "$frc" = 0 ] && tables /tmp/tool_fpp.s '1k 50 =50 100k' &&
			fpp_same_row /tmp/tool_fpp.s /tmp/tool_fpp.f 1k
	}
	result tool_vs_fi_pingpong tool_fpp_ok
fi

if [ "$mode" = check ]; then
	result unload_pingpong rmmod kfi_pingpong
	dmesg | grep -E 'kfi_pingpong' | grep -vE 'registered|bytes=' | tail -20
	exit 0
fi

# --- latency/bandwidth side by side (same sizes and iterations)
bench="sizes=64,4096,65536 iters=$((iters * 5))"
mark=$(dmesg | wc -l)
pair bench_raw_spin transport=raw $bench -- transport=raw $bench
pair bench_raw_sleep transport=raw wait=sleep $bench -- transport=raw wait=sleep $bench
pair bench_kfi_spin $bench -- $bench
pair bench_kfi_sleep wait=sleep $bench -- wait=sleep $bench
pair bench_kfi_tagged tagged=1 $bench -- tagged=1 $bench
if command -v fi_pingpong >/dev/null; then
	echo "--- fi_pingpong against itself (userspace tcp), same sizes:"
	for sz in 64 4096 65536; do
		timeout 120 fi_pingpong -p tcp -e msg -I "$((iters * 5))" -S $sz >/tmp/fs 2>&1 &
		sleep 1
		timeout 120 fi_pingpong -p tcp -e msg -I "$((iters * 5))" -S $sz 127.0.0.1 2>&1 | tail -1
		wait
	done
fi
echo "--- bench results (client side):"
dmesg | tail -n +"$((mark + 1))" | grep -E 'client (raw|kfi) .* bytes=' | sed 's/^\[[^]]*\] //'

result unload_pingpong rmmod kfi_pingpong
result unload_tcp rmmod kfi_tcp
result unload_core rmmod kfabric
echo "--- kernel log (without result lines):"
dmesg | grep -E 'kfi_pingpong|kfi_tcp|BUG|WARNING|Oops|Call Trace' | grep -vE 'registered|bytes='
echo "PP-DONE"

#!/bin/bash
# Runs inside the test VM (as root): network faults and peer death.
#   net.sh KODIR
# Two network namespaces joined by a veth pair: the guest's own ("here",
# 10.99.0.1, fd00:99::1 and fe80::99:1 on kfa) and "peer" (10.99.0.2,
# fd00:99::2 and fe80::99:2 on kfb; no other link-local addresses, no
# duplicate address detection). Kernel endpoints on both sides (a session
# is run in a namespace by writing kfi_pingpong's debugfs file, or loading
# kfi_peer.ko, from a process in it). The peer-death checks run over IPv4
# and again over IPv6 (names ending in _ipv6). Prints one
# "KFI-RESULT PASS|FAIL net_<name>" line per check and "KFI-FIGURE" lines.
# Expects kfabric and kfi_tcp loaded; loads and unloads kfi_pingpong.
set -u
ko=${1:?module directory}
dbg=/sys/kernel/debug/kfi_pingpong
params=/sys/module/kfi_tcp/parameters
here_ip=10.99.0.1
peer_ip=10.99.0.2
here_ip6=fd00:99::1
peer_ip6=fd00:99::2
here_ll=fe80::99:1
peer_ll=fe80::99:2
# The address of "here" the checks use (with_addr switches it).
here=$here_ip
fig_sfx() { [[ $here == *:* ]] && echo _ipv6; }
with_addr() { # with_addr ADDR CMD...: CMD with $here=ADDR
	local saved=$here rc
	here=$1
	shift
	"$@"
	rc=$?
	here=$saved
	return $rc
}
in_peer() { nsenter --net=/run/netns/kfipeer "$@"; }

result() { # result NAME CMD...
	local name=$1
	shift
	echo "KFI-STEP net_$name $(cut -d' ' -f1 /proc/uptime)"
	if "$@" >/tmp/net-check.log 2>&1; then
		echo "KFI-RESULT PASS net_$name"
	else
		echo "KFI-RESULT FAIL net_$name"
	fi
	sed 's/^/    /' /tmp/net-check.log | tail -30
}

setup() {
	mkdir -p /run/netns
	ip netns add kfipeer || return 1
	ip link add kfa type veth peer name kfb || return 1
	ip link set kfb netns kfipeer || return 1
	# IPv6 addresses stay when a link goes down (net_peer_link_down)
	sysctl -qw net.ipv6.conf.kfa.keep_addr_on_down=1 || return 1
	ip link set kfa addrgenmode none || return 1
	ip addr add $here_ip/24 dev kfa || return 1
	ip addr add $here_ip6/64 dev kfa nodad || return 1
	ip addr add $here_ll/64 dev kfa nodad && ip link set kfa up || return 1
	in_peer ip link set lo up || return 1
	in_peer sysctl -qw net.ipv6.conf.kfb.keep_addr_on_down=1 || return 1
	in_peer ip link set kfb addrgenmode none || return 1
	in_peer ip addr add $peer_ip/24 dev kfb || return 1
	in_peer ip addr add $peer_ip6/64 dev kfb nodad || return 1
	in_peer ip addr add $peer_ll/64 dev kfb nodad &&
		in_peer ip link set kfb up || return 1
	in_peer sh -c 'echo 47000-47999 >/proc/sys/net/ipv4/ip_local_reserved_ports'
}

# Dead-peer detection fast enough for a test (the defaults are the
# documented 30 s bounds); restored at the end.
saved_params=
fast_liveness() {
	local p
	for p in user_timeout_ms keepalive_idle keepalive_intvl keepalive_cnt; do
		saved_params+="$p=$(cat $params/$p) "
	done
	echo 3000 >$params/user_timeout_ms
	echo 2 >$params/keepalive_idle
	echo 1 >$params/keepalive_intvl
	echo 2 >$params/keepalive_cnt
}
restore_liveness() {
	local kv
	for kv in $saved_params; do echo "${kv#*=}" >"$params/${kv%%=*}"; done
}

# pp OUT ARGS...: one kfi_pingpong session (in this namespace); OUT gets
# the error text and "rc=N".
pp() {
	local out=$1
	shift
	(echo "$*" >$dbg/run) >"$out" 2>&1
	echo "rc=$?" >>"$out"
}
pp_peer() {
	local out=$1
	shift
	in_peer sh -c "echo '$*' >$dbg/run" >"$out" 2>&1
	echo "rc=$?" >>"$out"
}
ok() { grep -q '^rc=0$' "$1"; }

# A verified kernel<->kernel stream across the veth: server here, client
# in the peer namespace.
stream() { # stream TAG ARGS...
	local tag=$1
	shift
	pp "/tmp/st-$tag.s" "role=server addr=$here $*" &
	sleep 0.5
	pp_peer "/tmp/st-$tag.c" "role=client addr=${client_addr:-$here} $*"
	wait
	echo "server: $(tr '\n' ' ' <"/tmp/st-$tag.s")"
	echo "client: $(tr '\n' ' ' <"/tmp/st-$tag.c")"
	ok "/tmp/st-$tag.s" && ok "/tmp/st-$tag.c"
}

# netem on both ends of the link for the duration of a stream
netem() { # netem SPEC...: install; netem off: remove
	if [ "$1" = off ]; then
		tc qdisc del dev kfa root 2>/dev/null
		in_peer tc qdisc del dev kfb root 2>/dev/null
		return 0
	fi
	tc qdisc replace dev kfa root netem "$@" &&
		in_peer tc qdisc replace dev kfb root netem "$@"
}

faulty_stream() { # faulty_stream TAG NETEM_SPEC
	local tag=$1 spec=$2 rc ut
	netem $spec || return 1
	# A lossy link retransmits for seconds (at 5% loss a segment lost
	# four times running waits 3 s, fast_liveness's user timeout, which
	# then ended a stream once in the checks of 2026-11-27): streams get the
	# default user timeout; what they test is the data, not liveness.
	ut=$(cat $params/user_timeout_ms)
	echo 30000 >$params/user_timeout_ms
	stream "$tag-msg" verify=1 iters=8 sizes=1,4096,262144 timeout_ms=60000
	rc=$?
	stream "$tag-tagged" tagged=1 verify=1 iters=8 sizes=1,4096,262144 timeout_ms=60000 || rc=1
	echo "$ut" >$params/user_timeout_ms
	netem off
	return $rc
}

# The sink (see kfi_pingpong.c): listens here, pre-posts 4 receives and 4
# tagged receives, accepts one connection and reports how it ended.
SINK_RECVS=4
sink_start() { # sink_start PORT TIMEOUT_MS
	pp /tmp/sink.out "role=sink addr=$here port=$1 key=7 recvs=$SINK_RECVS recv_size=64 timeout_ms=$2" &
	sink_pid=$!
	sleep 0.5
}
# sink_report PATTERN...: waits for the sink's session; it must have
# succeeded and its report line must match every (extended) PATTERN.
sink_report() {
	local last p
	wait "$sink_pid"
	last=$(grep ' sink eq=' $dbg/last)
	echo "sink: $(tr '\n' ' ' </tmp/sink.out) $last"
	ok /tmp/sink.out || return 1
	for p in "$@"; do
		grep -qE -- "$p" <<<"$last" || { echo "sink report lacks: $p"; return 1; }
	done
}
# sink_ended: the sink's session is over; its report shows a connection
# ended by the peer (KFI_SHUTDOWN), every posted receive completed in
# error, none unreported.
sink_ended() {
	sink_report ' eq=shutdown ' " cq_errs=$((2 * SINK_RECVS)) " ' recvs_done=0 ' ' unreported=0'
}
peer_connect() { # peer_connect PORT: kfi_peer.ko connected from the peer namespace
	in_peer insmod "$ko/kfi_peer.ko" addr=$here port="$1"
}

# Bound on noticing a dead peer with fast_liveness: keepalive 2 s idle +
# 2 x 1 s probes, or 3 s user timeout; with scheduling slack under TCG.
DEAD_BOUND_S=15

# --- peer module unloaded: the modules under it refuse to unload while it
# holds objects, and the sink sees the connection end.
peer_unload() {
	sink_start 47811 20000
	peer_connect 47811 || { wait; return 1; }
	local refused=1
	if rmmod kfi_tcp 2>/dev/null; then echo "kfi_tcp unloaded under a consumer"; refused=0; fi
	if rmmod kfabric 2>/dev/null; then echo "kfabric unloaded under a consumer"; refused=0; fi
	rmmod kfi_peer || return 1
	sink_ended && [ $refused = 1 ]
}

# --- link dropped under an idle connection (the peer's side goes down)
link_down() {
	local t0 t1
	sink_start 47812 30000
	peer_connect 47812 || { wait; return 1; }
	t0=$SECONDS
	in_peer ip link set kfb down
	sink_ended
	local rc=$?
	t1=$SECONDS
	in_peer ip link set kfb up
	rmmod kfi_peer
	echo "SHUTDOWN after $((t1 - t0)) s (bound $DEAD_BOUND_S s)"
	echo "KFI-FIGURE net_link_down_shutdown_s$(fig_sfx) $((t1 - t0))" >&3
	[ $rc = 0 ] && [ $((t1 - t0)) -le $DEAD_BOUND_S ]
}

# --- silent peer: every packet lost, both ways
silent_peer() {
	local t0 t1
	sink_start 47813 30000
	peer_connect 47813 || { wait; return 1; }
	t0=$SECONDS
	netem loss 100% || { rmmod kfi_peer; wait; return 1; }
	sink_ended
	local rc=$?
	t1=$SECONDS
	netem off
	rmmod kfi_peer
	echo "SHUTDOWN after $((t1 - t0)) s (bound $DEAD_BOUND_S s)"
	echo "KFI-FIGURE net_silent_peer_shutdown_s$(fig_sfx) $((t1 - t0))" >&3
	[ $rc = 0 ] && [ $((t1 - t0)) -le $DEAD_BOUND_S ]
}

# --- silent peer while a stream is running (data unacknowledged: the
# user timeout ends it); the sessions fail, neither hangs.
silent_mid_stream() {
	local t0 t1 rc=0
	pp /tmp/sm.s "role=server addr=$here verify=1 iters=20000 sizes=65536 timeout_ms=30000" &
	sleep 0.5
	pp_peer /tmp/sm.c "role=client addr=$here verify=1 iters=20000 sizes=65536 timeout_ms=30000" &
	sleep 2
	t0=$SECONDS
	netem loss 100% || rc=1
	wait
	t1=$SECONDS
	netem off
	echo "server: $(tr '\n' ' ' </tmp/sm.s)"
	echo "client: $(tr '\n' ' ' </tmp/sm.c)"
	echo "both ended $((t1 - t0)) s after the loss began"
	echo "KFI-FIGURE net_silent_mid_stream_end_s $((t1 - t0))" >&3
	[ $rc = 0 ] && ! ok /tmp/sm.s && ! ok /tmp/sm.c && [ $((t1 - t0)) -le 35 ]
}

# --- a userspace fi_pingpong peer killed with SIGKILL mid-run
fi_pp_killed() {
	local fpid t0 t1
	local six=
	[[ $here == *:* ]] && six=-6
	pp /tmp/fk.m "role=server addr=$here iters=1000000 sizes=64 timeout_ms=30000" &
	sleep 0.5
	in_peer timeout 60 fi_pingpong $six -p tcp -e msg -I 1000000 -S 64 $here >/tmp/fk.f 2>&1 &
	fpid=$!
	sleep 3
	t0=$SECONDS
	kill -9 "$(pgrep -x fi_pingpong)"
	wait
	t1=$SECONDS
	echo "module: $(tr '\n' ' ' </tmp/fk.m)"
	echo "server session ended $((t1 - t0)) s after the kill"
	! ok /tmp/fk.m && [ $((t1 - t0)) -le $DEAD_BOUND_S ]
}

# --- after all of that, a clean verified exchange across the link
# Every operation kind at once under netem: the stress (tests/stress/:
# messages, tagged, RMA writes and reads over lists of regions, writedata,
# triggered operations, cancels; every byte checked) run in the peer
# namespace, with netem on its loopback (a stress's endpoints all live in
# the namespace of the process that starts it). Corruption is caught
# there too: netem computes the checksum of a packet it corrupts, and
# TCP's receive checks it. No reconnects, and netem is gone before the
# closing quiesce: a FIN that netem drops on loopback is sometimes never
# retransmitted by the orphaned socket (no timer left on it:
# Documentation/testing.md), so a close could wait for the peer's end
# forever; closes and peer death are the other checks' subject. The run
# is asked for 300 s and ended through kfi_stress's stop file once netem
# is deleted (14 s after the module's load, when the run starts):
# deleting the qdisc took 7 s on the debug kernel, so a fixed run length
# let netem outlast it.
netem_stress() {
	local rc n=0 pid dbg=/sys/kernel/debug/kfi_stress
	in_peer tc qdisc replace dev lo root netem \
		loss 1% delay 1ms reorder 10% duplicate 1% corrupt 1% || return 1
	in_peer "$(dirname "$0")/../stress/guest.sh" "$ko" 300 reconnect_ms=0 &
	pid=$!
	while [ ! -e $dbg/stop ] && [ $n -lt 600 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	sleep 14
	in_peer tc qdisc del dev lo root
	[ -e $dbg/stop ] && echo 1 >$dbg/stop
	wait $pid
	rc=$?
	in_peer tc qdisc del dev lo root 2>/dev/null
	return $rc
}

after_faults() {
	stream after verify=1 iters=20 sizes=64,4096,65536
}

# --- RMA and triggered operations across the link: kfi_peer rma=N (in
# the peer namespace) posts a triggered write of N bytes into the sink's
# region and a triggered send firing on the write's completion, fires the
# first with a counter add, reads the region back and checks it; the load
# fails otherwise. The sink must then have received exactly that message
# in its first receive, N bytes written and nothing else touched.
RMA_MSG_HEX=6b66695f7065657220726d61206f6b00	# "kfi_peer rma ok\0"
rma_trigger() { # rma_trigger PORT PEER_ADDR N
	local port=$1 paddr=$2 n=$3
	pp /tmp/sink.out "role=sink addr=$here port=$port key=7 recvs=$SINK_RECVS recv_size=64 expect_write=$n timeout_ms=30000" &
	sink_pid=$!
	sleep 0.5
	in_peer insmod "$ko/kfi_peer.ko" addr="$paddr" port="$port" rma="$n" ||
		{ wait; return 1; }
	dmesg | grep 'kfi_peer: rma=' | tail -1
	rmmod kfi_peer || return 1
	sink_report ' eq=shutdown eq_err=0 ' " cq_errs=$((2 * SINK_RECVS - 1)) " \
		' recvs_done=1 mr_intact=1 ' " mr_changed=$n unreported=0 recv_data=$RMA_MSG_HEX\$"
}

# --- IPv6 across the link. The sessions' "last" lines carry each side's
# kfi_getname/kfi_getpeer ("kfi local=[A]:P peer=[B]:P"): both must be
# of the link's addresses.
names_of() { # names_of PATTERN: the last session's addresses match
	grep -E "kfi local=\[$1\]:[0-9]+ peer=\[$1\]:[0-9]+\$" $dbg/last
}
ipv6_stream() {
	stream v6 verify=1 iters=20 sizes=1,64,4096,65536,1048576 &&
		names_of 'fd00:99::[12]' &&
		stream v6t tagged=1 verify=1 iters=20 sizes=1,4096,262144
}
# Link-local: each side names the zone of its own interface (here kfa, the
# peer kfb); the addresses kfi_tcp reports carry the scope id.
link_local_stream() {
	client_addr=$peer_zone stream ll verify=1 iters=20 sizes=1,64,4096,65536 &&
		names_of 'fe80::99:[12]%[0-9]+' &&
		client_addr=$peer_zone stream llt tagged=1 verify=1 iters=20 sizes=1,4096,262144
}

exec 3>&1
if ! setup >/tmp/net-setup.log 2>&1; then
	echo "KFI-RESULT FAIL net_setup"
	sed 's/^/    /' /tmp/net-setup.log
	exit 1
fi
echo "KFI-RESULT PASS net_setup"
grep -q '^kfi_pingpong ' /proc/modules || insmod "$ko/kfi_pingpong.ko" ||
	{ echo "KFI-RESULT FAIL net_insmod_pingpong"; exit 1; }
# before the lowered dead-peer bounds: a receiver that takes more than
# their 3 s to post a receive (back-pressure under netem) is not dead
result netem_stress netem_stress
# Every operation kind (RMA, triggered operations...) between endpoints on
# the veth's link-local address with its zone (both ends here, so the
# packets take the loopback path; the zone, scope ids and addresses are
# the veth's)
result ipv6_stress_link_local "$(dirname "$0")/../stress/guest.sh" "$ko" 10 node=$here_ll%kfa
fast_liveness

result clean_stream stream clean verify=1 iters=20 sizes=1,64,4096,65536,1048576
# before the link goes down and up (net_peer_link_down): the addresses
# stay (keep_addr_on_down), yet afterwards connects to the link-local
# address failed with ENETUNREACH (its route, presumably)
here_zone=$here_ll%kfa
peer_zone=$here_ll%kfb
result ipv6_stream with_addr $here_ip6 ipv6_stream
result ipv6_link_local_stream with_addr $here_zone link_local_stream
result ipv6_rma_trigger_link_local with_addr $here_zone rma_trigger 47821 $peer_zone 4096
result ipv6_rma_trigger with_addr $here_ip6 rma_trigger 47822 $here_ip6 100
result netem_loss faulty_stream loss "loss 5%"
result netem_delay_reorder faulty_stream reorder "delay 4ms 2ms reorder 25% 50%"
result netem_duplicate faulty_stream dup "duplicate 10%"
result netem_corrupt faulty_stream corrupt "corrupt 2%"
result netem_mixed faulty_stream mixed "loss 2% delay 1ms duplicate 2% corrupt 1%"
result peer_module_unload peer_unload
result peer_link_down link_down
result peer_silent silent_peer
result peer_silent_mid_stream silent_mid_stream
result peer_fi_pingpong_killed fi_pp_killed
result after_faults after_faults

result ipv6_netem_mixed with_addr $here_ip6 faulty_stream mixed6 "loss 2% delay 1ms duplicate 2% corrupt 1%"
result peer_module_unload_ipv6 with_addr $here_ip6 peer_unload
result peer_link_down_ipv6 with_addr $here_ip6 link_down
result peer_silent_ipv6 with_addr $here_ip6 silent_peer
result peer_fi_pingpong_killed_ipv6 with_addr $here_ip6 fi_pp_killed

restore_liveness
result unload_pingpong rmmod kfi_pingpong
ip netns del kfipeer
ip link del kfa 2>/dev/null
exit 0

#!/bin/bash
# Runs inside the test VM (as root) for make bench (scripts/bench.sh):
# latency and bandwidth of the same ping-pong exchange over
#   kfi   kfi_pingpong.ko, transport=kfi (kfabric's tcp provider, msg)
#   raw   kfi_pingpong.ko, transport=raw (plain kernel TCP sockets)
#   fipp  userspace fi_pingpong -p tcp -e msg against itself
#   kfi6, raw6  kfi and raw over IPv6 (::1) instead of 127.0.0.1
#   kfir  kfi_pingpong.ko over kfabric's tcp provider, RDM endpoints
#   fippr userspace fi_pingpong -p "tcp;ofi_rxm" -e rdm against itself
# then the aggregate message rate of 1, 4 and 16 senders to one endpoint
# (tests/bench/kfi_rdm_bench.ko, RDM and MSG), and
# and, on an rxe device and then on a siw device (tests/guest/verbs.sh;
# keys with an "s" appended on siw):
#   kfiv  kfi_pingpong.ko over kfabric's verbs provider
#   kfivr kfi_pingpong.ko over kfabric's verbs provider, RDM endpoints
#   ibv   ibv_pingpong.ko, transport=ibv (a raw RC queue pair: ib_verbs)
#   fippv userspace fi_pingpong -p verbs -e msg against itself
#   fippvr userspace fi_pingpong -p "verbs;ofi_rxm" -e rdm against itself
#   kfit  kfi_pingpong.ko over kfabric's tcp provider on the same link
# and kfi_rdm_bench over verbs (rates keyed rdmv/msgv, rdmvs/msgvs on siw)
# kfi and raw run with wait=spin (busy polling, as fi_pingpong does) and
# with wait=sleep (blocking reads); fi_pingpong only polls. Every
# configuration runs REPEATS times, interleaved (run 1 of everything, then
# run 2...), one session per size; the host takes the median.
#   bench.sh KODIR [LOG [REPEATS [PLAN [VPLAN]]]]   (PLAN, VPLAN: - for the default)
# KODIR holds kfabric.ko, kfi_tcp.ko and kfi_pingpong.ko. With LOG, all
# output is appended to that file (in a writable shared directory) as it
# happens. Lines for the host (client-side numbers):
#   BENCH <impl> <wait> <size> <iters> <run> <usec_per_xfer> <MBps>
#   BENCH-FAIL <impl> <wait> <size> <run> <what went wrong>
#   BENCH-RATE <ep> <peers> <size> <msgs> <run> <msgs_per_s> <MBps>
#   BENCH-INFO <key> <value...>
#   BENCH-DONE                       (last line of a complete run)
# The guest's whole kernel log follows between KFI-DMESG-BEGIN/END.
set -u
ko=${1:?module directory}
if [ -n "${2:-}" ]; then
	exec >>"$2" 2>&1
fi
repeats=${3:-5}

# size:iterations. Small messages are cheap, so many iterations; the
# large ones are bandwidth-bound (a few ms per round trip under TCG).
# PLAN replaces it, comma-separated (e.g. 1048576:500,65536:3000).
plan="64:10000 4096:10000 65536:3000 1048576:500"
[ -n "${4:-}" ] && [ "$4" != - ] && plan=${4//,/ }
# The verbs runs (rxe is slow under TCG: a round trip is work items and
# UDP): fewer iterations.
vplan="64:2000 4096:2000 65536:500 1048576:50"
[ -n "${5:-}" ] && [ "$5" != - ] && vplan=${5//,/ }
# The device the verbs runs use (rxe first, then siw) and the suffix of
# their result keys ("" for rxe, "s" for siw: kfivs, ibvs, fippvs, kfits).
vnode=10.95.0.1 vdev=kv_rxe vsfx=

dbg=/sys/kernel/debug/kfi_pingpong
oob_port=47592		# fi_pingpong's control port, also kfi_pingpong's
klog=/tmp/bench-dmesg	# the kernel log, collected as it is cleared
work=/tmp/bench
mkdir -p $work
: >$klog

mount -t debugfs none /sys/kernel/debug 2>/dev/null
dmesg -n 1 2>/dev/null
ip link set lo up
# The tests' fixed ports (fi_pingpong's 47592, the hostile sinks' 477xx)
# lie in the ephemeral range: keep outgoing connections off them, or a
# lingering one makes a later listen fail with EADDRINUSE.
echo 47000-47999 >/proc/sys/net/ipv4/ip_local_reserved_ports

echo "BENCH-INFO kernel $(uname -r)"
echo "BENCH-INFO cpus $(nproc)"
echo "BENCH-INFO repeats $repeats"
echo "BENCH-INFO plan $plan"
echo "BENCH-INFO fi_pingpong $(command -v fi_pingpong || echo missing)"

fail() { # fail IMPL WAIT SIZE RUN TEXT...
	local what="$1 $2 $3 $4"
	shift 4
	echo "BENCH-FAIL $what $*"
}

# Waits (at most 20 s) until something listens on TCP port $1.
wait_listen() {
	local _
	for _ in $(seq 1 200); do
		ss -Hltn "sport = :$1" 2>/dev/null | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# pp OUTFILE ARGS...: one kfi_pingpong session in this shell; OUTFILE
# gets the shell's error text and "rc=N" (0, or 1 with the errno text).
pp() {
	local out=$1
	shift
	(echo "$*" >$dbg/run) >"$out" 2>&1
	echo "rc=$?" >>"$out"
}

# The kernel log since the last call (and keeps all of it in $klog).
new_klog() {
	dmesg -c | tee -a $klog
}

# kpair IMPL WAIT SIZE ITERS RUN: one kfi_pingpong pair (server in the
# background, client here); prints the client's result. IMPL kfi6/raw6:
# transport kfi/raw over ::1; kfis/raws: mode=stream window=64 (fi_msg_bw's
# loop: usec per message one way), kfim: the same with more=1 (KFI_MORE
# on all but the last send of a window); kfig: the client's sends triggered
# (trigger=1), with a BENCH-ADD line of the mean add.
kpair() {
	local impl=$1 wait=$2 size=$3 iters=$4 run=$5 args line addr=127.0.0.1 t=${1%6} x=
	[ "${impl%6}" != "$impl" ] && addr=::1
	[ "$impl" = kfir ] && t=kfi x=" ep=rdm"
	[ "$impl" = kfis ] && t=kfi x=" mode=stream window=64"
	[ "$impl" = kfim ] && t=kfi x=" mode=stream window=64 more=1"
	[ "$impl" = raws ] && t=raw x=" mode=stream window=64"
	[ "$impl" = kfig ] && t=kfi x=" trigger=1"
	args="transport=$t addr=$addr wait=$wait sizes=$size iters=$iters$x"
	new_klog >/dev/null
	pp $work/s "role=server $args" &
	if ! wait_listen $oob_port; then
		wait
		fail "$impl" "$wait" "$size" "$run" "server never listened: $(tr '\n' ' ' <$work/s)"
		return
	fi
	pp $work/c "role=client $args"
	wait
	line=$(new_klog | grep -E "kfi_pingpong: client $t msg bytes=$size iters=$iters ")
	if ! grep -q '^rc=0$' $work/s || ! grep -q '^rc=0$' $work/c || [ -z "$line" ]; then
		fail "$impl" "$wait" "$size" "$run" \
			"server: $(tr '\n' ' ' <$work/s) client: $(tr '\n' ' ' <$work/c)"
		return
	fi
	# "... usec_per_xfer=X MBps=Y"
	sed -E "s/.*usec_per_xfer=([0-9.]+) MBps=([0-9.]+).*/BENCH $impl $wait $size $iters $run \1 \2/" <<<"$line"
	[ "$impl" != kfig ] ||
		sed -nE "s/.* add_ns=([0-9]+)\$/BENCH-ADD $impl $size $run \1/p" <<<"$line"
}

# vpair IMPL SIZE ITERS RUN: one pair on the rxe device's address
# (kfiv: kfi_pingpong over verbs; ibv: ibv_pingpong's raw queue pair;
# kfit: kfi_pingpong over tcp on the same link); prints the client's
# result.
vpair() {
	local impl=$1 size=$2 iters=$3 run=$4 args line mod=kfi_pingpong t=kfi
	case $impl in
	kfiv) args="prov=verbs" ;;
	kfivr) args="prov=verbs ep=rdm" ;;
	kfit) args="prov=tcp" ;;
	ibv) mod=ibv_pingpong; t=ibv; args="transport=ibv" ;;
	esac
	args="$args addr=$vnode wait=spin sizes=$size iters=$iters"
	new_klog >/dev/null
	dbg=/sys/kernel/debug/$mod pp $work/s "role=server $args" &
	if ! wait_listen $oob_port; then
		wait
		fail "$impl" spin "$size" "$run" "server never listened: $(tr '\n' ' ' <$work/s)"
		return
	fi
	dbg=/sys/kernel/debug/$mod pp $work/c "role=client $args"
	wait
	line=$(new_klog | grep -E "$mod: client $t msg bytes=$size iters=$iters ")
	if ! grep -q '^rc=0$' $work/s || ! grep -q '^rc=0$' $work/c || [ -z "$line" ]; then
		fail "$impl$vsfx" spin "$size" "$run" \
			"server: $(tr '\n' ' ' <$work/s) client: $(tr '\n' ' ' <$work/c)"
		return
	fi
	sed -E "s/.*usec_per_xfer=([0-9.]+) MBps=([0-9.]+).*/BENCH $impl$vsfx spin $size $iters $run \1 \2/" <<<"$line"
}

# fvpair SIZE ITERS RUN [KEY PROV EP]: fi_pingpong -p verbs (-e msg, key
# fippv) against itself on $vdev. (rxm sizes its CQ by the universe size:
# 32 keeps it within rxe's largest.)
fvpair() {
	local size=$1 iters=$2 run=$3 frc src src_rc key=${4:-fippv} fp=${5:-verbs} fe=${6:-msg}
	FI_UNIVERSE_SIZE=32 timeout 120 fi_pingpong -p "$fp" -e "$fe" -d $vdev -S "$size" -I "$iters" >$work/fs 2>&1 &
	src=$!
	if ! wait_listen $oob_port; then
		kill $src 2>/dev/null
		wait
		fail $key$vsfx spin "$size" "$run" "server never listened: $(tr '\n' ' ' <$work/fs)"
		return
	fi
	FI_UNIVERSE_SIZE=32 timeout 120 fi_pingpong -p "$fp" -e "$fe" -S "$size" -I "$iters" $vnode >$work/fc 2>&1
	frc=$?
	wait $src
	src_rc=$?
	if [ $frc != 0 ] || [ $src_rc != 0 ] || ! grep -q '^bytes.*usec/xfer' $work/fc; then
		fail $key$vsfx spin "$size" "$run" "server (rc=$src_rc): $(tr '\n' ' ' <$work/fs) client (rc=$frc): $(tr '\n' ' ' <$work/fc)"
		return
	fi
	awk -v s="$size" -v i="$iters" -v r="$run" -v k="$key$vsfx" \
		'hdr { print "BENCH", k, "spin", s, i, r, $7, $6; exit } /^bytes/ { hdr = 1 }' $work/fc
}

# fpair SIZE ITERS RUN [KEY PROV EP]: fi_pingpong against itself (-p tcp
# -e msg, key fipp); prints the client's result. Its last line is the
# result row under the header
# "bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec".
fpair() {
	local size=$1 iters=$2 run=$3 frc src src_rc key=${4:-fipp} fp=${5:-tcp} fe=${6:-msg}
	timeout 120 fi_pingpong -p "$fp" -e "$fe" -S "$size" -I "$iters" >$work/fs 2>&1 &
	src=$!
	if ! wait_listen $oob_port; then
		kill $src 2>/dev/null
		wait
		fail "$key" spin "$size" "$run" "server never listened: $(tr '\n' ' ' <$work/fs)"
		return
	fi
	timeout 120 fi_pingpong -p "$fp" -e "$fe" -S "$size" -I "$iters" 127.0.0.1 >$work/fc 2>&1
	frc=$?
	wait $src
	src_rc=$?
	if [ $frc != 0 ] || [ $src_rc != 0 ] || ! grep -q '^bytes.*usec/xfer' $work/fc; then
		fail "$key" spin "$size" "$run" "server (rc=$src_rc): $(tr '\n' ' ' <$work/fs) client (rc=$frc): $(tr '\n' ' ' <$work/fc)"
		return
	fi
	awk -v s="$size" -v i="$iters" -v r="$run" -v k="$key" \
		'hdr { print "BENCH", k, "spin", s, i, r, $7, $6; exit } /^bytes/ { hdr = 1 }' $work/fc
}

# rate EP PEERS SIZE MSGS RUN [PROV ADDR KEY]: one kfi_rdm_bench run
# (kfi_tcp on 127.0.0.1 unless PROV and ADDR say otherwise; its result
# keyed KEY, EP by default); prints its result.
rate() {
	local ep=$1 peers=$2 size=$3 msgs=$4 run=$5 prov=${6:-tcp} a=${7:-127.0.0.1} key=${8:-$1} line
	new_klog >/dev/null
	if ! insmod "$ko/kfi_rdm_bench.ko" prov="$prov" addr="$a" ep="$ep" peers="$peers" size="$size" msgs="$msgs" 2>$work/r; then
		fail "rate-$key" "$peers" "$size" "$run" "$(tr '\n' ' ' <$work/r) $(new_klog | grep kfi_rdm_bench | tail -1)"
		return
	fi
	rmmod kfi_rdm_bench
	line=$(new_klog | grep -E "kfi_rdm_bench: prov=$prov ep=$ep peers=$peers size=$size ")
	sed -E "s/.*msgs=([0-9]+) .*msgs_per_s=([0-9]+) MBps=([0-9]+).*/BENCH-RATE $key $peers $size \1 $run \2 \3/" <<<"$line"
}

if ! { insmod "$ko/kfabric.ko" && insmod "$ko/kfi_tcp.ko" && insmod "$ko/kfi_pingpong.ko"; }; then
	fail all all all 0 "cannot load the modules"
	exit 1
fi
have_fipp=1
command -v fi_pingpong >/dev/null || { have_fipp=0; fail fipp spin all 0 "no fi_pingpong in the guest"; }

start=$(cut -d' ' -f1 /proc/uptime)
# PLAN "none": the verbs part only
tcp_runs=$repeats
[ "$plan" = none ] && tcp_runs=0
for run in $(seq 1 "$tcp_runs"); do
	for entry in $plan; do
		size=${entry%%:*}
		iters=${entry##*:}
		kpair kfi spin "$size" "$iters" "$run"
		kpair kfir spin "$size" "$iters" "$run"
		kpair raw spin "$size" "$iters" "$run"
		kpair kfi6 spin "$size" "$iters" "$run"
		kpair raw6 spin "$size" "$iters" "$run"
		[ $have_fipp = 1 ] && fpair "$size" "$iters" "$run"
		[ $have_fipp = 1 ] && fpair "$size" "$iters" "$run" fippr "tcp;ofi_rxm" rdm
		kpair kfi sleep "$size" "$iters" "$run"
		kpair raw sleep "$size" "$iters" "$run"
	done
	# streaming, 64 B with 64 sends outstanding (fi_msg_bw's loop), and
	# triggered sends next to the plain ones of the plan
	kpair kfis spin 64 20000 "$run"
	kpair kfim spin 64 20000 "$run"
	kpair raws spin 64 20000 "$run"
	kpair kfig spin 64 10000 "$run"
	kpair kfig spin 4096 10000 "$run"
	# N senders to one endpoint: 64 B (message rate), 64 KiB (bandwidth)
	for ep in rdm msg; do
		for peers in 1 4 16; do
			rate $ep $peers 64 20000 "$run"
			rate $ep $peers 65536 2000 "$run"
		done
	done
	echo "BENCH-INFO run_done $run $(cut -d' ' -f1 /proc/uptime)"
done
echo "BENCH-INFO seconds $(awk -v a="$start" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.0f", b - a }')"

# The verbs contenders on one rxe device looped to itself.
if [ "$vplan" != none ]; then
	modprobe rdma_rxe 2>/dev/null
	modprobe siw 2>/dev/null
	modprobe rdma_cm 2>/dev/null
	if "$(dirname "$0")/../guest/verbs.sh" setup >/dev/null &&
		insmod "$ko/kfi_verbs.ko" && insmod "$ko/ibv_pingpong.ko"; then
		echo "BENCH-INFO vplan $vplan"
		# rxe, then siw (each device looped to itself)
		for dev in kv_rxe:10.95.0.1: kv_siw:10.95.0.2:s; do
			IFS=: read -r vdev vnode vsfx <<<"$dev"
			for run in $(seq 1 "$repeats"); do
				for entry in $vplan; do
					size=${entry%%:*}
					iters=${entry##*:}
					vpair kfiv "$size" "$iters" "$run"
					vpair kfivr "$size" "$iters" "$run"
					vpair ibv "$size" "$iters" "$run"
					[ $have_fipp = 1 ] && fvpair "$size" "$iters" "$run"
					[ $have_fipp = 1 ] && fvpair "$size" "$iters" "$run" fippvr "verbs;ofi_rxm" rdm
					vpair kfit "$size" "$iters" "$run"
				done
				# N senders to one endpoint over verbs (fewer
				# messages: rxe and siw are slow under TCG)
				for ep in rdm msg; do
					for peers in 1 4 16; do
						rate $ep $peers 64 4000 "$run" verbs $vnode ${ep}v$vsfx
						rate $ep $peers 65536 400 "$run" verbs $vnode ${ep}v$vsfx
					done
				done
			done
		done
		rmmod ibv_pingpong
		rmmod kfi_verbs
		"$(dirname "$0")/../guest/verbs.sh" teardown >/dev/null
	else
		fail verbs all all 0 "cannot set up the rxe device or load kfi_verbs/ibv_pingpong"
	fi
fi

# Counter adds with 0, 1 and 1000 triggered operations pending
# (tests/bench/kfi_cntr_bench.ko runs at load and prints one line each).
if insmod "$ko/kfi_cntr_bench.ko"; then
	dmesg | sed -n 's/.*kfi_cntr_bench: pending=\([0-9]*\) add_ns=\([0-9]*\) fire_add_ns=\([0-9]*\) fire_all_us=\([0-9]*\).*/BENCH-CNTR \1 \2 \3 \4/p'
	dmesg | sed -n 's/.*kfi_cntr_bench: handoff queue_work_ns=\([0-9]*\) .*/BENCH-HANDOFF \1/p'
	rmmod kfi_cntr_bench
else
	fail cntr add all 0 "kfi_cntr_bench failed to run"
fi

if ! { rmmod kfi_pingpong && rmmod kfi_tcp && rmmod kfabric; }; then
	fail all all all 0 "cannot unload the modules"
fi
new_klog >/dev/null
echo "KFI-DMESG-BEGIN"
cat $klog
echo "KFI-DMESG-END"
echo "BENCH-DONE"

#!/bin/bash
# In the test VM, for scripts/iprof.sh: loads the modules from KODIR, runs
# the workload (its marks make the plugin's snapshots), saves kallsyms.
#   guest.sh KODIR OUTDIR stream N [NODE]
#   guest.sh KODIR OUTDIR pingpong KEY=VALUE...   (kfi_pingpong run keys;
#                     with prov=verbs or transport=ibv (ibv_pingpong), on
#                     an rxe device looped to itself: addr=10.95.0.1)
kodir=$1 out=$2 what=$3
shift 3
exec >"$out/guest.log" 2>&1
ip link set lo up
dmesg -n 1
mount -t debugfs none /sys/kernel/debug 2>/dev/null
if ! insmod "$kodir/kfabric.ko" || ! insmod "$kodir/kfi_tcp.ko"; then
	echo "iprof: module load failed"
	exit 1
fi
case $what in
stream)
	# Only the stream cases: kfi_tcp's and raw TCP's inject streams,
	# then the window streams (the glob must not end in a newline).
	echo -n "kfi_tcp_msg.tcp_*_stream" >/sys/module/kunit/parameters/filter_glob
	insmod "$kodir/kfi_tcp_kunit.ko" stream_msgs="$1" ${2:+stream_node="$2"}
	grep -h "ok" /sys/kernel/debug/kunit/kfi_tcp_msg/results
	;;
pingpong)
	mod=kfi_pingpong
	case " $* " in
	*" prov=verbs "*|*" transport=ibv "*)
		# One rxe device looped to itself (tests/guest/verbs.sh).
		modprobe rdma_rxe 2>/dev/null
		modprobe siw 2>/dev/null
		modprobe rdma_cm 2>/dev/null
		"$(dirname "$0")/../../tests/guest/verbs.sh" setup >/dev/null || exit 1
		insmod "$kodir/kfi_verbs.ko" || exit 1
		;;
	esac
	case " $* " in
	*" transport=ibv "*) mod=ibv_pingpong ;;
	esac
	insmod "$kodir/$mod.ko" || exit 1
	run=/sys/kernel/debug/$mod/run
	(echo "role=server $*" >"$run") &
	sleep 0.5
	echo "role=client $*" >"$run"
	wait
	;;
esac
dmesg | grep -E "(kfi|ibv)_pingpong: client|tcp_(msg|raw)_[a-z_]*stream|BUG|WARNING"
cat /proc/kallsyms >"$out/kallsyms"
rmmod kfi_pingpong ibv_pingpong kfi_tcp_kunit 2>/dev/null
if [ -e /sys/module/kfi_verbs ]; then
	rmmod kfi_verbs
	"$(dirname "$0")/../../tests/guest/verbs.sh" teardown >/dev/null
fi
rmmod kfi_tcp kfabric
echo "iprof: guest done"

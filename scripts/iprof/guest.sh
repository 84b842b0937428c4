#!/bin/bash
# In the test VM, for scripts/iprof.sh: loads the modules from KODIR, runs
# the workload (its marks make the plugin's snapshots), saves kallsyms.
#   guest.sh KODIR OUTDIR stream N [NODE]
#   guest.sh KODIR OUTDIR pingpong KEY=VALUE...   (kfi_pingpong run keys)
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
	# Only the one case (the glob must not end in a newline).
	echo -n "kfi_tcp_msg.tcp_msg_inject_stream" >/sys/module/kunit/parameters/filter_glob
	insmod "$kodir/kfi_tcp_kunit.ko" stream_msgs="$1" ${2:+stream_node="$2"}
	grep -h "ok" /sys/kernel/debug/kunit/kfi_tcp_msg/results
	;;
pingpong)
	insmod "$kodir/kfi_pingpong.ko" || exit 1
	run=/sys/kernel/debug/kfi_pingpong/run
	(echo "role=server $*" >"$run") &
	sleep 0.5
	echo "role=client $*" >"$run"
	wait
	;;
esac
dmesg | grep -E "kfi_pingpong: client|tcp_msg_inject_stream|BUG|WARNING"
cat /proc/kallsyms >"$out/kallsyms"
rmmod kfi_pingpong kfi_tcp_kunit 2>/dev/null
rmmod kfi_tcp kfabric
echo "iprof: guest done"

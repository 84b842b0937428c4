#!/bin/bash
# In the test VM, for scripts/timeline.sh: per round and run, loads the
# trace-built modules from KODIR, runs one kfi_pingpong client/server pair
# and copies kfi_tcp's trace ring to OUTDIR/trace-T-W-S-R.bin.
#   guest.sh KODIR OUTDIR ROUNDS TRANSPORT:WAIT:SIZE:ITERS...
kodir=$1 out=$2 rounds=$3
shift 3
exec >"$out/guest.log" 2>&1
ip link set lo up
dmesg -n 1
mount -t debugfs none /sys/kernel/debug 2>/dev/null
dbg=/sys/kernel/debug/kfi_pingpong
for r in $(seq "$rounds"); do
	for run in "$@"; do
		IFS=: read -r t w sz it <<<"$run"
		if ! insmod "$kodir/kfabric.ko" || ! insmod "$kodir/kfi_tcp.ko" ||
		   ! insmod "$kodir/kfi_pingpong.ko"; then
			echo "timeline: module load failed"
			exit 1
		fi
		keys="transport=$t wait=$w sizes=$sz iters=$it"
		(echo "role=server $keys" >"$dbg/run") &
		sleep 0.5
		echo "role=client $keys" >"$dbg/run"
		wait
		cp "$dbg/trace" "$out/trace-$t-$w-$sz-$r.bin"
		echo "run $t $w $sz $r: $(dmesg | grep -E 'kfi_pingpong: client' | tail -1)"
		dmesg | grep -E "BUG|WARNING|kfi_pingpong: .*failed"
		dmesg -c >/dev/null
		rmmod kfi_pingpong kfi_tcp kfabric
	done
done
echo "timeline: guest done"

#!/bin/bash
# Runs inside the test VM (as root): the hostile-peer tests.
#   guest.sh KODIR [hostile.py options]
# KODIR holds kfabric.ko, kfi_tcp.ko and kfi_pingpong.ko; kfabric and
# kfi_tcp are loaded if they are not (tests/guest/run.sh has loaded them
# and unloads them after). kfi_pingpong is loaded for the run and unloaded
# after it. Prints one "KFI-RESULT PASS|FAIL hostile_<name>" line per case,
# and "hostile6_<name>" for the cases run again over IPv6.
#   scripts/vm.sh "$(scripts/kernel.sh base)" --rwdir DIR \
#	"$PWD/tests/hostile/guest.sh DIR"
set -u
ko=${1:?module directory}
shift
here=$(cd "$(dirname "$0")" && pwd)

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
	if "$@"; then echo "KFI-RESULT PASS hostile_$name"; else echo "KFI-RESULT FAIL hostile_$name"; fi
}

loaded() { grep -q "^$1 " /proc/modules; }
loaded kfabric || insmod "$ko/kfabric.ko" || exit 1
loaded kfi_tcp || insmod "$ko/kfi_tcp.ko" || exit 1
loaded kfi_pingpong || insmod "$ko/kfi_pingpong.ko" ||
	{ result insmod_kfi_pingpong false; exit 1; }

python3 "$here/hostile.py" "$@"
# Over IPv6 (::1, results hostile6_*): the cases that truncate, break or
# end a connection, write or read out of bounds, garble the handshake, and
# the good ones, plus a kernel-initiated read answered well and badly; the
# wire is the same, so the outcomes must be too.
python3 "$here/hostile.py" --family 6 --port-base 47750 --only \
	truncated,msg_too_long,write_oob,read_oob,reset_mid_frame,reset_at_boundary,eof_awaiting_recv,cm_garbage,good_send,good_tagged,good_rma,good_read_6,read_rsp_short
result unload_pingpong rmmod kfi_pingpong
echo "--- kernel log of the hostile tests:"
dmesg | grep -E 'kfi_pingpong|kfi_tcp|WARNING|BUG|Oops|Call Trace' | tail -40

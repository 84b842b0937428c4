#!/bin/bash
# Runs inside the test VM for make soak (scripts/soak.sh):
#   soak-guest.sh KODIR LOG SECONDS [KEY=VALUE...]
# One kfi_stress run, "KFI-SOAK PASS|FAIL", then (debug kernel) a
# kmemleak scan, then the guest's dmesg; everything appended to LOG.
set -u
ko=${1:?module directory}
exec >>"${2:?log}" 2>&1
secs=${3:?seconds}
shift 3
dmesg -n 1 2>/dev/null
ip link set lo up
if "$(dirname "$0")/guest.sh" "$ko" "$secs" "$@"; then
	echo "KFI-SOAK PASS"
else
	echo "KFI-SOAK FAIL"
fi
rmmod kfi_tcp
rmmod kfabric
if [ -e /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
fi
echo "KFI-DMESG-BEGIN"
dmesg
echo "KFI-DMESG-END"

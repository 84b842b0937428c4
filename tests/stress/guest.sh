#!/bin/bash
# Runs inside the test VM (as root): one kfi_stress run.
#   guest.sh KODIR SECONDS [KEY=VALUE...]
# KODIR holds kfabric.ko, kfi_tcp.ko and kfi_stress.ko (kfabric and
# kfi_tcp are loaded if they are not, and left loaded). Prints the
# summary line of the run ("kfi_stress: ... errors=N") and exits 0 only
# when the run found no error.
set -u
ko=${1:?module directory}
secs=${2:?seconds}
shift 2
dbg=/sys/kernel/debug/kfi_stress
loaded() { grep -q "^$1 " /proc/modules; }
mount -t debugfs none /sys/kernel/debug 2>/dev/null
loaded kfabric || insmod "$ko/kfabric.ko" || exit 1
loaded kfi_tcp || insmod "$ko/kfi_tcp.ko" || exit 1
insmod "$ko/kfi_stress.ko" || exit 1
echo "seconds=$secs $*" >$dbg/run
rc=$?
line=$(cat $dbg/last)
echo "$line"
rmmod kfi_stress || rc=1
[ $rc -eq 0 ] && [[ "$line" == *" errors=0" ]]

#!/usr/bin/env bash
# Boot the test kernel in QEMU (virtme-ng, software emulation) and run one
# command in the guest as root; the guest's output comes back on stdout.
#   scripts/vm.sh KDIR [--rwdir DIR | --rodir DIR]... "command"
# With --rwdir, DIR is writable in the guest (the host's root is shared
# read-only otherwise); --rodir shares DIR read-only where the guest
# would not see it (the guest mounts a tmpfs on /var/cache: the cache's
# builds need it). Killing this script (e.g. by timeout) kills the VM.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=env.sh
. "$here/env.sh"
kdir=$1
# vng runs its helpers (virtme-run...) from PATH
export PATH=$KFABRIC_CACHE/venv/bin:$PATH
shift
rw=()
while [ "${1:-}" = --rwdir ] || [ "${1:-}" = --rodir ]; do
	rw+=("$1" "$2")
	shift 2
done
# KVM guests do not boot on these machines (nested virtualisation); use TCG
# unless KFABRIC_KVM=1 says otherwise.
kvm=--disable-kvm
[ "${KFABRIC_KVM:-0}" = 1 ] && kvm=
# KFI_QEMU_OPTS: more QEMU options (scripts/iprof.sh loads a TCG plugin,
# scripts/lnet-check.sh adds a NIC); KFI_VM_CPUS: vCPUs (2).
qopts=()
[ -n "${KFI_QEMU_OPTS:-}" ] && qopts=(--qemu-opts="$KFI_QEMU_OPTS")
# No stdin/TTY in CI: setsid and /dev/null keep vng off the terminal. vng
# runs in its own process group, killed as a whole if we are.
# shellcheck disable=SC2086
setsid "$VNG" $kvm --cpus "${KFI_VM_CPUS:-2}" --memory 2G --run "$kdir/arch/x86/boot/bzImage" \
	"${rw[@]}" "${qopts[@]}" --user root --exec "$*" </dev/null 2>&1 &
pid=$!
trap 'kill -TERM -- -$pid 2>/dev/null; sleep 2; kill -KILL -- -$pid 2>/dev/null' TERM INT
wait $pid

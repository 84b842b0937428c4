#!/usr/bin/env bash
# Boot the test kernel in QEMU (virtme-ng, software emulation) and run one
# command in the guest as root; the guest's output comes back on stdout.
#   scripts/vm.sh KDIR "command"
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=env.sh
. "$here/env.sh"
kdir=$1
# vng runs its helpers (virtme-run...) from PATH
export PATH=$KFABRIC_CACHE/venv/bin:$PATH
shift
# KVM guests do not boot on these machines (nested virtualisation); use TCG
# unless KFABRIC_KVM=1 says otherwise.
kvm=--disable-kvm
[ "${KFABRIC_KVM:-0}" = 1 ] && kvm=
# No stdin/TTY in CI: setsid and /dev/null keep vng off the terminal.
# shellcheck disable=SC2086
setsid "$VNG" $kvm --cpus 2 --memory 2G --run "$kdir/arch/x86/boot/bzImage" \
	--user root --exec "$*" </dev/null 2>&1

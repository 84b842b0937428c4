#!/usr/bin/env bash
# make demo: set up, build, boot the test kernel, load kfabric, kfi_tcp and
# kfi_verbs (on an rxe and a siw device) and print the provider/fabric/domain
# listing, then run a kernel<->kernel pingpong over the tcp provider (MSG
# endpoints, then RDM endpoints) and over the verbs provider on the rxe
# device (tests/pingpong/kfi_pingpong.ko) and print their results.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
variant=${1:-base}
# shellcheck source=env.sh
. "$here/env.sh"
"$here/setup.sh"
kdir=$("$here/kernel.sh" "$variant")
make -s -C "$top" KDIR="$kdir" RUSTC="$RUSTC" BINDGEN="$BINDGEN" KFI_TESTS=1 modules
kodir=$(mktemp -d)
trap 'rm -rf "$kodir"' EXIT
find "$top/rust" "$top/kfi_tcp" "$top/kfi_verbs" "$top/tests/pingpong" -name '*.ko' -exec cp {} "$kodir/" \;
"$here/vm.sh" "$kdir" "$top/tests/guest/run.sh demo $kodir" |
	sed -n '/^--- loaded/,/^KFI-DMESG-BEGIN/p' | grep -v '^KFI-DMESG-BEGIN'

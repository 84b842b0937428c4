# shellcheck shell=bash
# Common settings for the build and test scripts; sourced, never run.
# Everything that is built once per machine lives in $KFABRIC_CACHE, outside the repo.

KFABRIC_CACHE=${KFABRIC_CACHE:-/var/cache/kfabric}
BINDGEN_VERSION=0.73.2
VIRTME_NG_VERSION=1.42
LLVM_VERSION=19
BINDGEN=$KFABRIC_CACHE/tools/bin/bindgen
VNG=$KFABRIC_CACHE/venv/bin/vng
RUSTC=/usr/bin/rustc
export PATH=/usr/lib/llvm-$LLVM_VERSION/bin:$PATH
# kbuild flags for the kernel and for our out-of-tree modules
KMAKE_FLAGS="LLVM=1 RUSTC=$RUSTC BINDGEN=$BINDGEN"

# Apt packages: build of the kernel + modules, the emulator, and the guest userland.
APT_PACKAGES="linux-source-6.12 rustc-web rust-web-src clang-$LLVM_VERSION lld-$LLVM_VERSION
 llvm-$LLVM_VERSION libclang-$LLVM_VERSION-dev bc flex bison libelf-dev libssl-dev cpio kmod
 dwarves xz-utils qemu-system-x86 rdma-core ibverbs-utils libfabric-bin iproute2 python3-venv
 busybox dkms groff-base gnuplot-nox"

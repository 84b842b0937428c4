# SPDX-License-Identifier: GPL-2.0
#
#   make              build the modules against KDIR (default: the cached
#                     test kernel, set up and built on first use)
#   make KDIR=...     build against your own Rust-enabled kernel build tree
#   make check        every test: host, then KUnit and integration (in QEMU)
#                     on the base and on the debug kernel
#   make soak         the stress with data checks for SOAK_SECONDS (600)
#   make demo         boot the test kernel, load kfabric, print the listing
#   make bench        latency/bandwidth of kfi_tcp vs raw kernel TCP and
#                     userspace fi_pingpong, in QEMU (not part of check)
#   make iprof        instructions per message of kfi_tcp's path (IPv4, IPv6)
#                     and of kfi_verbs' and a raw queue pair's on rxe
#   make timeline     timestamps along a ping-pong's round trip (KFI_TRACE=1)
#   make lnet-check LUSTRE=<lustre-release checkout>
#                     unmodified Lustre LNet (kfilnd) over both providers
#                     between two guests, and LNet's own drivers (not part
#                     of check: Lustre is not downloaded)
#   make clean
#
# KERNEL=debug selects the debug test kernel (KASAN, lockdep, kmemleak...)
# instead of the base one; for make check, KERNEL=base or KERNEL=debug runs
# only that kernel's half.

KVARIANT = $(or $(KERNEL),base)
SCRIPTS := $(CURDIR)/scripts

ifeq ($(origin KDIR),undefined)
# Our cached test kernel; set up and built on first use.
KDIR_CMD = $(SCRIPTS)/setup.sh && $(SCRIPTS)/kernel.sh $(KVARIANT)
export PATH := /usr/lib/llvm-19/bin:$(PATH)
KBUILD_TOOLS = LLVM=1 RUSTC=/usr/bin/rustc \
	BINDGEN=$(or $(KFABRIC_CACHE),/var/cache/kfabric)/tools/bin/bindgen
else
KDIR_CMD = echo $(KDIR)
# A user's kernel: build the way it was built (clang => LLVM=1); RUSTC and
# BINDGEN may be overridden on the command line.
KBUILD_TOOLS = $(if $(shell grep -s '^CONFIG_CC_IS_CLANG=y' $(KDIR)/include/config/auto.conf),LLVM=1) \
	$(if $(RUSTC),RUSTC=$(RUSTC)) $(if $(BINDGEN),BINDGEN=$(BINDGEN))
endif

.PHONY: all modules check soak demo bench iprof timeline lnet-check clean clean-objs host-test

all: modules

# Objects built against one kernel are useless (and, for the Rust parts,
# not always noticed as stale by kbuild) against another: switching KDIR
# (e.g. base <-> debug test kernel) starts from clean objects.
modules:
	@kdir=$$($(KDIR_CMD)) && \
	if [ "$$(cat .kfi-kdir 2>/dev/null)" != "$$kdir" ]; then \
		$(MAKE) -s clean-objs && echo "$$kdir" >.kfi-kdir; fi && \
	$(MAKE) -C $$kdir M=$(CURDIR) $(KBUILD_TOOLS) $(if $(KFI_TESTS),KFI_TESTS=1) \
		$(if $(KFI_TRACE),KFI_TRACE=1) modules

check:
	@$(SCRIPTS)/check.sh $(or $(KERNEL),base debug)

# The stress of make check (tests/stress/), for longer: SOAK_SECONDS=600.
soak:
	@$(SCRIPTS)/soak.sh $(KVARIANT)

demo:
	@$(SCRIPTS)/demo.sh $(KVARIANT)

lnet-check:
	@$(SCRIPTS)/lnet-check.sh $(or $(LUSTRE),$(error LUSTRE=<lustre-release checkout> is required)) $(KVARIANT) $(LND)

bench:
	@$(SCRIPTS)/bench.sh $(KVARIANT)

# Instructions per message of the provider's path (Documentation/benchmarks.md),
# over IPv4 (127.0.0.1) and then over IPv6 (::1); then a 64-byte ping-pong
# on an rxe device: kfi_verbs, MSG and RDM (blocking reads, so that no
# busy poll is counted), and ibv_pingpong's raw queue pair (it busy-polls:
# its module's count is mostly the poll loop).
iprof:
	@KFI_LOGDIR=$(CURDIR)/.iprof-logs/ipv4 $(SCRIPTS)/iprof.sh stream
	@KFI_LOGDIR=$(CURDIR)/.iprof-logs/ipv6 $(SCRIPTS)/iprof.sh stream 20000 ::1
	@KFI_LOGDIR=$(CURDIR)/.iprof-logs/verbs KFI_IPROF_TOP=0 $(SCRIPTS)/iprof.sh pingpong \
		prov=verbs addr=10.95.0.1 wait=sleep sizes=64 iters=1000
	@KFI_LOGDIR=$(CURDIR)/.iprof-logs/verbs-rdm KFI_IPROF_TOP=0 $(SCRIPTS)/iprof.sh pingpong \
		prov=verbs ep=rdm addr=10.95.0.1 wait=sleep sizes=64 iters=1000
	@KFI_LOGDIR=$(CURDIR)/.iprof-logs/ibv KFI_IPROF_TOP=0 $(SCRIPTS)/iprof.sh pingpong \
		transport=ibv addr=10.95.0.1 wait=spin sizes=64 iters=1000

# Where a 64-byte ping-pong's time goes, kfi_tcp against raw TCP (same file).
timeline:
	@$(SCRIPTS)/timeline.sh

host-test:
	cargo test

clean: clean-objs
	rm -rf target .kfi-kdir

clean-objs:
	find . \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '*.cmd' -o -name 'modules.order' -o -name 'Module.symvers' \
		-o -name '*.rmeta' -o -name '*_generated.rs' -o -name '*.d' \) \
		-not -path './.git/*' -not -path './.check-logs/*' \
		-not -path './.bench-logs/*' -not -path './.soak-logs/*' -not -path './.timeline-logs/*' \
		-not -path './target/*' -delete

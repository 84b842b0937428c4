# SPDX-License-Identifier: GPL-2.0
#
#   make              build the modules against KDIR (default: the cached
#                     test kernel, set up and built on first use)
#   make KDIR=...     build against your own Rust-enabled kernel build tree,
#                     with the rustc/bindgen/clang that built it
#                     (scripts/kbuild-tools.sh; RUSTC=/BINDGEN= to choose)
#   make check        every test: host, then KUnit and integration (in QEMU)
#                     on the base and on the debug kernel
#   make soak         the stress with data checks for SOAK_SECONDS (600)
#   make demo         boot the test kernel, load kfabric, print the listing
#   make bench        latency/bandwidth of kfi_tcp vs raw kernel TCP and
#                     userspace fi_pingpong, in QEMU (not part of check):
#                     tables and plots (PNG) in .bench-logs/
#   make iprof        instructions per message of kfi_tcp's path (IPv4, IPv6)
#                     and of kfi_verbs' and a raw queue pair's on rxe
#   make timeline     timestamps along a ping-pong's round trip (KFI_TRACE=1)
#   make lnet-check LUSTRE=<lustre-release checkout>
#                     unmodified Lustre LNet (kfilnd) over both providers
#                     between two guests, and LNet's own drivers (not part
#                     of check: Lustre is not downloaded)
#   make man          man pages (section 3) of every kfi_* call, inline
#                     wrapper and type in include/, from the kernel-doc,
#                     into man/ (needs the kernel's scripts/kernel-doc:
#                     found in KDIR or the cached test kernel, or KERNELDOC=)
#   make install      the modules into /lib/modules/<release>/extra (and
#                     depmod), the headers and Module.symvers into
#                     /usr/src/kfabric (a consumer's --with-kfi directory),
#                     the man pages into /usr/share/man, kfi_info into
#                     /usr/bin; DESTDIR= stages
#   make uninstall    removes what make install installed (its list is
#                     /usr/src/kfabric/installed-files)
#   make dkms-src     the source as DKMS wants it in /usr/src/kfabric-<version>
#                     (then: dkms install kfabric/<version>; see dkms.conf)
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
else
KDIR_CMD = echo $(KDIR)
# A user's kernel: built with the compilers that built it (clang =>
# LLVM=1; the rustc and bindgen of its CONFIG_*_VERSION_TEXT, found among
# those installed or checked when RUSTC=/BINDGEN= are given). A mismatch
# stops here with one line naming both versions.
ifneq ($(filter all modules install,$(or $(MAKECMDGOALS),all)),)
KBUILD_TOOLS := $(shell $(SCRIPTS)/kbuild-tools.sh '$(KDIR)' '$(RUSTC)' '$(BINDGEN)' 2>&1)
ifneq ($(.SHELLSTATUS),0)
$(error $(KBUILD_TOOLS))
endif
endif
endif
# (the test kernel's tools are resolved the same way, once it exists)
TOOLS_CMD = $(if $(KBUILD_TOOLS),echo '$(KBUILD_TOOLS)',$(SCRIPTS)/kbuild-tools.sh "$$kdir" '$(RUSTC)' '$(BINDGEN)')
# LLVM=<dir>/ also goes first on PATH: DKMS passes CC=clang LD=ld.lld.
LLVM_PATH = for t in $$tools; do case $$t in LLVM=/*) PATH=$${t\#LLVM=}:$$PATH;; esac; done; export PATH

# The package version (DKMS's, the man pages'): dkms.conf holds it.
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(CURDIR)/dkms.conf)
# Where make install puts the headers and Module.symvers (what a consumer's
# build, e.g. Lustre's ./configure --with-kfi=, points at), the man pages,
# and the source DKMS builds from.
KFI_SRC_DIR ?= /usr/src/kfabric
MANDIR ?= /usr/share/man
BINDIR ?= /usr/bin
DKMS_SRC_DIR ?= /usr/src/kfabric-$(VERSION)
# The modules make install installs (never the test modules; kfi_pingpong.ko
# is tools/kfi_pingpong's kernel end).
KFI_MODULES = rust/kfabric.ko kfi_tcp/kfi_tcp.ko tests/pingpong/kfi_pingpong.ko \
	$(wildcard kfi_verbs/kfi_verbs.ko)

.PHONY: all modules check soak demo bench iprof timeline lnet-check clean clean-objs host-test \
	man install uninstall dkms-src

all: modules

# Objects built against one kernel are useless (and, for the Rust parts,
# not always noticed as stale by kbuild) against another: switching KDIR
# (e.g. base <-> debug test kernel) starts from clean objects.
modules:
	@kdir=$$($(KDIR_CMD)) && tools=$$($(TOOLS_CMD)) && \
	if [ "$$(cat .kfi-kdir 2>/dev/null)" != "$$kdir" ]; then \
		$(MAKE) -s clean-objs && echo "$$kdir" >.kfi-kdir; fi && \
	$(LLVM_PATH) && $(MAKE) -C $$kdir M=$(CURDIR) $$tools $(if $(KFI_TESTS),KFI_TESTS=1) \
		$(if $(KFI_TRACE),KFI_TRACE=1) modules

# Man pages from the headers' kernel-doc (scripts/man.sh).
man:
	@$(SCRIPTS)/man.sh "$(or $(KERNELDOC),$(if $(KDIR),$(KDIR)/scripts/kernel-doc))" \
		"$(VERSION)" man

# The modules without the test ones (a KFI_TESTS build leaves them in
# modules.order otherwise), then kbuild's modules_install (which runs
# depmod), the headers, Module.symvers and the man pages. Every file
# installed is listed in $(KFI_SRC_DIR)/installed-files for make uninstall.
install: man
	@$(MAKE) --no-print-directory modules KFI_TESTS= KFI_TRACE=
	@kdir=$$($(KDIR_CMD)) && tools=$$($(TOOLS_CMD)) && $(LLVM_PATH) && \
	$(SCRIPTS)/install.sh install "$$kdir" "$(DESTDIR)" "$(KFI_SRC_DIR)" "$(MANDIR)" "$(BINDIR)" \
		"$(MAKE) -C $$kdir M=$(CURDIR) $$tools INSTALL_MOD_DIR=extra modules_install" \
		$(KFI_MODULES)

uninstall:
	@$(SCRIPTS)/install.sh uninstall "" "$(DESTDIR)" "$(KFI_SRC_DIR)" "$(MANDIR)"

# The source tree DKMS builds from (dkms.conf at its top): the files git
# tracks (and new ones not ignored), or, outside git, the tree without its
# build products.
dkms-src:
	@$(SCRIPTS)/install.sh dkms-src "" "$(DESTDIR)" "$(DKMS_SRC_DIR)"

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
	rm -rf target man .kfi-kdir

clean-objs:
	find . \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '*.cmd' -o -name 'modules.order' -o -name 'Module.symvers' \
		-o -name '*.rmeta' -o -name '*_generated.rs' -o -name '*.d' \) \
		-not -path './.git/*' -not -path './.check-logs/*' \
		-not -path './.bench-logs/*' -not -path './.soak-logs/*' -not -path './.timeline-logs/*' \
		-not -path './target/*' -delete

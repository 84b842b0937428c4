# SPDX-License-Identifier: GPL-2.0
# Shared by the modules' Kbuild files: generate a Rust view of C headers
# with bindgen, using the exact C flags Kbuild uses for the module's C files.
#
#   $(obj)/foo_generated.rs: $(src)/foo.h FORCE
#   	$(call if_changed,kfi_bindgen)
#
# with kfi_bindgen_allow set to the module's allowlist options.

kfi_include := $(src)/../include
ccflags-y += -I$(kfi_include)

kfi_bindgen_cflags = $(filter-out -Wp% -fno-var-tracking% -mfunction-return% \
	-fzero-call% -fmin-function-align% -fstrict-flex-arrays% -Werror%,$(c_flags))

quiet_cmd_kfi_bindgen = BINDGEN $@
      cmd_kfi_bindgen = $(BINDGEN) $< --use-core --wrap-unsafe-ops \
	--no-layout-tests --ctypes-prefix core::ffi --no-prepend-enum-name \
	--no-doc-comments --no-debug '.*' $(kfi_bindgen_allow) \
	--opaque-type 'completion' --opaque-type 'atomic_t' \
	--opaque-type 'module' --opaque-type 'page' --opaque-type 'scatterlist' \
	--opaque-type 'bio_vec' --opaque-type 'kvec' --opaque-type 'sockaddr.*' \
	-o $@ -- $(kfi_bindgen_cflags) -D__BINDGEN__ -Wno-unused-command-line-argument

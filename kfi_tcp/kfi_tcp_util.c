// SPDX-License-Identifier: GPL-2.0
/* kfi_tcp.ko's copy of the provider toolkit's C side (kfi_util/). */
#include "../kfi_util/kfi_util_glue.c"
#include "../kfi_util/kfi_util_xfer.c"

// SPDX-License-Identifier: GPL-2.0
/*
 * kfi_verbs.ko's copy of the provider toolkit's C side (kfi_util/,
 * kfi_trigger/).
 */
#include "../kfi_util/kfi_util_glue.c"
#include "../kfi_util/kfi_util_trace.c"
#include "../kfi_util/kfi_util_xfer.c"
#include "../kfi_trigger/kfi_trigger_glue.c"

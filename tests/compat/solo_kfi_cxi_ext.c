// SPDX-License-Identifier: GPL-2.0
/* kfi_cxi_ext.h compiles on its own and twice (include guard). */
#include <kfi_cxi_ext.h>
#include <kfi_cxi_ext.h>

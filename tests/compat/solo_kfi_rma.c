// SPDX-License-Identifier: GPL-2.0
/* kfi_rma.h compiles on its own and twice (include guard). */
#include <kfi_rma.h>
#include <kfi_rma.h>

// SPDX-License-Identifier: GPL-2.0
/* kfi_atomic.h compiles on its own and twice (include guard). */
#include <kfi_atomic.h>
#include <kfi_atomic.h>

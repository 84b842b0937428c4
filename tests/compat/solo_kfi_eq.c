// SPDX-License-Identifier: GPL-2.0
/* kfi_eq.h compiles on its own and twice (include guard). */
#include <kfi_eq.h>
#include <kfi_eq.h>

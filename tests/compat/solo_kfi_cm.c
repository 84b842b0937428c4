// SPDX-License-Identifier: GPL-2.0
/* kfi_cm.h compiles on its own and twice (include guard). */
#include <kfi_cm.h>
#include <kfi_cm.h>

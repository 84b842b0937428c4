// SPDX-License-Identifier: GPL-2.0
/* kfi_trigger.h compiles on its own and twice (include guard). */
#include <kfi_trigger.h>
#include <kfi_trigger.h>

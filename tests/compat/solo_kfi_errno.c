// SPDX-License-Identifier: GPL-2.0
/* kfi_errno.h compiles on its own and twice (include guard). */
#include <kfi_errno.h>
#include <kfi_errno.h>

// SPDX-License-Identifier: GPL-2.0
/* kfi_enosys.h compiles on its own and twice (include guard). */
#include <kfi_enosys.h>
#include <kfi_enosys.h>

// SPDX-License-Identifier: GPL-2.0
/* kfi_domain.h compiles on its own and twice (include guard). */
#include <kfi_domain.h>
#include <kfi_domain.h>

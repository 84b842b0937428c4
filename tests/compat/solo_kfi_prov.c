// SPDX-License-Identifier: GPL-2.0
/* kfi_prov.h compiles on its own and twice (include guard). */
#include <kfi_prov.h>
#include <kfi_prov.h>

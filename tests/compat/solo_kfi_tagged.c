// SPDX-License-Identifier: GPL-2.0
/* kfi_tagged.h compiles on its own and twice (include guard). */
#include <kfi_tagged.h>
#include <kfi_tagged.h>

// SPDX-License-Identifier: GPL-2.0
/* kfi_endpoint.h compiles on its own and twice (include guard). */
#include <kfi_endpoint.h>
#include <kfi_endpoint.h>

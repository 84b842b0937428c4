// SPDX-License-Identifier: GPL-2.0
/* kfabric.h compiles on its own and twice (include guard). */
#include <kfabric.h>
#include <kfabric.h>

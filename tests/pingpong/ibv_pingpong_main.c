// SPDX-License-Identifier: GPL-2.0
/*
 * ibv_pingpong.ko: kfi_pingpong.c with transport=ibv, the same exchange
 * over a raw RC queue pair through ib_verbs and rdma_cm (the baseline of
 * the verbs provider's benchmark). A module of its own because it needs
 * the RDMA core loaded, which kfi_pingpong.ko must not (it runs where no
 * RDMA module is). Its debugfs directory is /sys/kernel/debug/ibv_pingpong.
 */
#define PP_WITH_IBV 1
#include "kfi_pingpong.c"

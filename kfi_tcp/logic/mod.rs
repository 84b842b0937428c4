// SPDX-License-Identifier: GPL-2.0
//! Kernel-independent logic of kfi_tcp.ko, also built as the host crate
//! `host/kfi-tcp-logic` (see `rust/logic` for the pattern).

pub mod plan;

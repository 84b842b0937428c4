// SPDX-License-Identifier: GPL-2.0
//! Host build of `rust/logic`: the same source files `kfabric.ko` compiles.
#![no_std]

#[path = "../../rust/logic/mod.rs"]
pub mod logic;

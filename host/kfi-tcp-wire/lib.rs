// SPDX-License-Identifier: GPL-2.0
//! Host build of `kfi_tcp/wire`, the frame codec of the sockets provider
//! (libfabric 1.17 `tcp` wire protocol): the same source files
//! `kfi_tcp.ko` compiles, tested in `tests/`.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs, unsafe_op_in_unsafe_fn)]

#[path = "../../kfi_tcp/wire/mod.rs"]
pub mod wire;

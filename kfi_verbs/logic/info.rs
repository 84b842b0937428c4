// SPDX-License-Identifier: GPL-2.0
//! What the verbs provider's `kfi_getinfo` entries say of an RDMA port:
//! names as libfabric 1.17's verbs provider gives them, and sizes within
//! the device's limits. Kernel-independent (also the host crate
//! `kfi-verbs-logic`).

use core::fmt::{self, Write};

/// The fabric name of a port: `Ethernet-iWARP` for iWARP devices, else
/// (InfiniBand transport: IB, RoCE) `IB-0x` and the subnet prefix of the
/// port's GID 0 in lower-case hex without leading zeros (libfabric's
/// `"IB-0x%" PRIx64`).
pub fn fabric_name(w: &mut impl Write, iwarp: bool, gid_prefix: u64) -> fmt::Result {
    if iwarp {
        w.write_str("Ethernet-iWARP")
    } else {
        write!(w, "IB-0x{gid_prefix:x}")
    }
}

/// Deepest transmit or receive queue offered.
pub const QUEUE_SIZE: usize = 1024;

/// The queue depth offered on a device whose work queues hold at most
/// `max_qp_wr` requests: one is kept back for draining the queue pair at
/// teardown (the drain posts its own request).
pub fn queue_size(max_qp_wr: u32) -> usize {
    (max_qp_wr as usize).saturating_sub(1).min(QUEUE_SIZE)
}

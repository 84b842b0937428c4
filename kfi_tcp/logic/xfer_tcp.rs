// SPDX-License-Identifier: GPL-2.0
//! Transfer rules of the libfabric tcp wire protocol that need no kernel:
//! how many frames an RMA takes and which sends ask the peer for an ACK.
//! The provider-independent rules are kfi_util/logic/xfer.rs.

use crate::logic::xfer::{F_DELIVERY_COMPLETE, F_TRANSMIT_COMPLETE};

/// Remote regions one frame of the wire protocol carries: an RMA over more
/// is sent as several frames ([`rma_chunks`]).
pub const WIRE_RMA_IOVS: usize = 4;

/// Frames an RMA over `n_regions` regions takes (1 for other operations,
/// `n_regions` 0).
pub const fn rma_chunks(n_regions: usize) -> usize {
    if n_regions <= WIRE_RMA_IOVS {
        1
    } else {
        n_regions.div_ceil(WIRE_RMA_IOVS)
    }
}

/// Whether a send asks the peer for an ACK (delivery-complete flag on the
/// wire): transmit- and delivery-complete both mean "the peer has it".
pub const fn wants_ack(flags: u64) -> bool {
    flags & (F_TRANSMIT_COMPLETE | F_DELIVERY_COMPLETE) != 0
}

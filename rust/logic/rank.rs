// SPDX-License-Identifier: GPL-2.0
//! Order of the list `kfi_getinfo` returns: best first.
//!
//! "Best" is the transport with the most offload: entries whose endpoint
//! protocol runs on RDMA hardware come before software transports; within a
//! rank the providers' own order is kept (a stable sort), and each provider
//! already lists its entries best-first.

use crate::logic::abi::*;
use crate::logic::view::Info;

/// Smaller is better.
pub fn rank(info: &Info<'_>) -> u8 {
    match info.ep.map(|e| e.protocol).unwrap_or(KFI_PROTO_UNSPEC) {
        KFI_PROTO_RDMA_CM_IB_RC | KFI_PROTO_IWARP | KFI_PROTO_IB_RDM | KFI_PROTO_IWARP_RDM
        | KFI_PROTO_IB_UD | KFI_PROTO_CXI | KFI_PROTO_GNI => 0,
        KFI_PROTO_SOCK_TCP | KFI_PROTO_UDP => 1,
        _ => 2,
    }
}

/// Stable insertion sort of `items` by `key` (lists are short; no allocation).
pub fn stable_sort_by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 && key(&items[j - 1]) > key(&items[j]) {
            items.swap(j - 1, j);
            j -= 1;
        }
    }
}

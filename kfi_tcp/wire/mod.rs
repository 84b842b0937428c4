// SPDX-License-Identifier: GPL-2.0
//! Frame codec of the sockets provider: the wire protocol of userspace
//! libfabric 1.17's `tcp` provider for `FI_EP_MSG` endpoints.
//!
//! A connection starts with one control message in each direction
//! ([`cm`]: a 32-byte header followed by up to 256 bytes of CM data), then
//! carries data frames ([`hdr`]): a 16-byte base header, optional 8-byte
//! extension words (CQ data, tag, RMA iovs) and the payload.
//!
//! The module is written against `core` only, uses no `unsafe`, never
//! panics on any input and never overflows: it is compiled both into
//! `kfi_tcp.ko` and into the host crate `host/kfi-tcp-wire`, whose tests
//! pin every layout byte by byte.
//!
//! Layout:
//! - [`order`]: byte order of a connection's multi-byte fields;
//! - [`error`]: [`WireError`] and its Linux errno mapping;
//! - [`hdr`]: data frame headers (send, tagged, ACK, RMA read/write);
//! - [`cm`]: connection-management messages (connreq, connresp, nack).

pub mod cm;
pub mod error;
pub mod hdr;
pub mod order;

pub use cm::{CmHeader, CmType};
pub use error::WireError;
pub use hdr::{header_len, Flags, Frame, FrameKind, MsgHeader, Op, RawBase, RmaIov, TagForm};
pub use order::ByteOrder;

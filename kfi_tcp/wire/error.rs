// SPDX-License-Identifier: GPL-2.0
//! What can be wrong with a frame, and the Linux errno each case maps to.
//!
//! Mapping policy ([`WireError::errno`]):
//! - `-EPROTO`: the peer broke a protocol rule (bad version, unknown op or
//!   control type, flags or op_data not allowed, `hdr_size` not the one
//!   the op and flags imply, too many RMA iovs, bad ACK, bad endianness
//!   probe). libfabric drops the connection on these; so should we.
//! - `-EBADMSG`: the frame's lengths are inconsistent (`size` below
//!   `hdr_size`, a payload where none is allowed) or the buffer ends before
//!   the frame does ([`WireError::Truncated`]; a stream reader should treat
//!   that one as "read `need` bytes and retry", not as a failure).
//! - `-EMSGSIZE`: a length limit (payload larger than the RMA iovs it
//!   targets, CM data above 256 bytes, a size that overflows 64 bits).
//! - `-ENOPROTOOPT`: control-header version mismatch (what libfabric
//!   reports for it).
//! - `-ECONNREFUSED`: the peer answered with a nack, or with a control
//!   message of the wrong type (libfabric reports both this way).
//! - `-ENOBUFS`: the caller's output buffer is too small.
//! - `-EINVAL`: the caller passed a payload whose length disagrees with
//!   the header.

/// Linux errno values (asm-generic numbering, used by x86 and arm64).
pub mod errno {
    /// Invalid argument.
    pub const EINVAL: i32 = 22;
    /// Protocol error.
    pub const EPROTO: i32 = 71;
    /// Not a data message.
    pub const EBADMSG: i32 = 74;
    /// Message too long.
    pub const EMSGSIZE: i32 = 90;
    /// Protocol not available.
    pub const ENOPROTOOPT: i32 = 92;
    /// No buffer space available.
    pub const ENOBUFS: i32 = 105;
    /// Connection refused.
    pub const ECONNREFUSED: i32 = 111;
}

/// Why a frame could not be decoded or encoded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WireError {
    /// The input ends before the header or frame does; `need` is the total
    /// number of bytes (from the start of the frame) required to go on.
    Truncated {
        /// Total length needed, counted from the start of the frame.
        need: usize,
    },
    /// The output buffer is too small; `need` is the length required.
    BufferTooSmall {
        /// Total length needed.
        need: usize,
    },
    /// Data header version is not 3.
    BadVersion(u8),
    /// Data header op is not one of msg, tagged, read req, read rsp, write.
    UnknownOp(u8),
    /// Flags carry an unknown bit, or a bit not allowed with this op.
    BadFlags(u16),
    /// `op_data` of a msg frame is neither 0 nor ACK (2).
    BadOpData(u8),
    /// `hdr_size` is not what the op, flags and iov count imply.
    BadHdrSize {
        /// Value found on the wire.
        got: u8,
        /// Value implied by op, flags and `rma_iov_cnt`.
        expected: usize,
    },
    /// `size` (header + payload) is smaller than `hdr_size`.
    SizeTooSmall {
        /// Value of the `size` field.
        size: u64,
        /// Header length.
        hdr_size: usize,
    },
    /// A read request or ACK carries payload (`size` ≠ `hdr_size`).
    UnexpectedPayload {
        /// Value of the `size` field.
        size: u64,
    },
    /// More than 4 RMA iovs.
    TooManyIovs(usize),
    /// An ACK (op msg, op_data 2) that is not a bare 16-byte header with
    /// no flags.
    BadAck,
    /// A write's payload is longer than the sum of its RMA iov lengths.
    PayloadExceedsRma {
        /// Payload length.
        payload: u64,
        /// Sum of the iov lengths (saturated at `u64::MAX`).
        rma_total: u64,
    },
    /// Header plus payload length does not fit the 64-bit `size` field.
    SizeOverflow,
    /// `encode_frame` was given a payload whose length differs from the
    /// header's.
    PayloadLenMismatch {
        /// Payload length the header announces.
        expected: u64,
        /// Length of the payload given.
        got: usize,
    },
    /// Control header version is not 3.
    BadCmVersion(u8),
    /// Control header type is not connreq (0), connresp (1) or nack (6).
    UnknownCmType(u8),
    /// A known control message type, but not the one expected here.
    UnexpectedCmType {
        /// Type expected.
        expected: u8,
        /// Type received.
        got: u8,
    },
    /// The peer rejected the connection (nack).
    Rejected,
    /// CM data longer than 256 bytes.
    CmDataTooLong(usize),
    /// `conn_data` of a connreq/connresp is not 1 in either byte order.
    BadEndianProbe(u64),
}

impl WireError {
    /// The negative Linux errno for this error (see the module docs).
    pub const fn errno(&self) -> i32 {
        use errno::*;
        let e = match self {
            WireError::Truncated { .. }
            | WireError::SizeTooSmall { .. }
            | WireError::UnexpectedPayload { .. } => EBADMSG,
            WireError::BufferTooSmall { .. } => ENOBUFS,
            WireError::BadVersion(_)
            | WireError::UnknownOp(_)
            | WireError::BadFlags(_)
            | WireError::BadOpData(_)
            | WireError::BadHdrSize { .. }
            | WireError::TooManyIovs(_)
            | WireError::BadAck
            | WireError::UnknownCmType(_)
            | WireError::BadEndianProbe(_) => EPROTO,
            WireError::PayloadExceedsRma { .. }
            | WireError::SizeOverflow
            | WireError::CmDataTooLong(_) => EMSGSIZE,
            WireError::PayloadLenMismatch { .. } => EINVAL,
            WireError::BadCmVersion(_) => ENOPROTOOPT,
            WireError::UnexpectedCmType { .. } | WireError::Rejected => ECONNREFUSED,
        };
        e.wrapping_neg()
    }

    /// Whether the error only means "more input is needed".
    pub const fn is_truncated(&self) -> bool {
        matches!(self, WireError::Truncated { .. })
    }
}

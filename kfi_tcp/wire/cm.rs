// SPDX-License-Identifier: GPL-2.0
//! Connection-management messages: the first bytes each side sends.
//!
//! The active side sends a connreq, the passive side answers with a
//! connresp (accept) or a nack (reject). Each is a 32-byte control header
//! followed by `seg_size` bytes of CM data (at most 256):
//!
//! | off | size | field       | value                                  |
//! |-----|------|-------------|----------------------------------------|
//! | 0   | 1    | `version`   | 3                                      |
//! | 1   | 1    | `type`      | connreq 0, connresp 1, nack 6          |
//! | 2   | 2    | `seg_size`  | CM data length, **big-endian**         |
//! | 4   | 4    | `seg_no`    | 0                                      |
//! | 8   | 8    | `conn_id`   | 0                                      |
//! | 16  | 8    | `msg_id`    | 0                                      |
//! | 24  | 8    | `conn_data` | 1 in the sender's byte order (probe)   |
//!
//! libfabric 1.17 zeroes the header before filling it and sets the probe
//! on connreq and connresp only: its nack carries `conn_data` 0. The
//! receiver ignores `seg_no`, `conn_id` and `msg_id`, and so do we.

use super::error::WireError;
use super::order::{get_array, get_u8, put_bytes, ByteOrder};

/// Control header version.
pub const CTRL_HDR_VERSION: u8 = 3;
/// Size of the control header.
pub const CM_HDR_SIZE: usize = 32;
/// Maximum CM data length (`FI_OPT_CM_DATA_SIZE` of the tcp provider).
pub const MAX_CM_DATA: usize = 256;

const OFF_VERSION: usize = 0;
const OFF_TYPE: usize = 1;
const OFF_SEG_SIZE: usize = 2;
const OFF_CONN_DATA: usize = 24;

/// Control message type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CmType {
    /// Connection request (active side).
    ConnReq = 0,
    /// Connection accepted (passive side).
    ConnResp = 1,
    /// Connection rejected (passive side).
    Nack = 6,
}

impl CmType {
    /// The type for a wire value, or [`WireError::UnknownCmType`].
    pub const fn from_u8(v: u8) -> Result<CmType, WireError> {
        match v {
            0 => Ok(CmType::ConnReq),
            1 => Ok(CmType::ConnResp),
            6 => Ok(CmType::Nack),
            _ => Err(WireError::UnknownCmType(v)),
        }
    }

    /// The wire value.
    pub const fn as_u8(self) -> u8 {
        self as u8
    }
}

/// A validated control header.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CmHeader {
    kind: CmType,
    data_len: u16,
    conn_data: [u8; 8],
}

impl CmHeader {
    /// The header we send: `kind` with `data_len` bytes of CM data,
    /// written by a host of byte order `local` (the probe is 1 in that
    /// order; 0 on a nack, as libfabric 1.17 sends it).
    pub fn new(kind: CmType, data_len: usize, local: ByteOrder) -> Result<CmHeader, WireError> {
        if data_len > MAX_CM_DATA {
            return Err(WireError::CmDataTooLong(data_len));
        }
        let data_len = u16::try_from(data_len).map_err(|_| WireError::CmDataTooLong(data_len))?;
        let conn_data = match kind {
            CmType::Nack => [0; 8],
            CmType::ConnReq | CmType::ConnResp => local.u64_to(1),
        };
        Ok(CmHeader {
            kind,
            data_len,
            conn_data,
        })
    }

    /// The message type.
    pub const fn kind(&self) -> CmType {
        self.kind
    }

    /// Length of the CM data that follows the header.
    pub const fn data_len(&self) -> usize {
        self.data_len as usize
    }

    /// Length of the whole message: header plus CM data.
    pub const fn msg_len(&self) -> usize {
        CM_HDR_SIZE.saturating_add(self.data_len as usize)
    }

    /// The `conn_data` bytes as received.
    pub const fn conn_data_raw(&self) -> [u8; 8] {
        self.conn_data
    }

    /// The sender's byte order according to its probe, or `None` when
    /// `conn_data` is not 1 in either order (a nack's is 0).
    pub fn sender_order(&self) -> Option<ByteOrder> {
        if u64::from_le_bytes(self.conn_data) == 1 {
            Some(ByteOrder::Little)
        } else if u64::from_be_bytes(self.conn_data) == 1 {
            Some(ByteOrder::Big)
        } else {
            None
        }
    }

    /// Byte order of the data frames on this connection, for a local host
    /// of order `local` that received this (connreq or connresp) header:
    /// the common order if both sides have the same, big-endian otherwise.
    /// A probe that is not 1 in either order is refused (libfabric would
    /// silently assume a mismatch; none of its senders produces one).
    pub fn msg_order(&self, local: ByteOrder) -> Result<ByteOrder, WireError> {
        match self.sender_order() {
            Some(peer) if peer == local => Ok(local),
            Some(_) => Ok(ByteOrder::Big),
            None => Err(WireError::BadEndianProbe(local.u64_from(self.conn_data))),
        }
    }

    /// Checks that this is the reply expected: `Ok` for `expected`,
    /// [`WireError::Rejected`] for a nack, [`WireError::UnexpectedCmType`]
    /// for any other type.
    pub fn check(&self, expected: CmType) -> Result<(), WireError> {
        if self.kind == expected {
            Ok(())
        } else if self.kind == CmType::Nack {
            Err(WireError::Rejected)
        } else {
            Err(WireError::UnexpectedCmType {
                expected: expected.as_u8(),
                got: self.kind.as_u8(),
            })
        }
    }

    /// The header in wire form.
    pub fn to_bytes(&self) -> [u8; CM_HDR_SIZE] {
        let mut out = [0u8; CM_HDR_SIZE];
        out[OFF_VERSION] = CTRL_HDR_VERSION;
        out[OFF_TYPE] = self.kind.as_u8();
        let [s0, s1] = self.data_len.to_be_bytes();
        out[OFF_SEG_SIZE] = s0;
        out[OFF_SEG_SIZE + 1] = s1;
        let [c0, c1, c2, c3, c4, c5, c6, c7] = self.conn_data;
        out[OFF_CONN_DATA] = c0;
        out[OFF_CONN_DATA + 1] = c1;
        out[OFF_CONN_DATA + 2] = c2;
        out[OFF_CONN_DATA + 3] = c3;
        out[OFF_CONN_DATA + 4] = c4;
        out[OFF_CONN_DATA + 5] = c5;
        out[OFF_CONN_DATA + 6] = c6;
        out[OFF_CONN_DATA + 7] = c7;
        out
    }

    /// Writes the 32-byte header to the start of `buf`; returns 32.
    pub fn encode(&self, buf: &mut [u8]) -> Result<usize, WireError> {
        put_bytes(buf, 0, &self.to_bytes())?;
        Ok(CM_HDR_SIZE)
    }

    /// Decodes and validates the header at the start of `buf` (32 bytes;
    /// more are ignored): version 3, known type, `seg_size` ≤ 256.
    pub fn decode(buf: &[u8]) -> Result<CmHeader, WireError> {
        if buf.len() < CM_HDR_SIZE {
            return Err(WireError::Truncated { need: CM_HDR_SIZE });
        }
        let version = get_u8(buf, OFF_VERSION)?;
        if version != CTRL_HDR_VERSION {
            return Err(WireError::BadCmVersion(version));
        }
        let kind = CmType::from_u8(get_u8(buf, OFF_TYPE)?)?;
        let data_len = u16::from_be_bytes(get_array(buf, OFF_SEG_SIZE)?);
        if usize::from(data_len) > MAX_CM_DATA {
            return Err(WireError::CmDataTooLong(usize::from(data_len)));
        }
        Ok(CmHeader {
            kind,
            data_len,
            conn_data: get_array(buf, OFF_CONN_DATA)?,
        })
    }
}

/// Writes a whole control message (header + `data`) to the start of
/// `buf`, as sent by a host of byte order `local`; returns its length.
pub fn encode_msg(
    kind: CmType,
    data: &[u8],
    local: ByteOrder,
    buf: &mut [u8],
) -> Result<usize, WireError> {
    let hdr = CmHeader::new(kind, data.len(), local)?;
    let total = hdr.msg_len();
    if buf.len() < total {
        return Err(WireError::BufferTooSmall { need: total });
    }
    hdr.encode(buf)?;
    put_bytes(buf, CM_HDR_SIZE, data)?;
    Ok(total)
}

/// Decodes a whole control message at the start of `buf`: the header and
/// its CM data (bytes after the message are ignored).
pub fn decode_msg(buf: &[u8]) -> Result<(CmHeader, &[u8]), WireError> {
    let hdr = CmHeader::decode(buf)?;
    let total = hdr.msg_len();
    let data = buf
        .get(CM_HDR_SIZE..total)
        .ok_or(WireError::Truncated { need: total })?;
    Ok((hdr, data))
}

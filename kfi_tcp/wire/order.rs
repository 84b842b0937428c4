// SPDX-License-Identifier: GPL-2.0
//! Byte order of the multi-byte fields of a connection.
//!
//! libfabric writes its headers in host order and agrees on nothing at
//! connect time except a probe: each side puts the 64-bit value 1, in its
//! own byte order, into the `conn_data` field of its control header. A
//! side that reads the peer's probe as 1 keeps its native order; a side
//! that does not converts every multi-byte header field with `hton*`.
//! Between two hosts of different endianness the frames are therefore
//! big-endian in both directions, and between hosts of equal endianness
//! they are in that common order (see [`super::cm::CmHeader::msg_order`]).
//!
//! Fields converted: the base header's `flags` (u16) and `size` (u64) and
//! every 8-byte extension word (CQ data, tag, RMA iov addr/len/key).
//! Single-byte fields are never converted. The control header's
//! `seg_size` is always big-endian, independently of this setting.

use super::error::WireError;

/// Byte order of the multi-byte fields of a frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ByteOrder {
    /// Least significant byte first (x86, arm64 as used by Linux).
    Little,
    /// Most significant byte first ("network order").
    Big,
}

impl ByteOrder {
    /// The byte order of the machine this code runs on.
    pub const NATIVE: ByteOrder = if cfg!(target_endian = "big") {
        ByteOrder::Big
    } else {
        ByteOrder::Little
    };

    /// The other byte order.
    pub const fn opposite(self) -> ByteOrder {
        match self {
            ByteOrder::Little => ByteOrder::Big,
            ByteOrder::Big => ByteOrder::Little,
        }
    }

    /// Decodes a 16-bit value stored in this order.
    pub const fn u16_from(self, b: [u8; 2]) -> u16 {
        match self {
            ByteOrder::Little => u16::from_le_bytes(b),
            ByteOrder::Big => u16::from_be_bytes(b),
        }
    }

    /// Encodes a 16-bit value in this order.
    pub const fn u16_to(self, v: u16) -> [u8; 2] {
        match self {
            ByteOrder::Little => v.to_le_bytes(),
            ByteOrder::Big => v.to_be_bytes(),
        }
    }

    /// Decodes a 64-bit value stored in this order.
    pub const fn u64_from(self, b: [u8; 8]) -> u64 {
        match self {
            ByteOrder::Little => u64::from_le_bytes(b),
            ByteOrder::Big => u64::from_be_bytes(b),
        }
    }

    /// Encodes a 64-bit value in this order.
    pub const fn u64_to(self, v: u64) -> [u8; 8] {
        match self {
            ByteOrder::Little => v.to_le_bytes(),
            ByteOrder::Big => v.to_be_bytes(),
        }
    }
}

/// `buf[off..off + N]` as an array, or `Truncated` naming the length needed.
pub(crate) fn get_array<const N: usize>(buf: &[u8], off: usize) -> Result<[u8; N], WireError> {
    let end = off
        .checked_add(N)
        .ok_or(WireError::Truncated { need: usize::MAX })?;
    // Through a fixed-size reference: a plain load, where
    // `copy_from_slice` calls out of line (this is on every frame).
    let src: &[u8; N] = buf
        .get(off..end)
        .and_then(|s| s.try_into().ok())
        .ok_or(WireError::Truncated { need: end })?;
    Ok(*src)
}

/// Copies `bytes` to `buf[off..]`, or `BufferTooSmall` naming the length needed.
pub(crate) fn put_bytes(buf: &mut [u8], off: usize, bytes: &[u8]) -> Result<(), WireError> {
    let end = off
        .checked_add(bytes.len())
        .ok_or(WireError::BufferTooSmall { need: usize::MAX })?;
    let dst = buf
        .get_mut(off..end)
        .ok_or(WireError::BufferTooSmall { need: end })?;
    dst.copy_from_slice(bytes);
    Ok(())
}

/// Reads the byte at `off`.
pub(crate) fn get_u8(buf: &[u8], off: usize) -> Result<u8, WireError> {
    let [b] = get_array::<1>(buf, off)?;
    Ok(b)
}

/// Reads a 16-bit value at `off` in `order`.
pub(crate) fn get_u16(buf: &[u8], off: usize, order: ByteOrder) -> Result<u16, WireError> {
    Ok(order.u16_from(get_array(buf, off)?))
}

/// Reads a 64-bit value at `off` in `order`.
pub(crate) fn get_u64(buf: &[u8], off: usize, order: ByteOrder) -> Result<u64, WireError> {
    Ok(order.u64_from(get_array(buf, off)?))
}

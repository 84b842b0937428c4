// SPDX-License-Identifier: GPL-2.0
//! Data frames: base header, extension words, payload.
//!
//! Layout (offsets in bytes; multi-byte fields in the connection's
//! [`ByteOrder`]):
//!
//! | off | size | field         |
//! |-----|------|---------------|
//! | 0   | 1    | `version` (3) |
//! | 1   | 1    | `op`          |
//! | 2   | 2    | `flags`       |
//! | 4   | 1    | `op_data`     |
//! | 5   | 1    | `rma_iov_cnt` |
//! | 6   | 1    | `hdr_size`    |
//! | 7   | 1    | `id`          |
//! | 8   | 8    | `size` (header + payload) |
//!
//! then, from offset 16: the CQ data word if [`Flags::REMOTE_CQ_DATA`];
//! then either the tag (op tagged, or op msg with [`Flags::TAGGED`]) or,
//! for read requests and writes, `rma_iov_cnt` × {addr, len, key}; then
//! the payload (`size - hdr_size` bytes). A read response has only the
//! 16-byte base header before its data.
//!
//! Decoding is strict about everything that decides how the stream is cut
//! (version, op, flags, `hdr_size`, `size`, iov count of RMA ops) and
//! lenient, like libfabric 1.17, about fields its senders fill with stale
//! or legacy values and that no receiver interprets: `id` (a debug
//! sequence number), `rma_iov_cnt` of msg/tagged/read-response frames and
//! `op_data` of non-msg frames. Those are kept as received, so
//! re-encoding a decoded header reproduces its bytes.

use super::error::WireError;
use super::order::{get_array, get_u16, get_u64, get_u8, put_bytes, ByteOrder};

/// Stores `v` at `at` through a fixed-size reference (a plain store;
/// `copy_from_slice` calls out of line); nothing if it does not fit.
fn put_at<const N: usize>(out: &mut [u8], at: usize, v: [u8; N]) {
    if let Some(d) = out.get_mut(at..at.saturating_add(N)).and_then(|d| <&mut [u8; N]>::try_from(d).ok()) {
        *d = v;
    }
}

/// Data header version.
pub const HDR_VERSION: u8 = 3;
/// Size of the base header.
pub const BASE_HDR_SIZE: usize = 16;
/// Size of one extension word (CQ data, tag).
pub const EXT_WORD_SIZE: usize = 8;
/// Size of one RMA iov {addr, len, key} on the wire.
pub const RMA_IOV_SIZE: usize = 24;
/// Maximum number of local iovs of one transfer.
pub const IOV_LIMIT: usize = 4;
/// Maximum number of RMA iovs of one read request or write.
pub const RMA_IOV_LIMIT: usize = 4;
/// Maximum inject size (payload copied into the header buffer).
pub const MAX_INJECT: usize = 128;
/// Largest header: write with CQ data and 4 RMA iovs.
pub const MAX_HDR_SIZE: usize = BASE_HDR_SIZE + EXT_WORD_SIZE + RMA_IOV_SIZE * RMA_IOV_LIMIT;
/// `op_data` value marking an ACK (an op-msg frame answering a
/// delivery-complete request).
pub const OP_DATA_ACK: u8 = 2;

/// [`BASE_HDR_SIZE`] as the `hdr_size` byte.
const BASE_HDR_SIZE_U8: u8 = 16;

const OFF_VERSION: usize = 0;
const OFF_OP: usize = 1;
const OFF_FLAGS: usize = 2;
const OFF_OP_DATA: usize = 4;
const OFF_RMA_IOV_CNT: usize = 5;
const OFF_HDR_SIZE: usize = 6;
const OFF_ID: usize = 7;
const OFF_SIZE: usize = 8;

/// Largest header any frame can have (120 bytes).
pub const fn max_header_size() -> usize {
    MAX_HDR_SIZE
}

/// Data frame operation (`op` byte).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Untagged send (also ACKs and rxm-style tagged sends).
    Msg = 0,
    /// Tagged send matched by the receiving provider.
    Tagged = 1,
    /// RMA read request.
    ReadReq = 2,
    /// RMA read response (data of an earlier read request).
    ReadRsp = 3,
    /// RMA write.
    Write = 4,
}

impl Op {
    /// The op for a wire value, or [`WireError::UnknownOp`].
    pub const fn from_u8(v: u8) -> Result<Op, WireError> {
        match v {
            0 => Ok(Op::Msg),
            1 => Ok(Op::Tagged),
            2 => Ok(Op::ReadReq),
            3 => Ok(Op::ReadRsp),
            4 => Ok(Op::Write),
            _ => Err(WireError::UnknownOp(v)),
        }
    }

    /// The wire value.
    pub const fn as_u8(self) -> u8 {
        self as u8
    }

    /// Whether the header carries `rma_iov_cnt` RMA iovs.
    pub const fn has_rma_iovs(self) -> bool {
        matches!(self, Op::ReadReq | Op::Write)
    }
}

/// The `flags` field of a data header.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags(u16);

impl Flags {
    /// No flag.
    pub const NONE: Flags = Flags(0);
    /// A CQ data word follows the base header.
    pub const REMOTE_CQ_DATA: Flags = Flags(1 << 0);
    /// The sender wants an ACK once the data is delivered.
    pub const DELIVERY_COMPLETE: Flags = Flags(1 << 2);
    /// The sender wants an ACK once a write is committed (writes only).
    pub const COMMIT_COMPLETE: Flags = Flags(1 << 3);
    /// An op-msg frame carries a tag word (rxm over tcp).
    pub const TAGGED: Flags = Flags(1 << 7);
    /// Every bit libfabric 1.17 defines (bit 1, "transmit complete", is
    /// reserved and never sent).
    pub const KNOWN: Flags = Flags(0x01 | 0x04 | 0x08 | 0x80);

    /// The raw bits.
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// Flags from raw bits, or `None` if an unknown bit is set.
    pub const fn from_bits(bits: u16) -> Option<Flags> {
        if bits & !Flags::KNOWN.0 != 0 {
            None
        } else {
            Some(Flags(bits))
        }
    }

    /// Whether every bit of `other` is set.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Both sets of bits.
    pub const fn union(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }

    /// The flags a frame of `op` may carry. Tag and CQ data are refused
    /// where libfabric would not look for the extension word (so the frame
    /// would be cut differently by the two sides).
    pub const fn allowed_for(op: Op) -> Flags {
        match op {
            Op::Msg | Op::Tagged => Flags::KNOWN,
            Op::Write => Flags(0x01 | 0x04 | 0x08),
            Op::ReadReq | Op::ReadRsp => Flags(0x04 | 0x08),
        }
    }
}

/// One RMA iov as carried by read requests and writes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RmaIov {
    /// Target address (or offset, for offset-addressed regions).
    pub addr: u64,
    /// Length in bytes.
    pub len: u64,
    /// Memory registration key.
    pub key: u64,
}

/// How a tagged send is framed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TagForm {
    /// Op tagged (1): the receiving tcp provider matches the tag itself.
    Op,
    /// Op msg (0) with [`Flags::TAGGED`]: the form rxm peers (dynamic
    /// receive buffers) send and expect.
    Flag,
}

/// What a decoded frame is, as the provider dispatches on it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// Untagged send.
    Send,
    /// Tagged send (either [`TagForm`]).
    TaggedSend,
    /// ACK of a delivery- or commit-complete transfer.
    Ack,
    /// RMA read request.
    ReadReq,
    /// RMA read response.
    ReadRsp,
    /// RMA write.
    Write,
}

/// The header length implied by `op`, `flags` and the RMA iov count
/// (`rma_iov_cnt` is ignored for ops that carry no RMA iovs):
/// 16, + 8 with CQ data, + 8 for a tag or + 24 × `rma_iov_cnt`.
pub fn hdr_size_for(op: Op, flags: Flags, rma_iov_cnt: usize) -> Result<usize, WireError> {
    if !Flags::allowed_for(op).contains(flags) {
        return Err(WireError::BadFlags(flags.bits()));
    }
    let cq = if flags.contains(Flags::REMOTE_CQ_DATA) {
        EXT_WORD_SIZE
    } else {
        0
    };
    let ext = match op {
        Op::Msg if flags.contains(Flags::TAGGED) => EXT_WORD_SIZE,
        Op::Tagged => EXT_WORD_SIZE,
        Op::ReadReq | Op::Write => {
            if rma_iov_cnt > RMA_IOV_LIMIT {
                return Err(WireError::TooManyIovs(rma_iov_cnt));
            }
            RMA_IOV_SIZE.saturating_mul(rma_iov_cnt)
        }
        Op::Msg | Op::ReadRsp => 0,
    };
    // At most 16 + 8 + 96 = MAX_HDR_SIZE: nothing saturates.
    Ok(BASE_HDR_SIZE.saturating_add(cq).saturating_add(ext))
}

/// The validated base-header fields.
struct Base {
    op: Op,
    flags: Flags,
    op_data: u8,
    rma_iov_cnt: u8,
    hdr_size: u8,
    id: u8,
    size: u64,
}

impl Base {
    /// Parses and validates the 16-byte base header at the start of `buf`.
    fn parse(buf: &[u8], order: ByteOrder) -> Result<Base, WireError> {
        if buf.len() < BASE_HDR_SIZE {
            return Err(WireError::Truncated {
                need: BASE_HDR_SIZE,
            });
        }
        let version = get_u8(buf, OFF_VERSION)?;
        if version != HDR_VERSION {
            return Err(WireError::BadVersion(version));
        }
        let op = Op::from_u8(get_u8(buf, OFF_OP)?)?;
        let raw_flags = get_u16(buf, OFF_FLAGS, order)?;
        let flags = Flags::from_bits(raw_flags).ok_or(WireError::BadFlags(raw_flags))?;
        let op_data = get_u8(buf, OFF_OP_DATA)?;
        let rma_iov_cnt = get_u8(buf, OFF_RMA_IOV_CNT)?;
        let hdr_size = get_u8(buf, OFF_HDR_SIZE)?;
        let id = get_u8(buf, OFF_ID)?;
        let size = get_u64(buf, OFF_SIZE, order)?;

        let is_ack = op == Op::Msg && op_data == OP_DATA_ACK;
        if op == Op::Msg && op_data != 0 && !is_ack {
            return Err(WireError::BadOpData(op_data));
        }
        if is_ack && flags != Flags::NONE {
            return Err(WireError::BadAck);
        }
        let expected = hdr_size_for(op, flags, usize::from(rma_iov_cnt))?;
        if usize::from(hdr_size) != expected {
            return Err(WireError::BadHdrSize {
                got: hdr_size,
                expected,
            });
        }
        let hdr_size_u64 = u64::from(hdr_size);
        if size < hdr_size_u64 {
            return Err(WireError::SizeTooSmall {
                size,
                hdr_size: expected,
            });
        }
        if is_ack && size != hdr_size_u64 {
            return Err(WireError::BadAck);
        }
        if op == Op::ReadReq && size != hdr_size_u64 {
            return Err(WireError::UnexpectedPayload { size });
        }
        Ok(Base {
            op,
            flags,
            op_data,
            rma_iov_cnt,
            hdr_size,
            id,
            size,
        })
    }
}

/// Incremental decoding, step 1: validates the base header (the first
/// [`BASE_HDR_SIZE`] bytes of `base`; more bytes are ignored) and returns
/// the full header length to read before calling [`MsgHeader::decode`].
/// The result is between 16 and [`MAX_HDR_SIZE`].
pub fn header_len(base: &[u8], order: ByteOrder) -> Result<usize, WireError> {
    Ok(usize::from(Base::parse(base, order)?.hdr_size))
}

/// A validated data frame header.
///
/// Built with the constructors ([`MsgHeader::send`], [`MsgHeader::ack`],
/// ...) and `with_*` modifiers, or by [`MsgHeader::decode`]; every value
/// of this type encodes to a frame that decodes back to it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MsgHeader {
    op: Op,
    flags: Flags,
    op_data: u8,
    rma_iov_cnt: u8,
    hdr_size: u8,
    id: u8,
    size: u64,
    cq_data: Option<u64>,
    tag: Option<u64>,
    n_rma: u8,
    rma: [RmaIov; RMA_IOV_LIMIT],
}

impl MsgHeader {
    /// A header with no extension; `size` = `hdr_size` + `payload_len`.
    #[inline]
    fn bare(op: Op, payload_len: u64) -> Result<MsgHeader, WireError> {
        let mut h = MsgHeader {
            op,
            flags: Flags::NONE,
            op_data: 0,
            rma_iov_cnt: 0,
            hdr_size: BASE_HDR_SIZE_U8,
            id: 0,
            size: 0,
            cq_data: None,
            tag: None,
            n_rma: 0,
            rma: [RmaIov::default(); RMA_IOV_LIMIT],
        };
        h.resize(payload_len)?;
        Ok(h)
    }

    /// Recomputes `hdr_size` from op/flags/iovs and sets `size` for a
    /// payload of `payload_len` bytes.
    fn resize(&mut self, payload_len: u64) -> Result<(), WireError> {
        let n = hdr_size_for(self.op, self.flags, usize::from(self.n_rma))?;
        let hdr = u8::try_from(n).map_err(|_| WireError::SizeOverflow)?;
        let size = u64::from(hdr)
            .checked_add(payload_len)
            .ok_or(WireError::SizeOverflow)?;
        self.hdr_size = hdr;
        self.size = size;
        Ok(())
    }

    /// Untagged send of `payload_len` bytes (op msg).
    #[inline]
    pub fn send(payload_len: u64) -> Result<MsgHeader, WireError> {
        MsgHeader::bare(Op::Msg, payload_len)
    }

    /// Tagged send of `payload_len` bytes, framed as `form` says.
    #[inline]
    pub fn tagged(tag: u64, payload_len: u64, form: TagForm) -> Result<MsgHeader, WireError> {
        let mut h = match form {
            TagForm::Op => MsgHeader::bare(Op::Tagged, 0)?,
            TagForm::Flag => {
                let mut h = MsgHeader::bare(Op::Msg, 0)?;
                h.flags = Flags::TAGGED;
                h
            }
        };
        h.tag = Some(tag);
        h.resize(payload_len)?;
        Ok(h)
    }

    /// ACK: bare 16-byte op-msg header with `op_data` = 2 and no flags.
    #[inline]
    pub fn ack() -> MsgHeader {
        MsgHeader {
            op: Op::Msg,
            flags: Flags::NONE,
            op_data: OP_DATA_ACK,
            rma_iov_cnt: 0,
            hdr_size: BASE_HDR_SIZE_U8,
            id: 0,
            size: BASE_HDR_SIZE_U8 as u64,
            cq_data: None,
            tag: None,
            n_rma: 0,
            rma: [RmaIov::default(); RMA_IOV_LIMIT],
        }
    }

    /// Sets the RMA iovs (at most 4).
    fn set_rma(&mut self, iovs: &[RmaIov]) -> Result<(), WireError> {
        if iovs.len() > RMA_IOV_LIMIT {
            return Err(WireError::TooManyIovs(iovs.len()));
        }
        for (dst, src) in self.rma.iter_mut().zip(iovs) {
            *dst = *src;
        }
        self.n_rma = u8::try_from(iovs.len()).map_err(|_| WireError::TooManyIovs(iovs.len()))?;
        self.rma_iov_cnt = self.n_rma;
        Ok(())
    }

    /// RMA read request for the remote regions `iovs` (no payload).
    pub fn read_req(iovs: &[RmaIov]) -> Result<MsgHeader, WireError> {
        let mut h = MsgHeader::bare(Op::ReadReq, 0)?;
        h.set_rma(iovs)?;
        h.resize(0)?;
        Ok(h)
    }

    /// RMA read response carrying `payload_len` bytes of data.
    pub fn read_rsp(payload_len: u64) -> Result<MsgHeader, WireError> {
        MsgHeader::bare(Op::ReadRsp, payload_len)
    }

    /// RMA write of `payload_len` bytes into `iovs`; the payload may not
    /// exceed the sum of the iov lengths.
    pub fn write(iovs: &[RmaIov], payload_len: u64) -> Result<MsgHeader, WireError> {
        let mut h = MsgHeader::bare(Op::Write, 0)?;
        h.set_rma(iovs)?;
        h.resize(payload_len)?;
        h.check_rma_len()?;
        Ok(h)
    }

    /// Adds (or replaces) the remote CQ data word. Sends, tagged sends
    /// and writes only; the payload length is kept.
    #[inline]
    pub fn with_cq_data(mut self, data: u64) -> Result<MsgHeader, WireError> {
        self.add_flags(Flags::REMOTE_CQ_DATA)?;
        self.cq_data = Some(data);
        Ok(self)
    }

    /// Asks the receiver for an ACK once the data is delivered. Sends,
    /// tagged sends and writes only.
    #[inline]
    pub fn with_delivery_complete(mut self) -> Result<MsgHeader, WireError> {
        self.add_flags(Flags::DELIVERY_COMPLETE)?;
        Ok(self)
    }

    /// Asks the receiver for an ACK once the written data is committed
    /// (libfabric sends this flag on writes only). Writes only.
    pub fn with_commit_complete(mut self) -> Result<MsgHeader, WireError> {
        if self.op != Op::Write {
            return Err(WireError::BadFlags(
                self.flags.union(Flags::COMMIT_COMPLETE).bits(),
            ));
        }
        self.add_flags(Flags::COMMIT_COMPLETE)?;
        Ok(self)
    }

    /// Sets the `id` byte (libfabric debug builds expect a per-connection
    /// 8-bit sequence number counting every frame sent, starting at 0;
    /// release builds ignore it).
    pub fn with_id(mut self, id: u8) -> MsgHeader {
        self.id = id;
        self
    }

    fn add_flags(&mut self, f: Flags) -> Result<(), WireError> {
        let new = self.flags.union(f);
        match self.kind() {
            FrameKind::Send | FrameKind::TaggedSend | FrameKind::Write => {}
            _ => return Err(WireError::BadFlags(new.bits())),
        }
        let payload = self.payload_len();
        let old = self.flags;
        self.flags = new;
        if let Err(e) = self.resize(payload) {
            self.flags = old;
            return Err(e);
        }
        Ok(())
    }

    /// A write's payload must fit the RMA iovs it targets.
    fn check_rma_len(&self) -> Result<(), WireError> {
        if self.op != Op::Write {
            return Ok(());
        }
        let rma_total = self
            .rma_iovs()
            .iter()
            .fold(0u64, |acc, iov| acc.saturating_add(iov.len));
        let payload = self.payload_len();
        if payload > rma_total {
            return Err(WireError::PayloadExceedsRma { payload, rma_total });
        }
        Ok(())
    }

    /// The op.
    pub const fn op(&self) -> Op {
        self.op
    }

    /// The flags.
    pub const fn flags(&self) -> Flags {
        self.flags
    }

    /// The `op_data` byte (2 on ACKs; 0 on frames we build).
    pub const fn op_data(&self) -> u8 {
        self.op_data
    }

    /// The `rma_iov_cnt` byte as on the wire (meaningful for read requests
    /// and writes only; see [`MsgHeader::rma_iovs`]).
    pub const fn rma_iov_cnt(&self) -> u8 {
        self.rma_iov_cnt
    }

    /// The `id` byte.
    pub const fn id(&self) -> u8 {
        self.id
    }

    /// Total frame length (`size` field): header plus payload.
    pub const fn size(&self) -> u64 {
        self.size
    }

    /// Header length including extensions (`hdr_size` field).
    pub const fn hdr_size(&self) -> usize {
        self.hdr_size as usize
    }

    /// Payload length: `size - hdr_size`.
    #[inline]
    pub const fn payload_len(&self) -> u64 {
        self.size.saturating_sub(self.hdr_size as u64)
    }

    /// The remote CQ data word, if present.
    #[inline]
    pub const fn cq_data(&self) -> Option<u64> {
        self.cq_data
    }

    /// The tag, for tagged sends.
    #[inline]
    pub const fn tag(&self) -> Option<u64> {
        self.tag
    }

    /// How a tagged send is framed, for tagged sends.
    pub fn tag_form(&self) -> Option<TagForm> {
        match (self.tag, self.op) {
            (None, _) => None,
            (Some(_), Op::Tagged) => Some(TagForm::Op),
            (Some(_), _) => Some(TagForm::Flag),
        }
    }

    /// The RMA iovs of a read request or write (empty otherwise).
    pub fn rma_iovs(&self) -> &[RmaIov] {
        self.rma.get(..usize::from(self.n_rma)).unwrap_or(&[])
    }

    /// Whether this is an ACK.
    #[inline]
    pub fn is_ack(&self) -> bool {
        self.op == Op::Msg && self.op_data == OP_DATA_ACK
    }

    /// What the frame is.
    #[inline]
    pub fn kind(&self) -> FrameKind {
        match self.op {
            Op::Msg if self.is_ack() => FrameKind::Ack,
            Op::Msg if self.tag.is_some() => FrameKind::TaggedSend,
            Op::Msg => FrameKind::Send,
            Op::Tagged => FrameKind::TaggedSend,
            Op::ReadReq => FrameKind::ReadReq,
            Op::ReadRsp => FrameKind::ReadRsp,
            Op::Write => FrameKind::Write,
        }
    }

    /// Whether the receiver must answer with an ACK once the frame is
    /// processed: delivery complete on (tagged) sends, delivery or commit
    /// complete on writes; never for ACKs and reads (as libfabric 1.17).
    #[inline]
    pub fn needs_ack(&self) -> bool {
        match self.kind() {
            FrameKind::Send | FrameKind::TaggedSend => {
                self.flags.contains(Flags::DELIVERY_COMPLETE)
            }
            FrameKind::Write => {
                self.flags.contains(Flags::DELIVERY_COMPLETE)
                    || self.flags.contains(Flags::COMMIT_COMPLETE)
            }
            FrameKind::Ack | FrameKind::ReadReq | FrameKind::ReadRsp => false,
        }
    }

    /// Incremental decoding, step 2: decodes and validates the full header
    /// at the start of `buf` (at least [`header_len`] bytes; bytes after
    /// the header are ignored).
    pub fn decode(buf: &[u8], order: ByteOrder) -> Result<MsgHeader, WireError> {
        let mut h = MsgHeader::ack();
        h.decode_into(buf, order)?;
        Ok(h)
    }

    /// As [`MsgHeader::decode`], into `self` (no header-sized value is
    /// returned and moved: the kernel decodes every frame this way). On
    /// error `self` holds any header, not necessarily a meaningful one.
    pub fn decode_into(&mut self, buf: &[u8], order: ByteOrder) -> Result<(), WireError> {
        let b = Base::parse(buf, order)?;
        let hdr_len = usize::from(b.hdr_size);
        if buf.len() < hdr_len {
            return Err(WireError::Truncated { need: hdr_len });
        }
        let h = self;
        h.op = b.op;
        h.flags = b.flags;
        h.op_data = b.op_data;
        h.rma_iov_cnt = b.rma_iov_cnt;
        h.hdr_size = b.hdr_size;
        h.id = b.id;
        h.size = b.size;
        h.cq_data = None;
        h.tag = None;
        if h.n_rma != 0 {
            // Entries past n_rma are zero, as in a new header.
            h.rma = [RmaIov::default(); RMA_IOV_LIMIT];
            h.n_rma = 0;
        }
        let mut off = BASE_HDR_SIZE;
        let mut next = |buf: &[u8]| -> Result<u64, WireError> {
            let v = get_u64(buf, off, order)?;
            off = off.saturating_add(EXT_WORD_SIZE);
            Ok(v)
        };
        if b.flags.contains(Flags::REMOTE_CQ_DATA) {
            h.cq_data = Some(next(buf)?);
        }
        match b.op {
            Op::Tagged => h.tag = Some(next(buf)?),
            Op::Msg if b.flags.contains(Flags::TAGGED) => h.tag = Some(next(buf)?),
            Op::ReadReq | Op::Write => {
                // Base::parse checked rma_iov_cnt <= RMA_IOV_LIMIT.
                let n = usize::from(b.rma_iov_cnt);
                // Set first: entries past n_rma stay zero if this fails.
                h.n_rma = b.rma_iov_cnt;
                for iov in h.rma.iter_mut().take(n) {
                    iov.addr = next(buf)?;
                    iov.len = next(buf)?;
                    iov.key = next(buf)?;
                }
            }
            Op::Msg | Op::ReadRsp => {}
        }
        h.check_rma_len()
    }

    /// The header in wire form: a buffer and the number of bytes used.
    pub fn to_bytes(&self, order: ByteOrder) -> ([u8; MAX_HDR_SIZE], usize) {
        let mut out = [0u8; MAX_HDR_SIZE];
        let len = self.write_fields(&mut out, order);
        (out, len.min(MAX_HDR_SIZE))
    }

    /// Writes the header to the start of `buf`; returns the number of
    /// bytes written ([`MsgHeader::hdr_size`]).
    pub fn encode(&self, buf: &mut [u8], order: ByteOrder) -> Result<usize, WireError> {
        // Straight into `buf` (no intermediate copy: this is per frame);
        // fields past its end are left out, and then it is too small.
        let len = self.write_fields(buf, order);
        if len > buf.len() {
            return Err(WireError::BufferTooSmall { need: len });
        }
        Ok(len)
    }

    /// [`MsgHeader::encode`] of this header with `id` as its frame id
    /// (what `with_id(id).encode(..)` writes, without copying the header:
    /// a sender numbers every frame).
    pub fn encode_with_id(&self, id: u8, buf: &mut [u8], order: ByteOrder) -> Result<usize, WireError> {
        let len = self.encode(buf, order)?;
        put_at(buf, OFF_ID, [id]);
        Ok(len)
    }

    /// Writes the fields into `out`, leaving out what lies past its end;
    /// returns the header's length.
    fn write_fields(&self, out: &mut [u8], order: ByteOrder) -> usize {
        put_at(out, OFF_VERSION, [HDR_VERSION]);
        put_at(out, OFF_OP, [self.op.as_u8()]);
        put_at(out, OFF_FLAGS, order.u16_to(self.flags.bits()));
        put_at(out, OFF_OP_DATA, [self.op_data]);
        put_at(out, OFF_RMA_IOV_CNT, [self.rma_iov_cnt]);
        put_at(out, OFF_HDR_SIZE, [self.hdr_size]);
        put_at(out, OFF_ID, [self.id]);
        let mut len = OFF_SIZE;
        let mut push = |out: &mut [u8], v: u64| {
            put_at(out, len, order.u64_to(v));
            len = len.saturating_add(EXT_WORD_SIZE);
        };
        push(out, self.size);
        if let Some(d) = self.cq_data {
            push(out, d);
        }
        if let Some(t) = self.tag {
            push(out, t);
        }
        for iov in self.rma_iovs() {
            push(out, iov.addr);
            push(out, iov.len);
            push(out, iov.key);
        }
        len
    }

    /// Writes header and `payload` (exactly [`MsgHeader::payload_len`]
    /// bytes, e.g. an inject) to the start of `buf`; returns the frame
    /// length.
    pub fn encode_frame(
        &self,
        payload: &[u8],
        buf: &mut [u8],
        order: ByteOrder,
    ) -> Result<usize, WireError> {
        if u64::try_from(payload.len()).ok() != Some(self.payload_len()) {
            return Err(WireError::PayloadLenMismatch {
                expected: self.payload_len(),
                got: payload.len(),
            });
        }
        let hdr_len = self.hdr_size();
        let total = hdr_len
            .checked_add(payload.len())
            .ok_or(WireError::SizeOverflow)?;
        if buf.len() < total {
            return Err(WireError::BufferTooSmall { need: total });
        }
        self.encode(buf, order)?;
        put_bytes(buf, hdr_len, payload)?;
        Ok(total)
    }
}

/// A whole data frame found in a buffer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Frame<'a> {
    /// The decoded header.
    pub header: MsgHeader,
    /// The payload: exactly `header.payload_len()` bytes.
    pub payload: &'a [u8],
}

impl<'a> Frame<'a> {
    /// Decodes the frame at the start of `buf`, which must hold all of it
    /// (`size` bytes); bytes after the frame are ignored.
    pub fn decode(buf: &'a [u8], order: ByteOrder) -> Result<Frame<'a>, WireError> {
        let header = MsgHeader::decode(buf, order)?;
        let total = usize::try_from(header.size())
            .map_err(|_| WireError::Truncated { need: usize::MAX })?;
        let frame = buf
            .get(..total)
            .ok_or(WireError::Truncated { need: total })?;
        let payload = frame.get(header.hdr_size()..).unwrap_or(&[]);
        Ok(Frame { header, payload })
    }

    /// Length of the frame (header plus payload).
    pub fn len(&self) -> usize {
        self.header.hdr_size().saturating_add(self.payload.len())
    }

    /// Whether the frame is empty (never: a frame has at least a header).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The base-header fields exactly as on the wire, unvalidated (for
/// diagnostics of a refused frame).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct RawBase {
    /// `version` byte.
    pub version: u8,
    /// `op` byte.
    pub op: u8,
    /// `flags`, converted from the connection's byte order.
    pub flags: u16,
    /// `op_data` byte.
    pub op_data: u8,
    /// `rma_iov_cnt` byte.
    pub rma_iov_cnt: u8,
    /// `hdr_size` byte.
    pub hdr_size: u8,
    /// `id` byte.
    pub id: u8,
    /// `size`, converted from the connection's byte order.
    pub size: u64,
}

impl RawBase {
    /// Reads the first 16 bytes of `buf` without validating them.
    pub fn peek(buf: &[u8], order: ByteOrder) -> Result<RawBase, WireError> {
        let b: [u8; BASE_HDR_SIZE] = get_array(buf, 0)?;
        let [version, op, f0, f1, op_data, rma_iov_cnt, hdr_size, id, s0, s1, s2, s3, s4, s5, s6, s7] =
            b;
        Ok(RawBase {
            version,
            op,
            flags: order.u16_from([f0, f1]),
            op_data,
            rma_iov_cnt,
            hdr_size,
            id,
            size: order.u64_from([s0, s1, s2, s3, s4, s5, s6, s7]),
        })
    }
}

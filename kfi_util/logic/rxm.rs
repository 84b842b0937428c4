// SPDX-License-Identifier: GPL-2.0
//! The wire formats of libfabric 1.17's rxm layer (`tcp;ofi_rxm`,
//! `verbs;ofi_rxm`), which RDM endpoints speak on both providers
//! (Documentation/rdm-plan.md, R4): the connection data of a connect
//! request, accept and reject, the 64-byte packet header (control and
//! operation headers) at the start of every rxm message, and the
//! rendezvous header. Encoders write every byte; decoders read only the
//! fields a packet type defines (rxm leaves the others stale) and check
//! what rxm checks. Facts: `Documentation/rxm-wire.md`.
//!
//! Multi-byte fields are in the sender's byte order; rxm refuses a peer
//! of the other order at connect time (the `endianness` byte), so both
//! ends use their native order.

/// `RXM_CM_DATA_VERSION`.
pub const CM_VERSION: u8 = 1;
/// `RXM_CTRL_VERSION`: the control header's version and the connect
/// data's `ctrl_version`.
pub const CTRL_VERSION: u8 = 4;
/// The connect data's `op_version` (`RXM_OP_VERSION`).
pub const CM_OP_VERSION: u8 = 3;
/// The operation header's version in data packets (`OFI_OP_VERSION`; not
/// the connect data's 3).
pub const OP_VERSION: u8 = 2;
/// The eager limit both ends must state alike (rxm's default).
pub const EAGER_LIMIT: u32 = 16384;
/// `flow_ctrl` of a peer without credit-based flow control (always so
/// over tcp).
pub const FLOW_CTRL_PEER_OFF: u8 = 2;
/// `flow_ctrl` of a peer that uses rxm's credits (libfabric's over verbs
/// RC queue pairs).
pub const FLOW_CTRL_PEER_ON: u8 = 1;
/// Where `flow_ctrl` is in rxm's connect data and in its accept data.
pub const CONNECT_FLOW_CTRL: usize = 6;
pub const ACCEPT_FLOW_CTRL: usize = 12;
/// `FI_REMOTE_CQ_DATA` in the operation header's flags.
pub const FLAG_REMOTE_CQ_DATA: u32 = 1 << 17;

/// Bytes of the connect request data.
pub const CONNECT_BYTES: usize = 24;
/// Bytes of the accept data.
pub const ACCEPT_BYTES: usize = 16;
/// Bytes of the reject data.
pub const REJECT_BYTES: usize = 2;
/// Bytes of the packet header.
pub const PKT_BYTES: usize = 64;
/// Bytes of the rendezvous header after the packet header.
pub const RNDV_BYTES: usize = 104;
/// Remote pieces a rendezvous request names at most.
pub const RNDV_IOVS: usize = 4;

/// This machine's `endianness` byte (`ofi_detect_endianness`: 1 big,
/// 2 little).
pub const fn endianness() -> u8 {
    if cfg!(target_endian = "little") {
        2
    } else {
        1
    }
}

// Reads and writes that cannot panic (the callers check the lengths).
fn get<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    b.get(at..at + N).and_then(|s| <[u8; N]>::try_from(s).ok()).unwrap_or([0; N])
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_ne_bytes(get(b, at))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(get(b, at))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_ne_bytes(get(b, at))
}

fn put<const N: usize>(b: &mut [u8], at: usize, v: [u8; N]) {
    // A fixed-size store (plain moves, not a call to memcpy: this is per
    // message); out of range writes nothing.
    if let Some(d) = b.get_mut(at..at + N).and_then(|d| <&mut [u8; N]>::try_from(d).ok()) {
        *d = v;
    }
}

/// A connection id (`rxm_conn_id`): a process-chosen value in the high
/// 32 bits, the sender's peer index in the low; the receiver puts the low
/// 32 bits of the id it was given into every packet's `conn_id`.
pub const fn conn_id(high: u32, index: u32) -> u64 {
    ((high as u64) << 32) | index as u64
}

/// The connect request data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Connect {
    /// The requester's listening port (host order).
    pub port: u16,
    pub flow_ctrl: u8,
    pub eager_limit: u32,
    pub rx_size: u32,
    pub client_conn_id: u64,
}

/// Why a connect request is refused (the reject data's `reason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    Unspec = 0,
    /// A version, byte order or eager limit that differs from ours.
    ConnRefused = 1,
    /// A simultaneous connect lost, or a connection that already exists.
    Already = 2,
}

impl Connect {
    /// Our request: listening `port`, `rx_size`, `client_conn_id`.
    pub fn new(port: u16, rx_size: u32, client_conn_id: u64) -> Connect {
        Connect { port, flow_ctrl: FLOW_CTRL_PEER_OFF, eager_limit: EAGER_LIMIT, rx_size, client_conn_id }
    }

    pub fn encode(&self) -> [u8; CONNECT_BYTES] {
        let mut b = [0u8; CONNECT_BYTES];
        b[0] = CM_VERSION;
        b[1] = endianness();
        b[2] = CTRL_VERSION;
        b[3] = CM_OP_VERSION;
        put(&mut b, 4, self.port.to_ne_bytes());
        b[CONNECT_FLOW_CTRL] = self.flow_ctrl;
        put(&mut b, 8, self.eager_limit.to_ne_bytes());
        put(&mut b, 12, self.rx_size.to_ne_bytes());
        put(&mut b, 16, self.client_conn_id.to_ne_bytes());
        b
    }

    /// Reads a request and checks it as rxm's acceptor does (versions,
    /// byte order, the eager limit): `ConnRefused` otherwise, or when it
    /// is short.
    pub fn decode(b: &[u8]) -> Result<Connect, Reason> {
        if b.len() < CONNECT_BYTES {
            return Err(Reason::ConnRefused);
        }
        let c = Connect {
            port: u16_at(b, 4),
            flow_ctrl: b[CONNECT_FLOW_CTRL],
            eager_limit: u32_at(b, 8),
            rx_size: u32_at(b, 12),
            client_conn_id: u64_at(b, 16),
        };
        if b[0] != CM_VERSION
            || b[1] != endianness()
            || b[2] != CTRL_VERSION
            || b[3] != CM_OP_VERSION
            || c.eager_limit != EAGER_LIMIT
        {
            return Err(Reason::ConnRefused);
        }
        Ok(c)
    }
}

/// kfabric's extension of the connect request: bytes after rxm's 24, sent
/// only by a context of a scalable endpoint and to a receive context
/// other than 0 (a 1.17 peer never sees it: neither happens between
/// plain RDM endpoints).
pub const CTX_EXT_BYTES: usize = 8;
/// Its first four bytes ("kfx1" in memory order).
pub const CTX_EXT_MAGIC: [u8; 4] = *b"kfx1";
/// The connection carries the requester's transmits only: the acceptor
/// never sends operations on it (its own go on connections it opens).
pub const CTX_EXT_ONE_WAY: u16 = 1;

/// The context extension: which receive context of the acceptor the
/// connection is for, and how it is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CtxExt {
    /// The acceptor's receive context (`kfi_rx_addr`'s index).
    pub rx_index: u16,
    /// [`CTX_EXT_ONE_WAY`]; other bits are refused.
    pub flags: u16,
}

impl CtxExt {
    pub fn encode(&self) -> [u8; CTX_EXT_BYTES] {
        let mut b = [0u8; CTX_EXT_BYTES];
        put(&mut b, 0, CTX_EXT_MAGIC);
        put(&mut b, 4, self.rx_index.to_ne_bytes());
        put(&mut b, 6, self.flags.to_ne_bytes());
        b
    }

    /// The extension of a request's data (all of it, rxm's part first):
    /// `Ok(None)` when there is none (exactly rxm's bytes, or a peer that
    /// sends more that is not ours); `Err` for ours with unknown flags.
    pub fn decode(req: &[u8]) -> Result<Option<CtxExt>, Reason> {
        let Some(b) = req.get(CONNECT_BYTES..CONNECT_BYTES + CTX_EXT_BYTES) else {
            return Ok(None);
        };
        if b[..4] != CTX_EXT_MAGIC {
            return Ok(None);
        }
        let e = CtxExt { rx_index: u16_at(b, 4), flags: u16_at(b, 6) };
        if e.flags & !CTX_EXT_ONE_WAY != 0 {
            return Err(Reason::ConnRefused);
        }
        Ok(Some(e))
    }

    /// Connect data with this extension after `req`.
    pub fn request(req: &Connect, ext: Option<CtxExt>) -> ([u8; CONNECT_BYTES + CTX_EXT_BYTES], usize) {
        let mut b = [0u8; CONNECT_BYTES + CTX_EXT_BYTES];
        put(&mut b, 0, req.encode());
        match ext {
            Some(e) => {
                put(&mut b, CONNECT_BYTES, e.encode());
                (b, CONNECT_BYTES + CTX_EXT_BYTES)
            }
            None => (b, CONNECT_BYTES),
        }
    }
}

/// The accept data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accept {
    pub server_conn_id: u64,
    pub rx_size: u32,
    pub flow_ctrl: u8,
}

impl Accept {
    pub fn encode(&self) -> [u8; ACCEPT_BYTES] {
        let mut b = [0u8; ACCEPT_BYTES];
        put(&mut b, 0, self.server_conn_id.to_ne_bytes());
        put(&mut b, 8, self.rx_size.to_ne_bytes());
        b[ACCEPT_FLOW_CTRL] = self.flow_ctrl;
        b
    }

    /// `None` when short (rxm itself reads it unchecked; a peer that
    /// sends less is not rxm).
    pub fn decode(b: &[u8]) -> Option<Accept> {
        (b.len() >= ACCEPT_BYTES).then(|| Accept { server_conn_id: u64_at(b, 0), rx_size: u32_at(b, 8), flow_ctrl: b[ACCEPT_FLOW_CTRL] })
    }
}

/// The reject data.
pub fn reject(reason: Reason) -> [u8; REJECT_BYTES] {
    [CM_VERSION, reason as u8]
}

/// The reason of a reject's data; missing or of another version:
/// `ConnRefused`, as rxm reads it.
pub fn reject_reason(b: &[u8]) -> Reason {
    match b {
        [CM_VERSION, 0, ..] => Reason::Unspec,
        [CM_VERSION, 2, ..] => Reason::Already,
        _ => Reason::ConnRefused,
    }
}

/// Simultaneous connects (both ends dialling each other): true if the
/// request from `requester` wins over our own attempt from `own`, i.e.
/// the requester's address is the higher (compared as rxm does: the
/// network-order address bytes, then the network-order port). The loser
/// of the two is rejected with [`Reason::Already`] by the winner.
pub fn requester_wins(requester: (&[u8], u16), own: (&[u8], u16)) -> bool {
    match requester.0.cmp(own.0) {
        core::cmp::Ordering::Equal => requester.1.to_be_bytes() > own.1.to_be_bytes(),
        o => o == core::cmp::Ordering::Greater,
    }
}

/// The packet types (`ctrl_hdr.type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    Eager = 0,
    Seg = 1,
    RndvReq = 2,
    RndvRdDone = 3,
    Atomic = 4,
    AtomicResp = 5,
    Credit = 6,
    RndvWrData = 7,
    RndvWrDone = 8,
    /// kfabric's tagged RMA (`KFI_TAGGED_RMA`; not rxm's: a 1.17 peer
    /// drops a connection that sends one). A write: `tag` names the
    /// target's posted tagged receive, `size` bytes follow, `msg_id` is
    /// echoed by the answer ([`Type::TagRmaDone`]).
    TagRmaWrite = 0x40,
    /// A read of `size` bytes from the receive `tag` names (no payload);
    /// answered by [`Type::TagRmaData`].
    TagRmaRead = 0x41,
    /// A write's answer: `data` is 0 or the error (a positive errno),
    /// `size` the bytes placed.
    TagRmaDone = 0x42,
    /// A read's answer: `data` as above, `size` bytes follow (none on an
    /// error).
    TagRmaData = 0x43,
}

impl Type {
    fn of(v: u8) -> Option<Type> {
        Some(match v {
            0 => Type::Eager,
            1 => Type::Seg,
            2 => Type::RndvReq,
            3 => Type::RndvRdDone,
            4 => Type::Atomic,
            5 => Type::AtomicResp,
            6 => Type::Credit,
            7 => Type::RndvWrData,
            8 => Type::RndvWrDone,
            0x40 => Type::TagRmaWrite,
            0x41 => Type::TagRmaRead,
            0x42 => Type::TagRmaDone,
            0x43 => Type::TagRmaData,
            _ => return None,
        })
    }

    /// Whether the operation header (bytes 32..64) means something.
    fn has_op(self) -> bool {
        matches!(self, Type::Eager | Type::Seg | Type::RndvReq | Type::Atomic | Type::AtomicResp) || self.is_tag_rma()
    }

    /// One of kfabric's tagged RMA packets.
    pub fn is_tag_rma(self) -> bool {
        matches!(self, Type::TagRmaWrite | Type::TagRmaRead | Type::TagRmaDone | Type::TagRmaData)
    }
}

/// The operation of a data packet (`op_hdr.op`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Msg = 0,
    Tagged = 1,
}

/// SAR segment kinds (bits 0-1 of `ctrl_data`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seg {
    First = 1,
    Middle = 2,
    Last = 3,
}

/// A packet header, the fields its type defines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pkt {
    /// The receiver's index of the connection (low 32 bits of the id it
    /// gave).
    pub conn_id: u32,
    /// The sender's id of a segmented message, rendezvous or atomic
    /// (echoed in the answers).
    pub msg_id: u64,
    /// Segments: this one's bytes, its number, its kind.
    pub seg_size: u16,
    pub seg_no: u32,
    pub seg: Option<Seg>,
    /// Data packets: `Msg` or `Tagged`.
    pub op: Option<Op>,
    /// Remote CQ data present.
    pub cq_data: bool,
    /// The message's total length.
    pub size: u64,
    pub data: u64,
    pub tag: u64,
}

/// Why a header cannot be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PktError {
    /// Fewer than 64 bytes.
    Short,
    /// A control version other than 4.
    Version,
    /// An unknown type, or an operation other than msg/tagged on a data
    /// packet (atomics are not done here), or a segment without its kind.
    Unknown,
}

/// Writes the header of a `ty` packet (64 bytes of `out`): every byte,
/// the fields `ty` does not define as 0.
pub fn encode(ty: Type, p: &Pkt, out: &mut [u8; PKT_BYTES]) {
    *out = [0u8; PKT_BYTES];
    out[0] = CTRL_VERSION;
    out[1] = ty as u8;
    if ty == Type::Seg || ty.is_tag_rma() {
        put(out, 2, p.seg_size.to_ne_bytes());
        put(out, 4, p.seg_no.to_ne_bytes());
        put(out, 24, (p.seg.map_or(0, |s| s as u64)).to_ne_bytes());
    }
    put(out, 8, u64::from(p.conn_id).to_ne_bytes());
    put(out, 16, p.msg_id.to_ne_bytes());
    out[32] = OP_VERSION;
    if ty.has_op() {
        out[34] = p.op.map_or(0, |o| o as u8);
        let flags = if p.cq_data { FLAG_REMOTE_CQ_DATA } else { 0 };
        put(out, 36, flags.to_ne_bytes());
        put(out, 40, p.size.to_ne_bytes());
        put(out, 48, p.data.to_ne_bytes());
        put(out, 56, p.tag.to_ne_bytes());
    }
}

/// Reads a header: its type and the fields the type defines (the rest
/// of a received header is stale and ignored, as rxm ignores it; the
/// operation header's version is not checked, as rxm's release builds do
/// not).
pub fn decode(b: &[u8]) -> Result<(Type, Pkt), PktError> {
    if b.len() < PKT_BYTES {
        return Err(PktError::Short);
    }
    if b[0] != CTRL_VERSION {
        return Err(PktError::Version);
    }
    let ty = Type::of(b[1]).ok_or(PktError::Unknown)?;
    let mut p = Pkt { conn_id: u64_at(b, 8) as u32, msg_id: u64_at(b, 16), ..Pkt::default() };
    if ty == Type::Seg {
        p.seg_size = u16_at(b, 2);
        p.seg_no = u32_at(b, 4);
        p.seg = Some(match u64_at(b, 24) & 3 {
            1 => Seg::First,
            2 => Seg::Middle,
            3 => Seg::Last,
            _ => return Err(PktError::Unknown),
        });
    }
    if matches!(ty, Type::Eager | Type::Seg | Type::RndvReq) {
        p.op = Some(match b[34] {
            0 => Op::Msg,
            1 => Op::Tagged,
            _ => return Err(PktError::Unknown),
        });
        p.cq_data = u32_at(b, 36) & FLAG_REMOTE_CQ_DATA != 0;
        p.size = u64_at(b, 40);
        p.data = if p.cq_data { u64_at(b, 48) } else { 0 };
        p.tag = if p.op == Some(Op::Tagged) { u64_at(b, 56) } else { 0 };
    }
    if ty.is_tag_rma() {
        // Every field is ours: the status (or CQ data) in `data`; over
        // verbs the bytes of a write or read answer go in packets of one
        // SAR message each (segment fields as rxm's; none: the whole in
        // this packet; kfi_tcp sends none).
        p.seg_size = u16_at(b, 2);
        p.seg_no = u32_at(b, 4);
        p.seg = match u64_at(b, 24) & 3 {
            0 => None,
            1 => Some(Seg::First),
            2 => Some(Seg::Middle),
            _ => Some(Seg::Last),
        };
        p.op = Some(Op::Tagged);
        p.cq_data = u32_at(b, 36) & FLAG_REMOTE_CQ_DATA != 0;
        p.size = u64_at(b, 40);
        p.data = u64_at(b, 48);
        p.tag = u64_at(b, 56);
    }
    Ok((ty, p))
}

/// A credit packet granting `n` receive credits (rxm's `rxm_ctrl_credit`
/// over verbs: `ctrl_data` the count; `conn_id` the receiver's index of
/// the connection).
pub fn encode_credit(conn_id: u32, n: u64, out: &mut [u8; PKT_BYTES]) {
    encode(Type::Credit, &Pkt { conn_id, ..Pkt::default() }, out);
    put(out, 24, n.to_ne_bytes());
}

/// The credits a credit packet `b` grants (its `ctrl_data`; 0 if short).
pub fn credits(b: &[u8]) -> u64 {
    if b.len() < PKT_BYTES {
        return 0;
    }
    u64_at(b, 24)
}

/// The status a tagged RMA answer carries in `data`: 0, or a positive
/// errno; anything else is `EIO`.
pub fn tag_rma_status(v: u64) -> u32 {
    const EIO: u32 = 5;
    match v {
        1..=4095 => v as u32,
        0 => 0,
        _ => EIO,
    }
}

/// A segmented (SAR) message being reassembled: rxm sends one as
/// segments of `seg_size` bytes, in order on one connection, each
/// repeating the message's `msg_id`, total `size`, operation, tag and CQ
/// data; the first is matched to a receive as the whole message would be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sar {
    pub msg_id: u64,
    /// The number the next segment must carry.
    pub next: u32,
    /// The message's length, and its bytes placed so far.
    pub size: u64,
    pub got: u64,
}

impl Sar {
    /// The reassembly segment `p` starts: `None` unless `p` is a first
    /// segment of a message longer than it (one of one segment would be
    /// eager).
    pub fn first(p: &Pkt) -> Option<Sar> {
        (p.seg == Some(Seg::First) && u64::from(p.seg_size) < p.size).then_some(Sar { msg_id: p.msg_id, next: p.seg_no, size: p.size, got: 0 })
    }

    /// Whether `p` is the next segment of this message: the same message
    /// and length, the next number, not past its end, and the last kind
    /// exactly when it ends it.
    pub fn continues(&self, p: &Pkt) -> bool {
        let Some(k) = p.seg else {
            return false;
        };
        let end = self.got.checked_add(u64::from(p.seg_size));
        k != Seg::First
            && p.msg_id == self.msg_id
            && p.seg_no == self.next
            && p.size == self.size
            && end.is_some_and(|e| e <= self.size && (k == Seg::Last) == (e == self.size))
    }

    /// A segment of `len` bytes is placed (the first, or one that
    /// [`Sar::continues`] it): true once the message is whole.
    pub fn placed(&mut self, len: u64) -> bool {
        self.got = self.got.saturating_add(len);
        self.next = self.next.wrapping_add(1);
        self.got == self.size
    }

    /// The segments a message of `size` bytes goes as, with segments of
    /// at most `seg` bytes: for segment `i`, its kind, offset and length.
    pub fn segment(size: u64, seg: u64, i: u64) -> (Seg, u64, u64) {
        let at = i.saturating_mul(seg);
        let len = size.saturating_sub(at).min(seg);
        let kind = if i == 0 {
            Seg::First
        } else if at + len >= size {
            Seg::Last
        } else {
            Seg::Middle
        };
        (kind, at, len)
    }
}

/// One remote piece of a rendezvous (`struct ofi_rma_iov`): opaque
/// address and key the reader echoes in its read requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RmaIov {
    pub addr: u64,
    pub len: u64,
    pub key: u64,
}

/// Writes the rendezvous header (104 bytes after the packet header) of
/// `iovs` (1 to 4; more are not written).
pub fn encode_rndv(iovs: &[RmaIov], out: &mut [u8; RNDV_BYTES]) {
    *out = [0u8; RNDV_BYTES];
    let n = iovs.len().min(RNDV_IOVS);
    for (k, v) in iovs.iter().take(n).enumerate() {
        put(out, k * 24, v.addr.to_ne_bytes());
        put(out, k * 24 + 8, v.len.to_ne_bytes());
        put(out, k * 24 + 16, v.key.to_ne_bytes());
    }
    out[96] = n as u8;
}

/// Reads a rendezvous header: its pieces (count 1 to 4), or `None`.
pub fn decode_rndv(b: &[u8]) -> Option<([RmaIov; RNDV_IOVS], usize)> {
    if b.len() < RNDV_BYTES {
        return None;
    }
    let n = b[96] as usize;
    if n == 0 || n > RNDV_IOVS {
        return None;
    }
    let mut iovs = [RmaIov::default(); RNDV_IOVS];
    for (k, v) in iovs.iter_mut().take(n).enumerate() {
        *v = RmaIov { addr: u64_at(b, k * 24), len: u64_at(b, k * 24 + 8), key: u64_at(b, k * 24 + 16) };
    }
    Some((iovs, n))
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    fn hex(s: &str) -> std::vec::Vec<u8> {
        let s: std::string::String = s.chars().filter(|c| !c.is_whitespace()).collect();
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    // Captures of libfabric 1.17's fi_pingpong -p "tcp;ofi_rxm" -e rdm on
    // x86-64 (Documentation/rxm-wire.md, 3.1).
    #[test]
    fn connection_data_as_captured() {
        let req = hex("01 02 04 03 3fa7 02 00 00400000 00100000 00000000ff610000");
        let c = Connect::decode(&req).unwrap();
        assert_eq!(c, Connect { port: 42815, flow_ctrl: 2, eager_limit: 16384, rx_size: 4096, client_conn_id: conn_id(0x61ff, 0) });
        assert_eq!(&Connect::new(42815, 4096, conn_id(0x61ff, 0)).encode()[..], &req[..]);
        let acc = hex("00000000fc610000 00100000 02 000000");
        let a = Accept::decode(&acc).unwrap();
        assert_eq!(a, Accept { server_conn_id: conn_id(0x61fc, 0), rx_size: 4096, flow_ctrl: 2 });
        assert_eq!(&a.encode()[..], &acc[..]);
        assert_eq!(reject(Reason::ConnRefused), [1, 1]);
        assert_eq!(reject_reason(&[1, 2]), Reason::Already);
        assert_eq!(reject_reason(&[1]), Reason::ConnRefused);
        assert_eq!(reject_reason(&[9, 2]), Reason::ConnRefused);
        assert_eq!(Accept::decode(&acc[..15]), None);
    }

    #[test]
    fn connect_checks() {
        let good = Connect::new(1, 128, 7).encode();
        for (at, v) in [(0, 2u8), (1, 1), (2, 3), (3, 2), (9, 0x41)] {
            let mut b = good;
            b[at] = v;
            assert_eq!(Connect::decode(&b), Err(Reason::ConnRefused), "byte {at}");
        }
        assert_eq!(Connect::decode(&good[..23]), Err(Reason::ConnRefused));
        // flow control and rx size are not checked
        let mut b = good;
        b[6] = 1;
        b[12] = 0xff;
        assert!(Connect::decode(&b).is_ok());
    }

    #[test]
    fn simultaneous_connects() {
        let lo = [10u8, 0, 0, 1];
        let hi = [10u8, 0, 0, 2];
        assert!(requester_wins((&hi, 1), (&lo, 9)));
        assert!(!requester_wins((&lo, 9), (&hi, 1)));
        // the same address: the port decides, in network order
        assert!(requester_wins((&lo, 0x0100), (&lo, 0x00ff)));
        assert!(!requester_wins((&lo, 5), (&lo, 5)));
    }

    #[test]
    fn packets_round_trip_and_stale_fields() {
        let p = Pkt { conn_id: 3, msg_id: 9, op: Some(Op::Tagged), cq_data: true, size: 10, data: 0xabc, tag: 1234, ..Pkt::default() };
        let mut b = [0u8; PKT_BYTES];
        encode(Type::Eager, &p, &mut b);
        assert_eq!((b[0], b[1], b[32], b[34]), (4, 0, 2, 1));
        assert_eq!(u32_at(&b, 36), 0x20000);
        assert_eq!(decode(&b), Ok((Type::Eager, p)));
        // a done packet: the operation header is stale, ignored
        let mut d = b;
        d[1] = Type::RndvRdDone as u8;
        let (ty, q) = decode(&d).unwrap();
        assert_eq!(ty, Type::RndvRdDone);
        assert_eq!((q.conn_id, q.msg_id, q.size, q.op), (3, 9, 0, None));
        // segments
        let s = Pkt { seg_size: 7232, seg_no: 2, seg: Some(Seg::Last), op: Some(Op::Msg), size: 40000, ..Pkt::default() };
        encode(Type::Seg, &s, &mut b);
        assert_eq!(decode(&b), Ok((Type::Seg, s)));
        let mut bad = b;
        bad[24] = 0;
        assert_eq!(decode(&bad), Err(PktError::Unknown));
        bad = b;
        bad[0] = 3;
        assert_eq!(decode(&bad), Err(PktError::Version));
        bad = b;
        bad[1] = 9;
        assert_eq!(decode(&bad), Err(PktError::Unknown));
        bad = b;
        bad[34] = 6;
        assert_eq!(decode(&bad), Err(PktError::Unknown));
        assert_eq!(decode(&b[..63]), Err(PktError::Short));
    }

    #[test]
    fn rendezvous_header() {
        // Documentation/rxm-wire.md 7.3: 64 KiB, one piece at offset 0, key 0x80000000
        let v = [RmaIov { addr: 0, len: 65536, key: 0x8000_0000 }];
        let mut b = [0u8; RNDV_BYTES];
        encode_rndv(&v, &mut b);
        assert_eq!(b[96], 1);
        let (iovs, n) = decode_rndv(&b).unwrap();
        assert_eq!((n, iovs[0]), (1, v[0]));
        b[96] = 5;
        assert_eq!(decode_rndv(&b), None);
        b[96] = 0;
        assert_eq!(decode_rndv(&b), None);
        assert_eq!(decode_rndv(&b[..103]), None);
    }
}

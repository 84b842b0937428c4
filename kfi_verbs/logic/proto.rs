// SPDX-License-Identifier: GPL-2.0
//! The soft wire mode (`ep_attr->protocol_version` 2, kfi_verbs peers
//! only; Documentation/kfi_verbs.md, "Soft mode"): every message travels
//! as one or more RC SENDs ("chunks"), each starting with a 24-byte
//! header, into the receiver's provider-owned bounce buffers, where the
//! receiver matches it (tags, multi-receive buffers) and copies it out.
//!
//! A message's chunks are sent back to back (the sender streams one
//! message at a time), so the receiver assembles one message at a time:
//! the first chunk (`Op::Msg`) names the whole length, tag and CQ data;
//! the following ones (`Op::Cont`) carry only payload.
//!
//! Flow control is by credits, because iWARP has no receiver-not-ready
//! retry (a SEND that finds no receive ends the connection): a sender
//! consumes one credit per chunk (and per write with immediate data),
//! starting with [`BOUNCES`] (the buffers each side posts before it
//! connects); every header returns `grant` credits, the bounce buffers
//! its sender reposted since its last grant; a side with buffers to grant
//! and no chunk to carry them sends a header alone (`Op::Credit`, which
//! may pass between the chunks of a message). The last credit is kept
//! for such a grant, so two sides that have filled each other's buffers
//! can always tell each other about the room they made ([`Credits`]).
//! Kernel-independent (host crate `kfi-verbs-logic`).
//!
//! Header, little-endian: `version u8 = 1`, `op u8`, `flags u8`, `grant
//! u8`, `len u32` (the message's bytes; 0 in a continuation or a grant),
//! `tag u64`, `data u64`.

/// Bytes of a header.
pub const HDR_LEN: usize = 24;
/// Bytes of a bounce buffer (one page pair, one kmalloc size class).
pub const BOUNCE_LEN: usize = 8192;
/// Payload bytes a chunk carries at most.
pub const CHUNK: usize = BOUNCE_LEN - HDR_LEN;
/// The header version this code speaks.
pub const VERSION: u8 = 1;
/// Header flag: a tagged message (`tag` is meaningful).
pub const F_TAGGED: u8 = 1;
/// Header flag: the message carries CQ data (`data`).
pub const F_DATA: u8 = 2;
/// Bounce buffers each side posts before it connects: the credits each
/// side starts with.
pub const BOUNCES: u32 = 32;
/// Reposted buffers worth a header of their own (`Op::Credit`) when no
/// chunk carries them.
pub const GRANT_THRESHOLD: u32 = BOUNCES / 2;

/// What a chunk is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// The first chunk of a message.
    Msg,
    /// A following chunk of the message being received.
    Cont,
    /// A header alone returning credits.
    Credit,
}

/// A chunk's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hdr {
    pub op: Op,
    /// Tagged message (`F_TAGGED`).
    pub tagged: bool,
    /// CQ data, if the message carries any (`F_DATA`).
    pub data: Option<u64>,
    /// The message's length (first chunk).
    pub len: u32,
    pub tag: u64,
    /// Credits returned to the header's receiver.
    pub grant: u8,
}

/// Why a chunk is not understood (the peer breaks the protocol: the
/// connection ends).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProtoError {
    /// Shorter than a header.
    Short,
    /// Another version, an unknown op or flag, fields set that the op
    /// does not have.
    Bad,
    /// A continuation with no message being received, a first chunk in
    /// the middle of one, or more payload than the message's length.
    Sequence,
}

/// The header of a continuation chunk returning `grant` credits.
pub const fn cont(grant: u8) -> Hdr {
    Hdr { op: Op::Cont, tagged: false, data: None, len: 0, tag: 0, grant }
}

/// A header alone returning `grant` credits.
pub const fn credit(grant: u8) -> Hdr {
    Hdr { op: Op::Credit, tagged: false, data: None, len: 0, tag: 0, grant }
}

/// The wire bytes of `h`.
pub const fn encode(h: &Hdr) -> [u8; HDR_LEN] {
    let mut b = [0u8; HDR_LEN];
    b[0] = VERSION;
    b[1] = match h.op {
        Op::Msg => 0,
        Op::Cont => 1,
        Op::Credit => 2,
    };
    b[3] = h.grant;
    let mut flags = 0;
    if h.tagged {
        flags |= F_TAGGED;
    }
    let data = match h.data {
        Some(d) => {
            flags |= F_DATA;
            d
        }
        None => 0,
    };
    b[2] = flags;
    let len = h.len.to_le_bytes();
    let tag = h.tag.to_le_bytes();
    let dat = data.to_le_bytes();
    let mut i = 0;
    while i < 4 {
        b[4 + i] = len[i];
        i += 1;
    }
    i = 0;
    while i < 8 {
        b[8 + i] = tag[i];
        b[16 + i] = dat[i];
        i += 1;
    }
    b
}

fn le64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}

/// Reads the header at the start of a received chunk.
pub fn decode(b: &[u8]) -> Result<Hdr, ProtoError> {
    if b.len() < HDR_LEN {
        return Err(ProtoError::Short);
    }
    if b[0] != VERSION || b[2] & !(F_TAGGED | F_DATA) != 0 {
        return Err(ProtoError::Bad);
    }
    let op = match b[1] {
        0 => Op::Msg,
        1 => Op::Cont,
        2 => Op::Credit,
        _ => return Err(ProtoError::Bad),
    };
    let len = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    let tag = le64(&b[8..]);
    let data = (b[2] & F_DATA != 0).then(|| le64(&b[16..]));
    if op != Op::Msg && (b[2] != 0 || len != 0 || tag != 0 || data.is_some()) {
        return Err(ProtoError::Bad);
    }
    Ok(Hdr { op, tagged: b[2] & F_TAGGED != 0, data, len, tag, grant: b[3] })
}

/// The credits a chunk's header returns, read as it completes (before
/// it is parsed): 0 for what is not a header of this version.
pub fn grant_of(b: &[u8]) -> u8 {
    match b {
        [VERSION, 0..=2, _, g, ..] if b.len() >= HDR_LEN => *g,
        _ => 0,
    }
}

/// One side's credits: the peer's bounce buffers it may fill, and its own
/// reposted buffers not granted yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Credits {
    /// Peer buffers this side may fill.
    pub have: u32,
    /// Own buffers reposted and not granted yet.
    pub owed: u32,
}

impl Credits {
    /// At connection: the peer posted [`BOUNCES`] buffers.
    pub const fn new() -> Credits {
        Credits { have: BOUNCES, owed: 0 }
    }

    /// A chunk (or a write with immediate data) may go: it keeps the
    /// last credit for a grant.
    pub fn can_send(&self) -> bool {
        self.have >= 2
    }

    /// A chunk goes: one credit spent; the grant it carries (all that is
    /// owed, at most 255).
    pub fn send(&mut self) -> u8 {
        self.have -= 1;
        self.take_owed()
    }

    /// A write with immediate data goes (it consumes a buffer, carries no
    /// grant).
    pub fn send_write(&mut self) {
        self.have -= 1;
    }

    fn take_owed(&mut self) -> u8 {
        let g = self.owed.min(u8::MAX as u32);
        self.owed -= g;
        g as u8
    }

    /// Whether a header of its own should return what is owed (enough to
    /// matter, and the last credit to send it with).
    pub fn grant_due(&self) -> bool {
        self.owed >= GRANT_THRESHOLD && self.have >= 1
    }

    /// A header alone goes: the grant it carries.
    pub fn send_grant(&mut self) -> u8 {
        self.have -= 1;
        self.take_owed()
    }

    /// The peer returned `g` credits (never more than it can have posted:
    /// a peer that says more only fills its own queue).
    pub fn granted(&mut self, g: u8) {
        self.have = (self.have + g as u32).min(BOUNCES);
    }

    /// One of our buffers was reposted.
    pub fn reposted(&mut self) {
        self.owed = (self.owed + 1).min(BOUNCES);
    }
}

/// A message being received: how much of it has come, and how much of
/// that the receive has room for (the rest is dropped: truncation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Assembly {
    /// The message's length.
    pub total: u64,
    /// Bytes come so far.
    pub got: u64,
    /// Bytes the destination holds.
    pub room: u64,
}

/// What to do with one chunk's payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// Where its first byte goes in the message.
    pub at: u64,
    /// Bytes of the payload to copy (from its start); the rest is beyond
    /// the room.
    pub copy: usize,
    /// The message is whole with this chunk.
    pub last: bool,
}

impl Assembly {
    /// A message of `total` bytes into a destination of `room` bytes.
    pub fn new(total: u64, room: u64) -> Assembly {
        Assembly { total, got: 0, room }
    }

    /// Takes a chunk of `n` payload bytes; more than the message has left
    /// is a protocol error (nothing is taken).
    pub fn take(&mut self, n: usize) -> Result<Place, ProtoError> {
        let n64 = n as u64;
        if n64 > self.total - self.got {
            return Err(ProtoError::Sequence);
        }
        let at = self.got;
        let copy = if at >= self.room { 0 } else { n64.min(self.room - at) as usize };
        self.got += n64;
        Ok(Place { at, copy, last: self.got == self.total })
    }

    /// The message is longer than its destination.
    pub fn truncated(&self) -> bool {
        self.total > self.room
    }
}

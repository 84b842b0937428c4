// SPDX-License-Identifier: GPL-2.0
//! The table of an address vector (`kfi_av_open`), the same for every
//! provider: handles (`kfi_addr_t`) for peer addresses.
//!
//! - A handle is the index of its entry. A fresh table (`KFI_AV_TABLE` or
//!   `KFI_AV_MAP`, handled alike) numbers its addresses consecutively from
//!   0 in insertion order; a removed entry's index is given to the next new
//!   address (most recently freed first).
//! - Inserting an address already present gives its handle again and
//!   counts one more use (as libfabric's util AV does); `remove` takes one
//!   use away and frees the entry with the last. Removing a handle that
//!   names no entry is `NoEnt`.
//! - With `rx_ctx_bits` (0..=[`MAX_RX_CTX_BITS`]) the top bits of a
//!   handle select a receive context of the peer's scalable endpoint
//!   (`kfi_rx_addr`): they are not part of the entry's index
//!   ([`Table::index`], [`rx_index`]), and a table never holds more
//!   entries than the remaining bits can number.
//!
//! The storage is the caller's (any `AsRef`/`AsMut` of entries): the kernel object grows it in
//! process context, outside its lock ([`Table::needs_room`],
//! [`Table::move_to`]), so that lookups and removals, which consumers make
//! from any context, never allocate.

use super::host;
use super::plan::{Addr, Family};

/// The most `rx_ctx_bits` an address vector takes (kfilnd uses 8; the
/// rest of the handle still numbers 2^32 entries).
pub const MAX_RX_CTX_BITS: u32 = 32;

/// One entry: an address and its uses (0: free).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// The address (meaningful while `uses` is not 0).
    pub addr: Addr,
    /// Inserts of the address not removed yet.
    pub uses: u32,
    /// A free entry's successor on the free list (`NONE`: last).
    next_free: u32,
}

const NONE: u32 = u32::MAX;

/// Why an operation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AvError {
    /// A bad argument (`rx_ctx_bits`, an address).
    Inval,
    /// The handle names no entry.
    NoEnt,
    /// The storage is full: grow it ([`Table::needs_room`]) and try again.
    Full,
    /// No handle left under the `rx_ctx_bits`.
    TooMany,
}

/// The table.
pub struct Table<S> {
    slots: S,
    /// Entries in use (the first `used` indices were handed out once).
    used: u32,
    /// Head of the free list (entries below `used` that were removed).
    free: u32,
    /// Entries with an address.
    live: u32,
    rx_ctx_bits: u32,
}

/// The entry index of `handle` in a table with `rx_ctx_bits`: its
/// receive context bits (`kfi_rx_addr`) dropped.
pub fn handle_index(handle: u64, rx_ctx_bits: u32) -> u64 {
    if rx_ctx_bits == 0 {
        handle
    } else {
        handle & (u64::MAX >> rx_ctx_bits)
    }
}

/// The receive context index `kfi_rx_addr` put in `handle`.
pub fn rx_index(handle: u64, rx_ctx_bits: u32) -> u64 {
    if rx_ctx_bits == 0 {
        0
    } else {
        handle >> (64 - rx_ctx_bits)
    }
}

/// Most entries a table with `rx_ctx_bits` may hold.
fn limit(rx_ctx_bits: u32) -> u64 {
    (u64::MAX >> rx_ctx_bits).min(u64::from(NONE))
}

impl<S: AsRef<[Entry]> + AsMut<[Entry]>> Table<S> {
    /// An empty table over `slots` (any length, 0 too); `Inval` for
    /// `rx_ctx_bits` out of 0..=[`MAX_RX_CTX_BITS`].
    pub fn new(slots: S, rx_ctx_bits: i32) -> Result<Self, AvError> {
        let bits = u32::try_from(rx_ctx_bits).map_err(|_| AvError::Inval)?;
        if bits > MAX_RX_CTX_BITS {
            return Err(AvError::Inval);
        }
        Ok(Table { slots, used: 0, free: NONE, live: 0, rx_ctx_bits: bits })
    }

    /// The `rx_ctx_bits`.
    pub fn rx_ctx_bits(&self) -> u32 {
        self.rx_ctx_bits
    }

    /// Entries with an address.
    pub fn live(&self) -> usize {
        self.live as usize
    }

    /// The entry index of `handle` (its receive context bits dropped).
    pub fn index(&self, handle: u64) -> u64 {
        handle_index(handle, self.rx_ctx_bits)
    }

    /// The address of `handle` (receive context bits ignored).
    pub fn lookup(&self, handle: u64) -> Option<Addr> {
        let i = usize::try_from(self.index(handle)).ok()?;
        match self.slots.as_ref().get(i) {
            Some(e) if i < self.used as usize && e.uses != 0 => Some(e.addr),
            _ => None,
        }
    }

    /// The uses of `handle`'s entry (0: none).
    pub fn uses(&self, handle: u64) -> u32 {
        match self.lookup(handle) {
            Some(_) => self.slots.as_ref()[self.index(handle) as usize].uses,
            None => 0,
        }
    }

    /// The handle of `a` if present.
    pub fn find(&self, a: &Addr) -> Option<u64> {
        let n = self.used as usize;
        self.slots.as_ref().iter().take(n).position(|e| e.uses != 0 && e.addr == *a).map(|i| i as u64)
    }

    /// Whether the next insert of a new address needs more storage than
    /// `slots` has, and how many entries it should have then (doubling).
    pub fn needs_room(&self) -> Option<usize> {
        let len = self.slots.as_ref().len();
        if self.free != NONE || (self.used as usize) < len {
            return None;
        }
        Some((len * 2).max(16))
    }

    /// Moves the entries into `to` (at least as long as the present
    /// storage), which becomes the storage; the old one is returned.
    pub fn move_to(&mut self, mut to: S) -> Result<S, S> {
        let n = self.slots.as_ref().len();
        if to.as_ref().len() < n {
            return Err(to);
        }
        for (d, e) in to.as_mut().iter_mut().zip(self.slots.as_ref()) {
            *d = *e;
        }
        Ok(core::mem::replace(&mut self.slots, to))
    }

    /// Inserts `a`: its handle (an address already present: the same
    /// handle, one more use). `Full` when the storage must grow first,
    /// `TooMany` when no handle is left under the `rx_ctx_bits`.
    pub fn insert(&mut self, a: &Addr) -> Result<u64, AvError> {
        if let Some(h) = self.find(a) {
            let e = &mut self.slots.as_mut()[h as usize];
            e.uses = e.uses.checked_add(1).ok_or(AvError::TooMany)?;
            return Ok(h);
        }
        let i = if self.free != NONE {
            let i = self.free;
            self.free = self.slots.as_ref()[i as usize].next_free;
            i
        } else {
            if u64::from(self.used) >= limit(self.rx_ctx_bits) {
                return Err(AvError::TooMany);
            }
            if self.used as usize >= self.slots.as_ref().len() {
                return Err(AvError::Full);
            }
            self.used += 1;
            self.used - 1
        };
        self.slots.as_mut()[i as usize] = Entry { addr: *a, uses: 1, next_free: NONE };
        self.live += 1;
        Ok(u64::from(i))
    }

    /// Takes one use of `handle` away (receive context bits ignored); the
    /// last frees its entry. `NoEnt` if it names none.
    pub fn remove(&mut self, handle: u64) -> Result<(), AvError> {
        if self.lookup(handle).is_none() {
            return Err(AvError::NoEnt);
        }
        let i = self.index(handle) as usize;
        let free = self.free;
        let e = &mut self.slots.as_mut()[i];
        e.uses -= 1;
        if e.uses == 0 {
            e.next_free = free;
            self.free = i as u32;
            self.live -= 1;
        }
        Ok(())
    }
}

/// Parses `insertsvc`'s numeric node (IPv4 dotted quad, or IPv6 with an
/// optional numeric zone) and service (decimal port); `Inval` otherwise
/// (names are not resolved).
pub fn parse_svc(node: &[u8], service: &[u8]) -> Result<Addr, AvError> {
    let port = host::parse_port(service).ok_or(AvError::Inval)?;
    if let Some(a) = host::parse_ipv4(node) {
        return Ok(Addr::v4(a, port));
    }
    let (a, zone) = host::parse_ipv6_zone(node).ok_or(AvError::Inval)?;
    let scope = match zone {
        Some(z) => host::zone_number(z).ok_or(AvError::Inval)?,
        None => 0,
    };
    Ok(Addr::v6(a, port, scope))
}

/// The `k`-th address of `insertsym` from `first`: the address `node`
/// steps further (as a big-endian number over its bytes; IPv4 in its 4)
/// with the port `svc` steps further. `Inval` past the end of the
/// address or port space.
pub fn sym_addr(first: &Addr, node: u64, svc: u64) -> Result<Addr, AvError> {
    let port = u64::from(first.port).checked_add(svc).and_then(|p| u16::try_from(p).ok()).ok_or(AvError::Inval)?;
    let n = match first.family {
        Family::V4 => 4,
        Family::V6 => 16,
    };
    let mut out = *first;
    out.port = port;
    let mut carry = node;
    for b in out.addr[..n].iter_mut().rev() {
        let v = u64::from(*b) + (carry & 0xff);
        *b = v as u8;
        carry = (carry >> 8) + (v >> 8);
    }
    if carry != 0 {
        return Err(AvError::Inval);
    }
    Ok(out)
}

/// Formats `a` as `straddr` does (libfabric's form:
/// `fi_sockaddr_in://1.2.3.4:5`, `fi_sockaddr_in6://[::1]:5`).
pub fn write_addr(w: &mut impl core::fmt::Write, a: &Addr) -> core::fmt::Result {
    match a.family {
        Family::V4 => {
            let b = a.ip4();
            write!(w, "fi_sockaddr_in://{}.{}.{}.{}:{}", b[0], b[1], b[2], b[3], a.port)
        }
        Family::V6 => {
            w.write_str("fi_sockaddr_in6://[")?;
            host::write_ipv6(w, &a.addr)?;
            if a.scope != 0 {
                write!(w, "%{}", a.scope)?;
            }
            write!(w, "]:{}", a.port)
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::String;
    use std::vec;
    use std::vec::Vec;

    type V = Vec<Entry>;

    fn a4(last: u8, port: u16) -> Addr {
        Addr::v4([10, 0, 0, last], port)
    }

    fn grow(t: &mut Table<V>) {
        let n = t.needs_room().unwrap();
        t.move_to(vec![Entry::default(); n]).ok().unwrap();
    }

    fn insert(t: &mut Table<V>, a: &Addr) -> u64 {
        match t.insert(a) {
            Err(AvError::Full) => {
                grow(t);
                t.insert(a).unwrap()
            }
            r => r.unwrap(),
        }
    }

    #[test]
    fn consecutive_handles_duplicates_and_reuse() {
        let mut t = Table::new(Vec::new(), 0).unwrap();
        for k in 0..40u8 {
            assert_eq!(insert(&mut t, &a4(k, 7)), u64::from(k));
        }
        assert_eq!(t.live(), 40);
        // the same address: the same handle, counted
        assert_eq!(t.insert(&a4(3, 7)), Ok(3));
        assert_eq!(t.remove(3), Ok(()));
        assert_eq!(t.lookup(3), Some(a4(3, 7)));
        assert_eq!(t.remove(3), Ok(()));
        assert_eq!(t.lookup(3), None);
        assert_eq!(t.remove(3), Err(AvError::NoEnt));
        assert_eq!(t.remove(40), Err(AvError::NoEnt));
        assert_eq!(t.remove(u64::MAX), Err(AvError::NoEnt));
        // the freed index goes to the next new address
        assert_eq!(t.insert(&a4(200, 1)), Ok(3));
        assert_eq!(t.lookup(3), Some(a4(200, 1)));
        assert_eq!(t.needs_room().is_some(), t.insert(&a4(201, 1)) == Err(AvError::Full));
    }

    #[test]
    fn rx_context_bits() {
        assert!(Table::new(Vec::new(), -1).is_err());
        assert!(Table::new(Vec::new(), 33).is_err());
        let mut t = Table::new(vec![Entry::default(); 4], 8).unwrap();
        let h = t.insert(&a4(1, 1)).unwrap();
        let rx = (5u64 << 56) | h;
        assert_eq!(t.lookup(rx), Some(a4(1, 1)));
        assert_eq!(rx_index(rx, 8), 5);
        assert_eq!(rx_index(h, 0), 0);
        assert_eq!(t.index(rx), h);
        assert_eq!(handle_index(rx, 8), h);
        assert_eq!(handle_index(rx, 0), rx);
        // the receive context bits do not count for removal either
        assert_eq!(t.remove(rx), Ok(()));
        assert_eq!(t.lookup(h), None);
    }

    #[test]
    fn too_many_under_the_bits() {
        let mut t = Table::new(vec![Entry::default(); 4], 32).unwrap();
        // every handle under the 32 bits left handed out
        t.used = NONE - 1;
        assert_eq!(t.insert(&a4(1, 1)), Err(AvError::Full));
        t.used = NONE;
        assert_eq!(t.insert(&a4(1, 1)), Err(AvError::TooMany));
    }

    #[test]
    fn service_strings() {
        assert_eq!(parse_svc(b"10.0.0.9", b"4000"), Ok(a4(9, 4000)));
        let v6 = parse_svc(b"fe80::1%3", b"1").unwrap();
        assert_eq!(v6.family, Family::V6);
        assert_eq!(v6.scope, 3);
        assert_eq!(parse_svc(b"host.example", b"1"), Err(AvError::Inval));
        assert_eq!(parse_svc(b"10.0.0.1", b"http"), Err(AvError::Inval));
        assert_eq!(parse_svc(b"10.0.0.1", b"65536"), Err(AvError::Inval));
        assert_eq!(parse_svc(b"", b"1"), Err(AvError::Inval));
    }

    #[test]
    fn symmetric_ranges() {
        assert_eq!(sym_addr(&a4(254, 10), 3, 2), Ok(Addr::v4([10, 0, 1, 1], 12)));
        assert_eq!(sym_addr(&Addr::v4([255, 255, 255, 255], 1), 1, 0), Err(AvError::Inval));
        assert_eq!(sym_addr(&a4(1, 65535), 0, 1), Err(AvError::Inval));
        let v6 = Addr::v6([0xff; 16], 1, 0);
        assert_eq!(sym_addr(&v6, 1, 0), Err(AvError::Inval));
    }

    #[test]
    fn addresses_as_strings() {
        let mut s = String::new();
        write_addr(&mut s, &a4(9, 4000)).unwrap();
        assert_eq!(s, "fi_sockaddr_in://10.0.0.9:4000");
        let mut s = String::new();
        let mut one = [0u8; 16];
        one[15] = 1;
        write_addr(&mut s, &Addr::v6(one, 5, 0)).unwrap();
        assert_eq!(s, "fi_sockaddr_in6://[::1]:5");
    }
}

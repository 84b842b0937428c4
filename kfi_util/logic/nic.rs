// SPDX-License-Identifier: GPL-2.0
//! NIC addresses: the HPE Slingshot (cxi) provider's address form
//! (`KFI_ADDR_CXI`, `struct kcxi_addr`: a 20-bit NIC address and a 12-bit
//! endpoint index), given to IPv4 interfaces so that consumers written for
//! that provider (Lustre's kfilnd, which makes its LNet NID of the `nic`
//! field and inserts peers as `insertsvc("<nic as %#x>", "<net number>")`)
//! run unchanged on both providers (`Documentation/lnet.md`).
//!
//! The rules (one place for both providers):
//! - An interface's IPv4 address `ip` with prefix length `p` has the NIC
//!   address `ip & mask(h)`: its host part, `h = 32 - p` bits, if that is
//!   1 to 20 bits (prefixes /12 to /31); otherwise (a prefix shorter than
//!   /12, or a /32) its low 20 bits (`h = 20`). Its [`NicNet`] is the rest:
//!   `ip` with those `h` bits cleared.
//! - A peer's NIC address `nic` (< 2^h) names the IPv4 address
//!   `net | nic` of the local interface's [`NicNet`]: peers share the
//!   interface's subnet (or /12).
//! - The endpoint index (`pid`, the cxi provider's service) is a decimal
//!   number below 2^12 (kfilnd: the LNet network number); it names the
//!   port [`PORT_BASE`] `+ pid` (kfi_tcp's TCP port, kfi_verbs' rdma_cm
//!   port in the TCP port space).
//! - The administrator's [`NicTable`] (each provider's `nic_map`
//!   parameter) comes first, both ways: a NIC address it lists is its
//!   IPv4 address, wherever that is (another subnet, a routed network),
//!   and an address it lists, a local one included, has its NIC address.
//!   The rules above are for everything else.

use super::host;

/// The first port of the endpoint indices.
pub const PORT_BASE: u16 = 20000;

/// Bits of the NIC address (`struct kcxi_addr`'s `nic`).
pub const NIC_BITS: u8 = 20;

/// Bits of the endpoint index (`struct kcxi_addr`'s `pid`).
pub const PID_BITS: u8 = 12;

/// A NIC address and an endpoint index: the two fields of a
/// `struct kcxi_addr` that name a peer's endpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Nic {
    /// NIC address (< 2^[`NIC_BITS`]).
    pub nic: u32,
    /// Endpoint index (< 2^[`PID_BITS`]).
    pub pid: u16,
}

impl Nic {
    /// The port of the endpoint index.
    pub fn port(&self) -> u16 {
        PORT_BASE + self.pid
    }
}

/// The network part of an interface's IPv4 address: what a NIC address
/// completes into a peer's address.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NicNet {
    /// The interface's address with its host bits cleared (network order).
    pub net: [u8; 4],
    /// Host bits (1..=[`NIC_BITS`]).
    pub bits: u8,
}

/// Host bits of a NIC address under prefix length `prefix`.
pub fn host_bits(prefix: u8) -> u8 {
    match 32u8.saturating_sub(prefix) {
        h @ 1..=NIC_BITS => h,
        _ => NIC_BITS,
    }
}

impl NicNet {
    /// The net of an interface address `ip` with prefix length `prefix`,
    /// and the address's own NIC address.
    pub fn of(ip: [u8; 4], prefix: u8) -> (NicNet, u32) {
        let bits = host_bits(prefix);
        let mask = (1u32 << bits) - 1;
        let v = u32::from_be_bytes(ip);
        (NicNet { net: (v & !mask).to_be_bytes(), bits }, v & mask)
    }

    /// The IPv4 address of NIC address `nic`; `None` if `nic` does not
    /// fit the host bits.
    pub fn ip(&self, nic: u32) -> Option<[u8; 4]> {
        (nic >> self.bits == 0).then(|| (u32::from_be_bytes(self.net) | nic).to_be_bytes())
    }

    /// The NIC address of `ip`; `None` if it is not in this net.
    pub fn nic(&self, ip: [u8; 4]) -> Option<u32> {
        let mask = (1u32 << self.bits) - 1;
        let v = u32::from_be_bytes(ip);
        (v & !mask == u32::from_be_bytes(self.net)).then_some(v & mask)
    }

    /// The IPv4 address and port of `n`.
    pub fn addr(&self, n: Nic) -> Option<([u8; 4], u16)> {
        (n.pid >> PID_BITS == 0).then_some(())?;
        Some((self.ip(n.nic)?, n.port()))
    }

    /// The NIC address and endpoint index of IPv4 address `ip` and
    /// `port`; `None` outside this net or the ports of endpoint indices.
    pub fn name(&self, ip: [u8; 4], port: u16) -> Option<Nic> {
        let pid = pid_of_port(port)?;
        Some(Nic { nic: self.nic(ip)?, pid })
    }
}

/// Longest [`NicTable`] text, in bytes (with its terminating NUL in C).
pub const NIC_TABLE_MAX: usize = 4096;

/// Why a [`NicTable`] text was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NicTableError {
    /// Longer than [`NIC_TABLE_MAX`] - 1 bytes.
    TooLong,
    /// An entry is not `NIC=A.B.C.D` (a NIC address as [`parse_nic`]
    /// takes it, an IPv4 address in dotted decimal).
    BadEntry,
    /// A NIC address or an IPv4 address listed twice.
    Duplicate,
}

/// The administrator's NIC addresses for IPv4 addresses the rules do not
/// give them (`Documentation/lnet.md`): the text `NIC=A.B.C.D` entries
/// separated by commas or white space (`0x41=10.2.0.7,0x42=10.3.0.9`),
/// each NIC address and each IPv4 address at most once; empty: no
/// table. A view of text [`NicTable::parse`] accepted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NicTable<'a>(&'a [u8]);

impl<'a> NicTable<'a> {
    /// No entries.
    pub const EMPTY: NicTable<'static> = NicTable(b"");

    /// Checks a table's text.
    pub fn parse(text: &'a [u8]) -> Result<Self, NicTableError> {
        if text.len() >= NIC_TABLE_MAX {
            return Err(NicTableError::TooLong);
        }
        let t = NicTable(text);
        for (k, e) in t.raw().enumerate() {
            let (nic, ip) = e.ok_or(NicTableError::BadEntry)?;
            if t.entries().take(k).any(|(n, a)| n == nic || a == ip) {
                return Err(NicTableError::Duplicate);
            }
        }
        Ok(t)
    }

    /// A view of text [`NicTable::parse`] accepted before (the
    /// parameter's, checked when it was set): not checked again; a
    /// malformed entry would be skipped.
    pub fn of_checked(text: &'a [u8]) -> Self {
        NicTable(text)
    }

    /// The text's entries, `None` for a malformed one.
    fn raw(&self) -> impl Iterator<Item = Option<(u32, [u8; 4])>> + 'a {
        self.0
            .split(|c| *c == b',' || c.is_ascii_whitespace())
            .filter(|e| !e.is_empty())
            .map(|e| {
                let eq = e.iter().position(|c| *c == b'=')?;
                Some((parse_nic(&e[..eq])?, host::parse_ipv4(&e[eq + 1..])?))
            })
    }

    /// The entries: NIC address, IPv4 address (network order).
    pub fn entries(&self) -> impl Iterator<Item = (u32, [u8; 4])> + 'a {
        self.raw().flatten()
    }

    /// The IPv4 address listed for `nic`.
    pub fn ip(&self, nic: u32) -> Option<[u8; 4]> {
        self.entries().find(|e| e.0 == nic).map(|e| e.1)
    }

    /// The NIC address listed for `ip`.
    pub fn nic(&self, ip: [u8; 4]) -> Option<u32> {
        self.entries().find(|e| e.1 == ip).map(|e| e.0)
    }

    /// The NIC address of a local interface address `ip` with prefix
    /// length `prefix`: the table's, else the rule's ([`NicNet::of`]);
    /// with the interface's net either way.
    pub fn own(&self, ip: [u8; 4], prefix: u8) -> (NicNet, u32) {
        let (net, nic) = NicNet::of(ip, prefix);
        (net, self.nic(ip).unwrap_or(nic))
    }

    /// The IPv4 address and port of peer `n` seen from `net`: the
    /// table's address for its NIC address, else [`NicNet::addr`].
    pub fn addr(&self, net: &NicNet, n: Nic) -> Option<([u8; 4], u16)> {
        match self.ip(n.nic) {
            Some(ip) => (n.pid >> PID_BITS == 0).then_some((ip, n.port())),
            None => net.addr(n),
        }
    }

    /// The NIC address and endpoint index of `ip` and `port` seen from
    /// `net`: the table's NIC address for `ip`, else [`NicNet::name`].
    pub fn name(&self, net: &NicNet, ip: [u8; 4], port: u16) -> Option<Nic> {
        match self.nic(ip) {
            Some(nic) => Some(Nic { nic, pid: pid_of_port(port)? }),
            None => net.name(ip, port),
        }
    }
}

/// The endpoint index of `port`, if it is one of theirs.
pub fn pid_of_port(port: u16) -> Option<u16> {
    port.checked_sub(PORT_BASE).filter(|p| p >> PID_BITS == 0)
}

/// Parses an endpoint index: decimal, below 2^[`PID_BITS`] (kfilnd's
/// `"%u"` of its network number).
pub fn parse_pid(s: &[u8]) -> Option<u16> {
    let v = parse_number(s, 10)?;
    u16::try_from(v).ok().filter(|p| p >> PID_BITS == 0)
}

/// Parses a NIC address: hexadecimal with a `0x`/`0X` prefix (kfilnd's
/// `"%#x"`: `0x1f`; zero prints as `0`) or decimal, below
/// 2^[`NIC_BITS`].
pub fn parse_nic(s: &[u8]) -> Option<u32> {
    let v = match s {
        [b'0', b'x' | b'X', hex @ ..] => parse_number(hex, 16)?,
        _ => parse_number(s, 10)?,
    };
    (v >> NIC_BITS == 0).then_some(v)
}

/// A number of at most 8 digits in `radix` (10 or 16): no sign, no
/// spaces, not empty.
fn parse_number(s: &[u8], radix: u32) -> Option<u32> {
    if s.is_empty() || s.len() > 8 {
        return None;
    }
    s.iter().try_fold(0u32, |a, &c| Some(a * radix + char::from(c).to_digit(radix)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_part_under_the_prefix() {
        let (net, nic) = NicNet::of([10, 0, 2, 15], 24);
        assert_eq!(net, NicNet { net: [10, 0, 2, 0], bits: 8 });
        assert_eq!(nic, 15);
        assert_eq!(net.ip(7), Some([10, 0, 2, 7]));
        assert_eq!(net.ip(256), None);
        assert_eq!(net.nic([10, 0, 2, 200]), Some(200));
        assert_eq!(net.nic([10, 0, 3, 1]), None);
    }

    #[test]
    fn short_and_host_prefixes_use_20_bits() {
        // 127.0.0.1/8: the low 20 bits.
        let (net, nic) = NicNet::of([127, 0, 0, 1], 8);
        assert_eq!((net.net, net.bits, nic), ([127, 0, 0, 0], 20, 1));
        let (net, nic) = NicNet::of([10, 17, 0x23, 0x45], 8);
        assert_eq!((net.net, nic), ([10, 16, 0, 0], 0x1_2345));
        assert_eq!(net.ip(0xf_ffff), Some([10, 31, 255, 255]));
        assert_eq!(net.ip(0x10_0000), None);
        // A /32 has no host bits of its own.
        assert_eq!(NicNet::of([192, 168, 1, 9], 32).1, 0x8_0109);
        // /12 .. /31 keep the host part.
        assert_eq!(host_bits(12), 20);
        assert_eq!(host_bits(31), 1);
        assert_eq!(host_bits(11), 20);
        assert_eq!(host_bits(40), 20);
    }

    #[test]
    fn addresses_round_trip() {
        let (net, _) = NicNet::of([192, 168, 5, 1], 16);
        let n = Nic { nic: 0x0507, pid: 3 };
        let (ip, port) = net.addr(n).unwrap();
        assert_eq!((ip, port), ([192, 168, 5, 7], PORT_BASE + 3));
        assert_eq!(net.name(ip, port), Some(n));
        assert_eq!(net.name(ip, PORT_BASE - 1), None);
        assert_eq!(net.name(ip, PORT_BASE + 4096), None);
        assert_eq!(net.name([192, 169, 0, 1], PORT_BASE), None);
        assert_eq!(net.addr(Nic { nic: 1, pid: 4096 }), None);
    }

    #[test]
    fn table_text() {
        let t = NicTable::parse(b"0x41=10.2.0.7, 66=10.3.0.9\n").unwrap();
        let mut e = t.entries();
        assert_eq!(e.next(), Some((0x41, [10, 2, 0, 7])));
        assert_eq!(e.next(), Some((66, [10, 3, 0, 9])));
        assert_eq!(e.next(), None);
        assert_eq!(NicTable::parse(b"").unwrap().entries().count(), 0);
        assert_eq!(NicTable::parse(b" \n").unwrap(), NicTable(b" \n"));
        for bad in [&b"1"[..], b"1=", b"=1.2.3.4", b"0x100000=1.2.3.4", b"1=1.2.3", b"1=1.2.3.4.5", b"1=a.b.c.d", b"1=1.2.3.4;2=1.2.3.5"] {
            assert_eq!(NicTable::parse(bad), Err(NicTableError::BadEntry), "{:?}", core::str::from_utf8(bad));
        }
        assert_eq!(NicTable::parse(b"1=1.2.3.4,0x1=1.2.3.5"), Err(NicTableError::Duplicate));
        assert_eq!(NicTable::parse(b"1=1.2.3.4 2=1.2.3.4"), Err(NicTableError::Duplicate));
        let long = [b' '; NIC_TABLE_MAX];
        assert_eq!(NicTable::parse(&long), Err(NicTableError::TooLong));
        assert!(NicTable::parse(&long[1..]).is_ok());
    }

    #[test]
    fn table_first_then_rules() {
        let t = NicTable::parse(b"0x41=10.2.0.7,9=192.168.1.5").unwrap();
        let (net, own) = t.own([192, 168, 1, 5], 24);
        assert_eq!((net.net, own), ([192, 168, 1, 0], 9));
        assert_eq!(t.own([192, 168, 1, 6], 24).1, 6);
        // a listed peer anywhere, the rest in the net
        assert_eq!(t.addr(&net, Nic { nic: 0x41, pid: 2 }), Some(([10, 2, 0, 7], PORT_BASE + 2)));
        assert_eq!(t.addr(&net, Nic { nic: 0x41, pid: 4096 }), None);
        assert_eq!(t.addr(&net, Nic { nic: 7, pid: 0 }), Some(([192, 168, 1, 7], PORT_BASE)));
        assert_eq!(t.name(&net, [10, 2, 0, 7], PORT_BASE + 2), Some(Nic { nic: 0x41, pid: 2 }));
        assert_eq!(t.name(&net, [10, 2, 0, 7], 80), None);
        assert_eq!(t.name(&net, [10, 2, 0, 8], PORT_BASE), None);
        assert_eq!(t.name(&net, [192, 168, 1, 5], PORT_BASE), Some(Nic { nic: 9, pid: 0 }));
        assert_eq!(t.name(&net, [192, 168, 1, 7], PORT_BASE + 1), Some(Nic { nic: 7, pid: 1 }));
        // no table: the rules
        let e = NicTable::EMPTY;
        assert_eq!(e.own([192, 168, 1, 5], 24).1, 5);
        assert_eq!(e.addr(&net, Nic { nic: 0x41, pid: 0 }), Some(([192, 168, 1, 0x41], PORT_BASE)));
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_nic(b"0x1f"), Some(0x1f));
        assert_eq!(parse_nic(b"0XfFfFf"), Some(0xfffff));
        assert_eq!(parse_nic(b"0"), Some(0));
        assert_eq!(parse_nic(b"31"), Some(31));
        for bad in [&b""[..], b"0x", b"0x100000", b"1048576", b"-1", b" 1", b"0x1g", b"1.2.3.4", b"123456789"] {
            assert_eq!(parse_nic(bad), None, "{:?}", core::str::from_utf8(bad));
        }
        assert_eq!(parse_pid(b"0"), Some(0));
        assert_eq!(parse_pid(b"4095"), Some(4095));
        for bad in [&b""[..], b"4096", b"0x1", b"+1", b"99999999"] {
            assert_eq!(parse_pid(bad), None);
        }
        assert_eq!(pid_of_port(PORT_BASE + 4095), Some(4095));
        assert_eq!(pid_of_port(80), None);
    }
}

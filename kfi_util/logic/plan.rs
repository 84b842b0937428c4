// SPDX-License-Identifier: GPL-2.0
//! Which local interfaces and addresses a `kfi_getinfo` answer covers.
//!
//! The tcp provider answers with one entry per usable address (IPv4 or
//! IPv6) of the caller's network namespace: domain name = interface name
//! (`lo`), fabric name = the address's subnet (`127.0.0.0/8`, `::1/128`),
//! as libfabric's tcp provider does. `node`/`service` are numeric only (the
//! kernel resolves no names; the one exception is `localhost`, read as
//! 127.0.0.1). An IPv6 node may carry a zone (`fe80::1%eth0`, `fe80::1%2`)
//! naming an interface of the list by name or index; a zone naming none
//! matches nothing ([`PlanError::NoMatch`]).
//! - with `KFI_SOURCE`, or without a node: they name the local address;
//!   a node selects the interface carrying that address (`0.0.0.0`: every
//!   IPv4 address, `::`: every IPv6 one), the service is the local port of
//!   `src_addr`;
//! - otherwise they name the peer: `dest_addr` = node:service, and the
//!   interface whose subnet holds the peer is listed first (a peer with a
//!   zone: only the zone's interface).
//!
//! Order of entries: IPv4 addresses first, then IPv6 ones; within a
//! family, in the interface list's order. A family filter (from the
//! hints' `addr_format`) keeps one family only; a node of the other family
//! then matches nothing.

use super::host;
use super::nic::{self, Nic, NicTable};

/// An address family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Family {
    /// IPv4 (`AF_INET`, `struct sockaddr_in`).
    #[default]
    V4,
    /// IPv6 (`AF_INET6`, `struct sockaddr_in6`).
    V6,
}

impl Family {
    /// Bits of an address of this family.
    pub fn bits(self) -> u8 {
        match self {
            Family::V4 => 32,
            Family::V6 => 128,
        }
    }

    /// Bytes of an address of this family.
    pub fn len(self) -> usize {
        usize::from(self.bits() / 8)
    }
}

/// A socket address of either family (host order port).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Addr {
    /// Its family.
    pub family: Family,
    /// Address bytes, network order; an IPv4 address in the first 4 (the
    /// rest zero).
    pub addr: [u8; 16],
    /// Port.
    pub port: u16,
    /// IPv6 scope id (the interface index of a link-local address); 0
    /// for none and for IPv4.
    pub scope: u32,
}

impl Addr {
    /// An IPv4 address.
    pub fn v4(a: [u8; 4], port: u16) -> Addr {
        let mut addr = [0; 16];
        addr[..4].copy_from_slice(&a);
        Addr { family: Family::V4, addr, port, scope: 0 }
    }

    /// An IPv6 address.
    pub fn v6(addr: [u8; 16], port: u16, scope: u32) -> Addr {
        Addr { family: Family::V6, addr, port, scope }
    }

    /// The IPv4 address bytes (meaningful for [`Family::V4`] only).
    pub fn ip4(&self) -> [u8; 4] {
        [self.addr[0], self.addr[1], self.addr[2], self.addr[3]]
    }

    /// The unspecified address of the family (0.0.0.0 or ::).
    pub fn is_any(&self) -> bool {
        self.addr == [0; 16]
    }
}

/// True for an IPv6 link-local unicast address (fe80::/10), the addresses
/// that need a scope id.
pub fn is_link_local(a: &[u8; 16]) -> bool {
    a[0] == 0xfe && a[1] & 0xc0 == 0x80
}

/// One address of a network interface.
#[derive(Clone, Copy, Debug, Default)]
pub struct Iface<'a> {
    /// Interface name (`lo`, `eth0`).
    pub name: &'a [u8],
    /// Interface index (the scope id of its link-local addresses).
    pub index: u32,
    /// Family of `addr`.
    pub family: Family,
    /// Address bytes, network order (IPv4 in the first 4).
    pub addr: [u8; 16],
    /// Prefix length of the subnet.
    pub prefix: u8,
    /// Administratively up.
    pub up: bool,
}

impl Iface<'_> {
    /// The IPv4 address bytes (meaningful for [`Family::V4`] only).
    pub fn ip4(&self) -> [u8; 4] {
        [self.addr[0], self.addr[1], self.addr[2], self.addr[3]]
    }

    /// The prefix, at most the family's bits.
    pub fn prefix_len(&self) -> u8 {
        self.prefix.min(self.family.bits())
    }

    /// The subnet address (for the fabric name `subnet/prefix`); IPv4 in
    /// the first 4 bytes.
    pub fn subnet(&self) -> [u8; 16] {
        let mut s = [0u8; 16];
        let mut left = u32::from(self.prefix_len());
        for (k, b) in self.addr[..self.family.len()].iter().enumerate() {
            let keep = left.min(8);
            s[k] = if keep == 0 { 0 } else { b & (0xffu8 << (8 - keep)) };
            left -= keep;
        }
        s
    }

    /// True when `a` lies in this interface's subnet (and, for an address
    /// with a scope id, on this interface).
    pub fn holds(&self, a: &Addr) -> bool {
        if a.family != self.family || (a.scope != 0 && a.scope != self.index) {
            return false;
        }
        let other = Iface { addr: a.addr, ..*self };
        other.subnet() == self.subnet()
    }

    /// The local address of this interface with `port`: a link-local IPv6
    /// address carries the interface's index as scope id.
    pub fn local(&self, port: u16) -> Addr {
        match self.family {
            Family::V4 => Addr { addr: self.addr, port, ..Addr::default() },
            Family::V6 => {
                let scope = if is_link_local(&self.addr) { self.index } else { 0 };
                Addr::v6(self.addr, port, scope)
            }
        }
    }
}

/// One entry to build: the interface and the addresses to put in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Plan {
    /// Index into the interface list.
    pub iface: usize,
    /// `src_addr` of the entry, if any.
    pub src: Option<Addr>,
    /// `dest_addr` of the entry, if any.
    pub dest: Option<Addr>,
    /// The entry names `src` by its NIC address (`KFI_ADDR_CXI`,
    /// [`super::nic`]): `src` is the IPv4 address and port it stands for.
    pub nic: Option<Nic>,
}

/// Why no plan could be made; [`PlanError::errno`] gives the return code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// `node` is not a numeric IPv4 or IPv6 address (nor `localhost`), or
    /// its zone is malformed.
    BadNode,
    /// `service` is not a port number.
    BadService,
    /// No usable interface matches (also: a zone naming no interface, a
    /// node of a family the hints exclude).
    NoMatch,
}

impl PlanError {
    /// Negative errno for `kgetinfo`.
    pub fn errno(self) -> i32 {
        match self {
            PlanError::BadNode | PlanError::BadService => -22, // EINVAL
            PlanError::NoMatch => -61,                         // ENODATA
        }
    }
}

/// The interface index a zone names: a number that is the index of a
/// listed interface, or the name of one.
fn zone_index(ifaces: &[Iface<'_>], zone: &[u8]) -> Option<u32> {
    match host::zone_number(zone) {
        Some(n) => ifaces.iter().any(|i| i.index == n).then_some(n),
        None => ifaces.iter().find(|i| i.name == zone).map(|i| i.index),
    }
}

/// Reads a numeric node (port 0).
pub fn node_addr(ifaces: &[Iface<'_>], node: &[u8]) -> Result<Addr, PlanError> {
    if node == b"localhost" {
        return Ok(Addr::v4([127, 0, 0, 1], 0));
    }
    if let Some(a) = host::parse_ipv4(node) {
        return Ok(Addr::v4(a, 0));
    }
    let (a, zone) = host::parse_ipv6_zone(node).ok_or(PlanError::BadNode)?;
    let scope = match zone {
        None => 0,
        Some(z) => zone_index(ifaces, z).ok_or(PlanError::NoMatch)?,
    };
    Ok(Addr::v6(a, 0, scope))
}

/// Whether entries may name their source by NIC address (the hints'
/// `addr_format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NicWant {
    /// Socket addresses only (`KFI_SOCKADDR*`).
    #[default]
    No,
    /// NIC addresses for an interface named as node, socket addresses
    /// otherwise (`KFI_FORMAT_UNSPEC`).
    Allow,
    /// NIC addresses only (`KFI_ADDR_CXI`).
    Only,
}

/// Plans the entries for a `kgetinfo` call into `out`; returns how many.
/// `family`: only entries of that family (`None`: both). Entries beyond
/// `out.len()` are dropped (callers size `out` to the interface count,
/// which is always enough). Socket addresses only: [`plan_with`] with
/// [`NicWant::No`].
pub fn plan(
    ifaces: &[Iface<'_>],
    source: bool,
    node: Option<&[u8]>,
    service: Option<&[u8]>,
    family: Option<Family>,
    out: &mut [Plan],
) -> Result<usize, PlanError> {
    plan_with(ifaces, source, node, service, family, NicWant::No, NicTable::EMPTY, out)
}

/// [`plan`], and a source node naming an interface (`eth0`: kfilnd's
/// `kfi_getinfo(0, "<interface>", "<net number>", KFI_SOURCE, ...)`): an
/// entry per address of that interface; with `nic` [`NicWant::Allow`] or
/// [`NicWant::Only`], per IPv4 address, named by its NIC address and the
/// service as endpoint index ([`super::nic`]: a decimal below 4096, the
/// port [`nic::PORT_BASE`] + it; `table` first: [`NicTable::own`]);
/// otherwise the service is the port. With [`NicWant::Only`] other nodes
/// match nothing.
#[allow(clippy::too_many_arguments)]
pub fn plan_with(
    ifaces: &[Iface<'_>],
    source: bool,
    node: Option<&[u8]>,
    service: Option<&[u8]>,
    family: Option<Family>,
    nic: NicWant,
    table: NicTable<'_>,
    out: &mut [Plan],
) -> Result<usize, PlanError> {
    let iface_node = node.filter(|n| source && node_addr(ifaces, n).is_err() && ifaces.iter().any(|i| i.name == *n));
    if let Some(name) = iface_node {
        return plan_iface(ifaces, name, service, family, nic, table, out);
    }
    if nic == NicWant::Only {
        // A bad node stays a bad node; a good one names no interface.
        node.map(|n| node_addr(ifaces, n)).transpose()?;
        return Err(PlanError::NoMatch);
    }
    let port = match service {
        None => 0,
        Some(s) => host::parse_port(s).ok_or(PlanError::BadService)?,
    };
    let node = node.map(|n| node_addr(ifaces, n)).transpose()?;
    if node.is_some_and(|a| family.is_some_and(|f| f != a.family)) {
        return Err(PlanError::NoMatch);
    }
    let mut n = 0;
    let mut push = |p: Plan| {
        if let Some(slot) = out.get_mut(n) {
            *slot = p;
            n += 1;
        }
    };
    // IPv4 addresses first, then IPv6 ones, each family if wanted.
    let fam_ok = move |f: &Family| family.map_or(true, |w| w == *f) && node.map_or(true, |a| a.family == *f);
    let usable = || {
        [Family::V4, Family::V6]
            .into_iter()
            .filter(fam_ok)
            .flat_map(move |f| ifaces.iter().enumerate().filter(move |(_, i)| i.up && i.family == f))
    };
    if source || node.is_none() {
        let want = node.filter(|a| !a.is_any());
        for (idx, i) in usable() {
            let hit = want.map_or(true, |a| a.addr == i.addr && (a.scope == 0 || a.scope == i.index));
            if hit {
                let src = (service.is_some() || want.is_some()).then(|| i.local(port));
                push(Plan { iface: idx, src, dest: None, nic: None });
            }
        }
    } else if let Some(mut dest) = node {
        dest.port = port;
        let dest = Some(dest);
        // The interface whose subnet holds the peer first, then the rest
        // (none for a peer with a zone: only its interface reaches it).
        for first in [true, false] {
            for (idx, i) in usable() {
                let d = dest.unwrap_or_default();
                let scoped_elsewhere = d.scope != 0 && d.scope != i.index;
                if !scoped_elsewhere && i.holds(&d) == first {
                    push(Plan { iface: idx, src: None, dest, nic: None });
                }
            }
        }
    }
    if n == 0 {
        Err(PlanError::NoMatch)
    } else {
        Ok(n)
    }
}

/// The entries of interface `name` ([`plan_with`]).
fn plan_iface(
    ifaces: &[Iface<'_>],
    name: &[u8],
    service: Option<&[u8]>,
    family: Option<Family>,
    want: NicWant,
    table: NicTable<'_>,
    out: &mut [Plan],
) -> Result<usize, PlanError> {
    let nic_mode = want != NicWant::No;
    let pid = match (service, nic_mode) {
        (None, _) => 0,
        (Some(s), true) => nic::parse_pid(s).ok_or(PlanError::BadService)?,
        (Some(s), false) => host::parse_port(s).ok_or(PlanError::BadService)?,
    };
    let family = if nic_mode { Some(Family::V4) } else { family };
    let mut n = 0;
    let of_family = |i: &&Iface<'_>| family.map_or(true, |f| f == i.family);
    for (idx, i) in ifaces.iter().enumerate().filter(|(_, i)| i.up && i.name == name) {
        if !of_family(&i) || n == out.len() {
            continue;
        }
        out[n] = if nic_mode {
            let (_, own) = table.own(i.ip4(), i.prefix_len());
            let id = Nic { nic: own, pid };
            Plan { iface: idx, src: Some(i.local(id.port())), dest: None, nic: Some(id) }
        } else {
            Plan { iface: idx, src: service.map(|_| i.local(pid)), dest: None, nic: None }
        };
        n += 1;
    }
    if n == 0 {
        Err(PlanError::NoMatch)
    } else {
        Ok(n)
    }
}

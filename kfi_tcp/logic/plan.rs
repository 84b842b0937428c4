// SPDX-License-Identifier: GPL-2.0
//! Which local interfaces and addresses a `kfi_getinfo` answer covers.
//!
//! The tcp provider answers with one entry per usable IPv4 interface of the
//! caller's network namespace: domain name = interface name (`lo`), fabric
//! name = its subnet (`127.0.0.0/8`), as libfabric's tcp provider does.
//! `node`/`service` are numeric only (the kernel resolves no names; the one
//! exception is `localhost`, read as 127.0.0.1):
//! - with `KFI_SOURCE`, or without a node: they name the local address;
//!   a node selects the interface carrying that address (0.0.0.0: every
//!   interface), the service is the local port of `src_addr`;
//! - otherwise they name the peer: `dest_addr` = node:service, and the
//!   interface whose subnet holds the peer is listed first.

use crate::logic::host;

/// An IPv4 address and port (host order port).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SockIn {
    /// Address bytes, network order.
    pub addr: [u8; 4],
    /// Port.
    pub port: u16,
}

/// One IPv4 address of a network interface.
#[derive(Clone, Copy, Debug)]
pub struct Iface<'a> {
    /// Interface name (`lo`, `eth0`).
    pub name: &'a [u8],
    /// Address bytes, network order.
    pub addr: [u8; 4],
    /// Prefix length of the subnet.
    pub prefix: u8,
    /// Administratively up.
    pub up: bool,
}

impl Iface<'_> {
    fn mask(&self) -> u32 {
        match self.prefix {
            0 => 0,
            p if p >= 32 => u32::MAX,
            p => u32::MAX << (32 - u32::from(p)),
        }
    }

    /// True when `a` lies in this interface's subnet.
    pub fn holds(&self, a: [u8; 4]) -> bool {
        (u32::from_be_bytes(a) ^ u32::from_be_bytes(self.addr)) & self.mask() == 0
    }

    /// The subnet address (for the fabric name `a.b.c.d/prefix`).
    pub fn subnet(&self) -> [u8; 4] {
        (u32::from_be_bytes(self.addr) & self.mask()).to_be_bytes()
    }
}

/// One entry to build: the interface and the addresses to put in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Plan {
    /// Index into the interface list.
    pub iface: usize,
    /// `src_addr` of the entry, if any.
    pub src: Option<SockIn>,
    /// `dest_addr` of the entry, if any.
    pub dest: Option<SockIn>,
}

/// Why no plan could be made; [`PlanError::errno`] gives the return code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// `node` is not a numeric IPv4 address (nor `localhost`).
    BadNode,
    /// `service` is not a port number.
    BadService,
    /// No usable interface matches.
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

fn node_addr(node: &[u8]) -> Result<[u8; 4], PlanError> {
    if node == b"localhost" {
        return Ok([127, 0, 0, 1]);
    }
    host::parse_ipv4(node).ok_or(PlanError::BadNode)
}

/// Plans the entries for a `kgetinfo` call into `out`; returns how many.
/// Entries beyond `out.len()` are dropped (callers size `out` to the
/// interface count, which is always enough).
pub fn plan(
    ifaces: &[Iface<'_>],
    source: bool,
    node: Option<&[u8]>,
    service: Option<&[u8]>,
    out: &mut [Plan],
) -> Result<usize, PlanError> {
    let port = match service {
        None => 0,
        Some(s) => host::parse_port(s).ok_or(PlanError::BadService)?,
    };
    let node = node.map(node_addr).transpose()?;
    let mut n = 0;
    let mut push = |p: Plan| {
        if let Some(slot) = out.get_mut(n) {
            *slot = p;
            n += 1;
        }
    };
    let usable = || ifaces.iter().enumerate().filter(|(_, i)| i.up);
    if source || node.is_none() {
        let want = node.filter(|a| *a != [0; 4]);
        for (idx, i) in usable() {
            if want.map_or(true, |a| a == i.addr) {
                let src = (service.is_some() || want.is_some()).then_some(SockIn { addr: i.addr, port });
                push(Plan { iface: idx, src, dest: None });
            }
        }
    } else if let Some(dest) = node {
        let dest = Some(SockIn { addr: dest, port });
        // The interface whose subnet holds the peer first, then the rest.
        for first in [true, false] {
            for (idx, i) in usable() {
                if i.holds(dest.unwrap_or_default().addr) == first {
                    push(Plan { iface: idx, src: None, dest });
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

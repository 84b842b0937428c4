// SPDX-License-Identifier: GPL-2.0
//! Tests of kfi_util/logic/plan.rs: which interfaces and addresses a
//! kfi_getinfo answer of the tcp provider covers.

use kfi_util_logic::logic::nic::NicTable;
use kfi_util_logic::logic::plan::*;
use proptest::prelude::*;
use std::net::Ipv6Addr;

fn v6(s: &str) -> [u8; 16] {
    s.parse::<Ipv6Addr>().unwrap().octets()
}

fn ip4(a: [u8; 4]) -> [u8; 16] {
    Addr::v4(a, 0).addr
}

fn ifaces() -> [Iface<'static>; 8] {
    let i4 = |name, index, a, prefix, up| Iface { name, index, family: Family::V4, addr: ip4(a), prefix, up };
    let i6 = |name, index, a, prefix, up| Iface { name, index, family: Family::V6, addr: v6(a), prefix, up };
    [
        i4(b"lo", 1, [127, 0, 0, 1], 8, true),
        i6(b"lo", 1, "::1", 128, true),
        i4(b"eth0", 2, [10, 0, 2, 15], 24, true),
        i6(b"eth0", 2, "fd00::2", 64, true),
        i6(b"eth0", 2, "fe80::2", 64, true),
        i4(b"eth1", 3, [192, 168, 7, 2], 24, false),
        i6(b"eth1", 3, "fd01::2", 64, false),
        i6(b"eth2", 4, "fe80::4", 64, true),
    ]
}

fn run_f(source: bool, node: Option<&str>, service: Option<&str>, family: Option<Family>) -> Result<Vec<Plan>, PlanError> {
    let mut out = [Plan::default(); 16];
    let n = plan(&ifaces(), source, node.map(str::as_bytes), service.map(str::as_bytes), family, &mut out)?;
    Ok(out[..n].to_vec())
}

fn run(source: bool, node: Option<&str>, service: Option<&str>) -> Result<Vec<Plan>, PlanError> {
    run_f(source, node, service, None)
}

fn idx(p: &[Plan]) -> Vec<usize> {
    p.iter().map(|e| e.iface).collect()
}

#[test]
fn no_arguments_lists_every_up_address_ipv4_first() {
    let p = run(false, None, None).unwrap();
    assert_eq!(idx(&p), vec![0, 2, 1, 3, 4, 7]);
    assert!(p.iter().all(|e| e.src.is_none() && e.dest.is_none()));
    assert_eq!(idx(&run_f(false, None, None, Some(Family::V4)).unwrap()), vec![0, 2]);
    assert_eq!(idx(&run_f(false, None, None, Some(Family::V6)).unwrap()), vec![1, 3, 4, 7]);
}

#[test]
fn service_alone_is_a_local_port() {
    for source in [false, true] {
        let p = run(source, None, Some("7471")).unwrap();
        assert_eq!(p.len(), 6);
        assert_eq!(p[0].src, Some(Addr::v4([127, 0, 0, 1], 7471)));
        assert_eq!(p[1].src, Some(Addr::v4([10, 0, 2, 15], 7471)));
        assert_eq!(p[2].src, Some(Addr::v6(v6("::1"), 7471, 0)));
        assert_eq!(p[3].src, Some(Addr::v6(v6("fd00::2"), 7471, 0)));
        // a link-local address carries its interface as scope
        assert_eq!(p[4].src, Some(Addr::v6(v6("fe80::2"), 7471, 2)));
        assert_eq!(p[5].src, Some(Addr::v6(v6("fe80::4"), 7471, 4)));
        assert!(p.iter().all(|e| e.dest.is_none()));
    }
}

#[test]
fn source_node_selects_its_interface() {
    let p = run(true, Some("10.0.2.15"), Some("9")).unwrap();
    assert_eq!(idx(&p), vec![2]);
    assert_eq!(p[0].src, Some(Addr::v4([10, 0, 2, 15], 9)));
    assert_eq!(idx(&run(true, Some("0.0.0.0"), None).unwrap()), vec![0, 2]);
    assert_eq!(run(true, Some("10.9.9.9"), None), Err(PlanError::NoMatch));
    // an interface that is down is never used
    assert_eq!(run(true, Some("192.168.7.2"), None), Err(PlanError::NoMatch));
    assert_eq!(run(true, Some("fd01::2"), None), Err(PlanError::NoMatch));
}

#[test]
fn source_ipv6_nodes() {
    let p = run(true, Some("::1"), Some("7471")).unwrap();
    assert_eq!(idx(&p), vec![1]);
    assert_eq!(p[0].src, Some(Addr::v6(v6("::1"), 7471, 0)));
    // every textual form of the same address
    for node in ["fd00::2", "fd00:0::2", "FD00:0:0:0:0:0:0:2", "fd00:0000:0000:0000:0000:0000:0000:0002", "fd00::0.0.0.2"] {
        let p = run(true, Some(node), None).unwrap();
        assert_eq!(idx(&p), vec![3], "{node}");
        assert_eq!(p[0].src, Some(Addr::v6(v6("fd00::2"), 0, 0)));
    }
    // "::" is every IPv6 address
    assert_eq!(idx(&run(true, Some("::"), None).unwrap()), vec![1, 3, 4, 7]);
    // link-local: the zone by name or index, or none (the scope comes from
    // the interface carrying it)
    for node in ["fe80::2%eth0", "fe80::2%2", "fe80::2"] {
        let p = run(true, Some(node), Some("1")).unwrap();
        assert_eq!(idx(&p), vec![4], "{node}");
        assert_eq!(p[0].src, Some(Addr::v6(v6("fe80::2"), 1, 2)));
    }
    // a zone of another interface than the address's
    assert_eq!(run(true, Some("fe80::2%eth2"), None), Err(PlanError::NoMatch));
    // a zone naming no interface
    assert_eq!(run(true, Some("fe80::2%eth9"), None), Err(PlanError::NoMatch));
    assert_eq!(run(true, Some("fe80::2%99"), None), Err(PlanError::NoMatch));
    assert_eq!(run(false, Some("fe80::2%eth9"), None), Err(PlanError::NoMatch));
}

#[test]
fn destination_node_orders_by_subnet() {
    let p = run(false, Some("10.0.2.2"), Some("47592")).unwrap();
    assert_eq!(idx(&p), vec![2, 0]);
    assert!(p.iter().all(|e| e.dest == Some(Addr::v4([10, 0, 2, 2], 47592)) && e.src.is_none()));
    let p = run(false, Some("localhost"), None).unwrap();
    assert_eq!(p[0].iface, 0);
    assert_eq!(p[0].dest, Some(Addr::v4([127, 0, 0, 1], 0)));
}

#[test]
fn destination_ipv6_nodes() {
    let p = run(false, Some("::1"), Some("47592")).unwrap();
    assert_eq!(idx(&p), vec![1, 3, 4, 7]);
    assert!(p.iter().all(|e| e.dest == Some(Addr::v6(v6("::1"), 47592, 0)) && e.src.is_none()));
    let p = run(false, Some("fd00::99"), None).unwrap();
    assert_eq!(idx(&p), vec![3, 1, 4, 7]);
    // a zone: its interface only, the scope in the address
    for node in ["fe80::1%eth2", "fe80::1%4"] {
        let p = run(false, Some(node), Some("5")).unwrap();
        assert_eq!(idx(&p), vec![7], "{node}");
        assert_eq!(p[0].dest, Some(Addr::v6(v6("fe80::1"), 5, 4)));
    }
    let p = run(false, Some("fe80::1%eth0"), None).unwrap();
    assert_eq!(idx(&p), vec![4, 3]);
    // no zone: the link-local subnets first, scope 0 (connect then needs one)
    let p = run(false, Some("fe80::1"), None).unwrap();
    assert_eq!(idx(&p), vec![4, 7, 1, 3]);
    assert_eq!(p[0].dest.unwrap().scope, 0);
}

#[test]
fn family_filter() {
    assert_eq!(run_f(false, Some("::1"), None, Some(Family::V4)), Err(PlanError::NoMatch));
    assert_eq!(run_f(true, Some("127.0.0.1"), None, Some(Family::V6)), Err(PlanError::NoMatch));
    assert_eq!(idx(&run_f(true, Some("127.0.0.1"), None, Some(Family::V4)).unwrap()), vec![0]);
    assert_eq!(idx(&run_f(true, Some("::1"), None, Some(Family::V6)).unwrap()), vec![1]);
    assert_eq!(idx(&run_f(false, None, Some("1"), Some(Family::V6)).unwrap()), vec![1, 3, 4, 7]);
}

#[test]
fn bad_arguments() {
    assert_eq!(run(false, Some("server.example"), None), Err(PlanError::BadNode));
    assert_eq!(run(false, Some("::1::"), None), Err(PlanError::BadNode));
    assert_eq!(run(false, Some("fe80::1%"), None), Err(PlanError::BadNode));
    assert_eq!(run(false, Some("fe80::1%a%b"), None), Err(PlanError::BadNode));
    assert_eq!(run(false, Some("127.0.0.1%lo"), None), Err(PlanError::BadNode));
    assert_eq!(run(false, Some("[::1]"), None), Err(PlanError::BadNode));
    assert_eq!(run(false, None, Some("http")), Err(PlanError::BadService));
    assert_eq!(run(false, None, Some("70000")), Err(PlanError::BadService));
    assert_eq!(PlanError::BadNode.errno(), -22);
    assert_eq!(PlanError::NoMatch.errno(), -61);
}

#[test]
fn subnet_and_prefix_edges() {
    let i = Iface { name: b"x", index: 1, family: Family::V4, addr: ip4([10, 1, 2, 3]), prefix: 0, up: true };
    assert!(i.holds(&Addr::v4([1, 2, 3, 4], 0)));
    assert_eq!(i.subnet(), [0; 16]);
    let i = Iface { prefix: 32, ..i };
    assert!(i.holds(&Addr::v4([10, 1, 2, 3], 0)) && !i.holds(&Addr::v4([10, 1, 2, 4], 0)));
    let i = Iface { prefix: 40, ..i };
    assert_eq!(i.subnet(), ip4([10, 1, 2, 3]));
    let i = Iface { prefix: 20, ..i };
    assert_eq!(i.subnet(), ip4([10, 1, 0, 0]));
    // never across families
    assert!(!i.holds(&Addr::v6(ip4([10, 1, 2, 3]), 0, 0)));
    let i = Iface { family: Family::V6, addr: v6("2001:db8:ab:cdef::1"), prefix: 52, ..i };
    assert_eq!(i.subnet(), v6("2001:db8:ab:c000::"));
    let i = Iface { prefix: 200, ..i };
    assert_eq!(i.prefix_len(), 128);
    assert_eq!(i.subnet(), v6("2001:db8:ab:cdef::1"));
    let i = Iface { prefix: 0, ..i };
    assert_eq!(i.subnet(), [0; 16]);
    // a scoped address is held by its interface only
    let ll = Iface { addr: v6("fe80::1"), prefix: 64, index: 3, ..i };
    assert!(ll.holds(&Addr::v6(v6("fe80::9"), 0, 3)) && ll.holds(&Addr::v6(v6("fe80::9"), 0, 0)));
    assert!(!ll.holds(&Addr::v6(v6("fe80::9"), 0, 4)));
    assert!(is_link_local(&v6("febf::1")) && !is_link_local(&v6("fec0::1")) && !is_link_local(&v6("::1")));
}

/// The subnet as std computes it.
fn model_subnet(a: [u8; 16], prefix: u8) -> [u8; 16] {
    let p = u32::from(prefix.min(128));
    let mask = if p == 0 { 0 } else { u128::MAX << (128 - p) };
    (u128::from_be_bytes(a) & mask).to_be_bytes()
}

proptest! {
    #[test]
    fn never_more_than_out_and_never_down(addr: [u8; 4], port: u16, source: bool, cap in 0usize..4) {
        let node = std::net::Ipv4Addr::from(addr).to_string();
        let svc = port.to_string();
        let mut out = [Plan::default(); 4];
        if let Ok(n) = plan(&ifaces(), source, Some(node.as_bytes()), Some(svc.as_bytes()), None, &mut out[..cap]) {
            prop_assert!(n <= cap);
            for p in &out[..n] {
                prop_assert!(ifaces()[p.iface].up);
                prop_assert_eq!(ifaces()[p.iface].family, Family::V4);
            }
        }
    }

    #[test]
    fn ipv6_node_in_any_form_is_its_address(addr: [u8; 16], port: u16, upper: bool) {
        let a = Ipv6Addr::from(addr);
        let forms = [a.to_string(), full(addr)];
        for f in forms {
            let f = if upper { f.to_uppercase() } else { f };
            let svc = port.to_string();
            let mut out = [Plan::default(); 16];
            let n = plan(&ifaces(), false, Some(f.as_bytes()), Some(svc.as_bytes()), None, &mut out).unwrap();
            prop_assert_eq!(n, 4);
            for p in &out[..n] {
                prop_assert_eq!(p.dest, Some(Addr::v6(addr, port, 0)));
                prop_assert_eq!(ifaces()[p.iface].family, Family::V6);
            }
            // the first entry's subnet holds the peer if any does
            let holds = |i: &Iface<'_>| model_subnet(i.addr, i.prefix) == model_subnet(addr, i.prefix);
            let any = ifaces().iter().any(|i| i.up && i.family == Family::V6 && holds(i));
            prop_assert_eq!(holds(&ifaces()[out[0].iface]), any);
        }
    }

    #[test]
    fn subnet_matches_model(addr: [u8; 16], prefix in 0u8..=255) {
        let i = Iface { name: b"x", index: 1, family: Family::V6, addr, prefix, up: true };
        prop_assert_eq!(i.subnet(), model_subnet(addr, prefix));
    }
}

/// The full form, eight groups of four hex digits.
fn full(a: [u8; 16]) -> String {
    a.chunks(2).map(|g| format!("{:02x}{:02x}", g[0], g[1])).collect::<Vec<_>>().join(":")
}

fn run_nic(node: &str, service: Option<&str>, family: Option<Family>, nic: NicWant) -> Result<Vec<Plan>, PlanError> {
    let mut out = [Plan::default(); 16];
    let n = plan_with(&ifaces(), true, Some(node.as_bytes()), service.map(str::as_bytes), family, nic, NicTable::EMPTY, &mut out)?;
    Ok(out[..n].to_vec())
}

#[test]
fn an_interface_name_as_source_gives_its_nic_address() {
    use kfi_util_logic::logic::nic::{Nic, PORT_BASE};
    for want in [NicWant::Allow, NicWant::Only] {
        // kfilnd: kfi_getinfo(0, "eth0", "2", KFI_SOURCE, ...): eth0's
        // IPv4 address only, host part 15 of its /24, endpoint index 2.
        let p = run_nic("eth0", Some("2"), None, want).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].iface, 2);
        assert_eq!(p[0].nic, Some(Nic { nic: 15, pid: 2 }));
        assert_eq!(p[0].src, Some(Addr::v4([10, 0, 2, 15], PORT_BASE + 2)));
        assert_eq!(p[0].dest, None);
        // lo is a /8: the low 20 bits.
        let p = run_nic("lo", None, None, want).unwrap();
        assert_eq!(p[0].nic, Some(Nic { nic: 1, pid: 0 }));
        assert_eq!(p[0].src, Some(Addr::v4([127, 0, 0, 1], PORT_BASE)));
        // Endpoint indices are decimal and below 4096.
        for bad in ["4096", "0x1", "x", ""] {
            assert_eq!(run_nic("eth0", Some(bad), None, want), Err(PlanError::BadService));
        }
        // A down interface, an interface with IPv6 addresses only, a
        // name no interface has.
        assert_eq!(run_nic("eth1", Some("0"), None, want), Err(PlanError::NoMatch));
        assert_eq!(run_nic("eth2", Some("0"), None, want), Err(PlanError::NoMatch));
        assert_eq!(run_nic("eth9", Some("0"), None, want), Err(PlanError::BadNode));
    }
    // With socket addresses only, the interface's addresses with the
    // service as port.
    let p = run_nic("eth0", Some("7471"), None, NicWant::No).unwrap();
    assert_eq!(idx(&p), vec![2, 3, 4]);
    assert!(p.iter().all(|e| e.nic.is_none() && e.src.map(|a| a.port) == Some(7471)));
    assert_eq!(idx(&run_nic("eth0", None, Some(Family::V6), NicWant::No).unwrap()), vec![3, 4]);
    // Numeric nodes keep their meaning; NIC addresses only for names.
    let p = run_nic("10.0.2.15", Some("7471"), None, NicWant::Allow).unwrap();
    assert_eq!((p.len(), p[0].nic), (1, None));
    assert_eq!(run_nic("10.0.2.15", Some("1"), None, NicWant::Only), Err(PlanError::NoMatch));
    // A name is no peer: without KFI_SOURCE it is a bad node.
    let mut out = [Plan::default(); 4];
    assert_eq!(plan_with(&ifaces(), false, Some(b"eth0"), None, None, NicWant::Allow, NicTable::EMPTY, &mut out), Err(PlanError::BadNode));
}

#[test]
fn the_nic_table_names_local_addresses_first() {
    use kfi_util_logic::logic::nic::{Nic, PORT_BASE};
    let t = NicTable::parse(b"0x41=10.0.2.15,7=10.9.0.1").unwrap();
    let mut out = [Plan::default(); 4];
    let n = plan_with(&ifaces(), true, Some(b"eth0"), Some(b"3"), None, NicWant::Only, t, &mut out).unwrap();
    assert_eq!(n, 1);
    assert_eq!(out[0].nic, Some(Nic { nic: 0x41, pid: 3 }));
    assert_eq!(out[0].src, Some(Addr::v4([10, 0, 2, 15], PORT_BASE + 3)));
    // an address the table does not list: the rule
    let n = plan_with(&ifaces(), true, Some(b"lo"), None, None, NicWant::Only, t, &mut out).unwrap();
    assert_eq!((n, out[0].nic), (1, Some(Nic { nic: 1, pid: 0 })));
}

// SPDX-License-Identifier: GPL-2.0
//! Tests of kfi_tcp/logic/plan.rs: which interfaces and addresses a
//! kfi_getinfo answer of the tcp provider covers.

use kfi_tcp_logic::logic::plan::*;
use proptest::prelude::*;

fn ifaces() -> [Iface<'static>; 3] {
    [
        Iface { name: b"lo", addr: [127, 0, 0, 1], prefix: 8, up: true },
        Iface { name: b"eth0", addr: [10, 0, 2, 15], prefix: 24, up: true },
        Iface { name: b"eth1", addr: [192, 168, 7, 2], prefix: 24, up: false },
    ]
}

fn run(source: bool, node: Option<&str>, service: Option<&str>) -> Result<Vec<Plan>, PlanError> {
    let mut out = [Plan::default(); 8];
    let n = plan(&ifaces(), source, node.map(str::as_bytes), service.map(str::as_bytes), &mut out)?;
    Ok(out[..n].to_vec())
}

#[test]
fn no_arguments_lists_every_up_interface_without_addresses() {
    let p = run(false, None, None).unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!((p[0].iface, p[0].src, p[0].dest), (0, None, None));
    assert_eq!(p[1].iface, 1);
}

#[test]
fn service_alone_is_a_local_port() {
    for source in [false, true] {
        let p = run(source, None, Some("7471")).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].src, Some(SockIn { addr: [127, 0, 0, 1], port: 7471 }));
        assert_eq!(p[1].src, Some(SockIn { addr: [10, 0, 2, 15], port: 7471 }));
        assert!(p.iter().all(|e| e.dest.is_none()));
    }
}

#[test]
fn source_node_selects_its_interface() {
    let p = run(true, Some("10.0.2.15"), Some("9")).unwrap();
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].iface, 1);
    assert_eq!(p[0].src, Some(SockIn { addr: [10, 0, 2, 15], port: 9 }));
    let p = run(true, Some("0.0.0.0"), None).unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(run(true, Some("10.9.9.9"), None), Err(PlanError::NoMatch));
    // an interface that is down is never used
    assert_eq!(run(true, Some("192.168.7.2"), None), Err(PlanError::NoMatch));
}

#[test]
fn destination_node_orders_by_subnet() {
    let p = run(false, Some("10.0.2.2"), Some("47592")).unwrap();
    assert_eq!(p.iter().map(|e| e.iface).collect::<Vec<_>>(), vec![1, 0]);
    assert!(p.iter().all(|e| e.dest == Some(SockIn { addr: [10, 0, 2, 2], port: 47592 }) && e.src.is_none()));
    let p = run(false, Some("localhost"), None).unwrap();
    assert_eq!(p[0].iface, 0);
    assert_eq!(p[0].dest, Some(SockIn { addr: [127, 0, 0, 1], port: 0 }));
}

#[test]
fn bad_arguments() {
    assert_eq!(run(false, Some("server.example"), None), Err(PlanError::BadNode));
    assert_eq!(run(false, Some("::1"), None), Err(PlanError::BadNode));
    assert_eq!(run(false, None, Some("http")), Err(PlanError::BadService));
    assert_eq!(run(false, None, Some("70000")), Err(PlanError::BadService));
    assert_eq!(PlanError::BadNode.errno(), -22);
    assert_eq!(PlanError::NoMatch.errno(), -61);
}

#[test]
fn subnet_and_prefix_edges() {
    let i = Iface { name: b"x", addr: [10, 1, 2, 3], prefix: 0, up: true };
    assert!(i.holds([1, 2, 3, 4]));
    assert_eq!(i.subnet(), [0, 0, 0, 0]);
    let i = Iface { prefix: 32, ..i };
    assert!(i.holds([10, 1, 2, 3]) && !i.holds([10, 1, 2, 4]));
    let i = Iface { prefix: 40, ..i };
    assert_eq!(i.subnet(), [10, 1, 2, 3]);
    let i = Iface { prefix: 20, ..i };
    assert_eq!(i.subnet(), [10, 1, 0, 0]);
}

proptest! {
    #[test]
    fn never_more_than_out_and_never_down(addr: [u8; 4], port: u16, source: bool, cap in 0usize..4) {
        let node = std::net::Ipv4Addr::from(addr).to_string();
        let svc = port.to_string();
        let mut out = [Plan::default(); 4];
        if let Ok(n) = plan(&ifaces(), source, Some(node.as_bytes()), Some(svc.as_bytes()), &mut out[..cap]) {
            prop_assert!(n <= cap);
            for p in &out[..n] {
                prop_assert!(ifaces()[p.iface].up);
            }
        }
    }
}

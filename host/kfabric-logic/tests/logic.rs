// SPDX-License-Identifier: GPL-2.0
//! Unit and property tests of rust/logic (hint matching, ranking, errno text,
//! tostr, numeric hosts, the bounded writer).

use kfabric_logic::logic::{abi::*, errstr, hints, host, rank, tostr, view::*, writer};
use proptest::prelude::*;
use std::fmt::Write;

fn entry() -> Info<'static> {
    Info {
        caps: KFI_MSG | KFI_RMA | KFI_SEND | KFI_RECV | KFI_READ | KFI_WRITE,
        mode: 0,
        addr_format: KFI_SOCKADDR_IN,
        src_addrlen: 16,
        dest_addrlen: 0,
        tx: Some(TxAttr {
            caps: KFI_MSG | KFI_SEND,
            msg_order: KFI_ORDER_SAS,
            inject_size: 128,
            size: 256,
            iov_limit: 4,
            rma_iov_limit: 4,
            ..Default::default()
        }),
        rx: Some(RxAttr { caps: KFI_MSG | KFI_RECV, size: 256, iov_limit: 4, ..Default::default() }),
        ep: Some(EpAttr {
            ep_type: KFI_EP_MSG,
            protocol: KFI_PROTO_SOCK_TCP,
            protocol_version: 3,
            max_msg_size: 1 << 30,
            tx_ctx_cnt: 1,
            rx_ctx_cnt: 1,
            mem_tag_format: !0,
            ..Default::default()
        }),
        domain: Some(DomainAttr {
            name: Some(b"lo"),
            threading: KFI_THREAD_SAFE,
            control_progress: KFI_PROGRESS_AUTO,
            data_progress: KFI_PROGRESS_AUTO,
            resource_mgmt: KFI_RM_ENABLED,
            av_type: KFI_AV_MAP,
            mr_mode: KFI_MR_PROV_KEY | KFI_MR_VIRT_ADDR,
            mr_key_size: 8,
            cq_data_size: 8,
            cq_cnt: 256,
            ep_cnt: 1024,
            cntr_cnt: 64,
            mr_iov_limit: 4,
            ..Default::default()
        }),
        fabric: Some(FabricAttr {
            name: Some(b"tcp"),
            prov_name: Some(b"tcp"),
            prov_version: version(1, 0),
            api_version: API_VERSION,
        }),
    }
}

#[test]
fn empty_hints_match() {
    assert_eq!(hints::check(&entry(), &Info::default()), Ok(()));
}

#[test]
fn caps_must_be_subset() {
    let h = Info { caps: KFI_MSG | KFI_RMA, ..Default::default() };
    assert_eq!(hints::check(&entry(), &h), Ok(()));
    let h = Info { caps: KFI_MSG | KFI_TAGGED, ..Default::default() };
    assert_eq!(hints::check(&entry(), &h), Err(hints::Mismatch::Caps));
}

#[test]
fn mode_required_by_entry_must_be_accepted() {
    let e = Info { mode: KFI_CONTEXT, ..entry() };
    let h = Info { mode: KFI_CONTEXT | KFI_RX_CQ_DATA, ..Default::default() };
    assert_eq!(hints::check(&e, &h), Ok(()));
    let h = Info { mode: KFI_RX_CQ_DATA, ..Default::default() };
    assert_eq!(hints::check(&e, &h), Err(hints::Mismatch::Mode));
    // fi_getinfo(3): a mode of 0 in the hints means "no mode supported".
    assert_eq!(hints::check(&e, &Info::default()), Err(hints::Mismatch::Mode));
}

#[test]
fn addr_format() {
    let h = Info { addr_format: KFI_SOCKADDR_IN6, ..Default::default() };
    assert_eq!(hints::check(&entry(), &h), Err(hints::Mismatch::AddrFormat));
    let h = Info { addr_format: KFI_SOCKADDR_IN, ..Default::default() };
    assert_eq!(hints::check(&entry(), &h), Ok(()));
}

#[test]
fn ep_attr_fields() {
    let e = entry();
    let mut h = Info { ep: Some(EpAttr { ep_type: KFI_EP_RDM, ..Default::default() }), ..Default::default() };
    assert_eq!(hints::check(&e, &h), Err(hints::Mismatch::EpType));
    h.ep = Some(EpAttr { ep_type: KFI_EP_MSG, ..Default::default() });
    assert_eq!(hints::check(&e, &h), Ok(()));
    h.ep = Some(EpAttr { protocol: KFI_PROTO_IWARP, ..Default::default() });
    assert_eq!(hints::check(&e, &h), Err(hints::Mismatch::EpProtocol));
    h.ep = Some(EpAttr { max_msg_size: 1 << 31, ..Default::default() });
    assert_eq!(hints::check(&e, &h), Err(hints::Mismatch::EpMaxMsgSize));
    h.ep = Some(EpAttr { rx_ctx_cnt: 2, ..Default::default() });
    assert_eq!(hints::check(&e, &h), Err(hints::Mismatch::EpRxCtxCnt));
}

#[test]
fn tx_rx_attr_fields() {
    let e = entry();
    let mut h = Info { tx: Some(TxAttr { iov_limit: 256, ..Default::default() }), ..Default::default() };
    assert_eq!(hints::check(&e, &h), Err(hints::Mismatch::TxIovLimit));
    h.tx = Some(TxAttr { caps: KFI_TAGGED, ..Default::default() });
    assert_eq!(hints::check(&e, &h), Err(hints::Mismatch::TxCaps));
    h.tx = Some(TxAttr { msg_order: KFI_ORDER_SAS, inject_size: 64, ..Default::default() });
    assert_eq!(hints::check(&e, &h), Ok(()));
    h.tx = Some(TxAttr { msg_order: KFI_ORDER_RAW, ..Default::default() });
    assert_eq!(hints::check(&e, &h), Err(hints::Mismatch::TxMsgOrder));
    h.tx = None;
    h.rx = Some(RxAttr { size: 1024, ..Default::default() });
    assert_eq!(hints::check(&e, &h), Err(hints::Mismatch::RxSize));
}

#[test]
fn domain_attr_fields() {
    let e = entry();
    let d = |f: &dyn Fn(&mut DomainAttr<'static>)| {
        let mut a = DomainAttr::default();
        f(&mut a);
        Info { domain: Some(a), ..Default::default() }
    };
    assert_eq!(hints::check(&e, &d(&|a| a.name = Some(b"eth0"))), Err(hints::Mismatch::DomainName));
    assert_eq!(hints::check(&e, &d(&|a| a.name = Some(b"lo"))), Ok(()));
    for t in [KFI_THREAD_SAFE, KFI_THREAD_DOMAIN, KFI_THREAD_ENDPOINT] {
        assert_eq!(hints::check(&e, &d(&|a| a.threading = t)), Ok(()));
    }
    let mut weak = entry();
    weak.domain.as_mut().unwrap().threading = KFI_THREAD_DOMAIN;
    assert_eq!(hints::check(&weak, &d(&|a| a.threading = KFI_THREAD_SAFE)), Err(hints::Mismatch::DomainThreading));
    // ENDPOINT asks for more parallelism than DOMAIN gives (libfabric's order).
    assert_eq!(hints::check(&weak, &d(&|a| a.threading = KFI_THREAD_ENDPOINT)), Err(hints::Mismatch::DomainThreading));
    assert_eq!(hints::check(&weak, &d(&|a| a.threading = KFI_THREAD_DOMAIN)), Ok(()));
    // AUTO progress serves a caller that can drive progress itself.
    assert_eq!(hints::check(&e, &d(&|a| a.data_progress = KFI_PROGRESS_MANUAL)), Ok(()));
    let mut manual = entry();
    manual.domain.as_mut().unwrap().data_progress = KFI_PROGRESS_MANUAL;
    assert_eq!(hints::check(&manual, &d(&|a| a.data_progress = KFI_PROGRESS_AUTO)), Err(hints::Mismatch::DomainDataProgress));
    assert_eq!(hints::check(&e, &d(&|a| a.av_type = KFI_AV_TABLE)), Err(hints::Mismatch::DomainAvType));
    // The caller accepts only LOCAL, the entry requires PROV_KEY|VIRT_ADDR
    // for RMA targets: a mismatch once the caller's caps make it one.
    let rma = |mr| Info { caps: KFI_RMA, ..d(&move |a| a.mr_mode = mr) };
    assert_eq!(hints::check(&e, &rma(KFI_MR_LOCAL)), Err(hints::Mismatch::DomainMrMode));
    assert_eq!(hints::check(&e, &d(&|a| a.mr_mode = KFI_MR_LOCAL)), Ok(()));
    assert_eq!(
        hints::check(&e, &d(&|a| a.mr_mode = KFI_MR_LOCAL | KFI_MR_PROV_KEY | KFI_MR_VIRT_ADDR)),
        Ok(())
    );
    assert_eq!(hints::check(&e, &d(&|a| a.cq_data_size = 16)), Err(hints::Mismatch::DomainCqDataSize));
    assert_eq!(hints::check(&e, &d(&|a| a.cntr_cnt = 65)), Err(hints::Mismatch::DomainCntrCnt));
}

#[test]
fn fabric_and_provider_names() {
    let e = entry();
    let f = |n: Option<&'static [u8]>, p: Option<&'static [u8]>| Info {
        fabric: Some(FabricAttr { name: n, prov_name: p, ..Default::default() }),
        ..Default::default()
    };
    assert_eq!(hints::check(&e, &f(Some(b"tcp"), None)), Ok(()));
    assert_eq!(hints::check(&e, &f(Some(b"tc"), None)), Err(hints::Mismatch::FabricName));
    assert_eq!(hints::check(&e, &f(None, Some(b"verbs"))), Err(hints::Mismatch::ProvName));
    assert_eq!(hints::wanted_provider(Some(&f(None, Some(b"verbs")))), Some(&b"verbs"[..]));
    assert_eq!(hints::wanted_provider(None), None);
}

#[test]
fn attr_missing_from_entry() {
    let mut e = entry();
    e.rx = None;
    let h = Info { rx: Some(RxAttr::default()), ..Default::default() };
    assert_eq!(hints::check(&e, &h), Err(hints::Mismatch::MissingAttr));
}

#[test]
fn rank_prefers_rdma_and_is_stable() {
    let mk = |p| Info { ep: Some(EpAttr { protocol: p, ..Default::default() }), ..Default::default() };
    let mut v = vec![(0, mk(KFI_PROTO_SOCK_TCP)), (1, mk(KFI_PROTO_IWARP)), (2, mk(KFI_PROTO_SOCK_TCP)), (3, mk(KFI_PROTO_RDMA_CM_IB_RC)), (4, Info::default())];
    rank::stable_sort_by_key(&mut v, |(_, i)| rank::rank(i));
    let order: Vec<_> = v.iter().map(|(n, _)| *n).collect();
    assert_eq!(order, vec![1, 3, 0, 2, 4]);
}

#[test]
fn strerror_text() {
    assert_eq!(errstr::strerror(0).to_str().unwrap(), "Success");
    assert_eq!(errstr::strerror(-22).to_str().unwrap(), "Invalid argument");
    assert_eq!(errstr::strerror(22).to_str().unwrap(), "Invalid argument");
    assert_eq!(errstr::strerror(-KFI_EAVAIL).to_str().unwrap(), "Error available");
    assert_eq!(errstr::strerror(KFI_ETRUNC).to_str().unwrap(), "Truncation error");
    assert_eq!(errstr::strerror(-KFI_EOVERRUN).to_str().unwrap(), "Queue has been overrun");
    assert_eq!(errstr::strerror(9999).to_str().unwrap(), "Unknown error");
    assert_eq!(errstr::strerror(i32::MIN).to_str().unwrap(), "Unknown error");
    // every extended code has its own text
    for c in KFI_EOTHER..=KFI_EOVERRUN {
        assert_ne!(errstr::strerror(c), errstr::UNKNOWN, "code {c}");
    }
}

#[test]
fn numeric_hosts() {
    for ok in ["127.0.0.1", "0.0.0.0", "255.255.255.255", "::1", "::", "fe80::1", "2001:db8::8:800:200c:417a", "::ffff:10.0.0.1", "1:2:3:4:5:6:7:8"] {
        assert!(host::is_numeric_host(ok.as_bytes()), "{ok}");
    }
    for bad in ["", "localhost", "256.1.1.1", "1.2.3", "1.2.3.4.5", "1..2.3", "1:2:3:4:5:6:7:8:9", "1::2::3", ":::", "12345::", "g::1", "1.2.3.4 ", "-1.2.3.4"] {
        assert!(!host::is_numeric_host(bad.as_bytes()), "{bad}");
    }
}

#[test]
fn ports_and_ipv4_bytes() {
    assert_eq!(host::parse_ipv4(b"10.1.2.3"), Some([10, 1, 2, 3]));
    assert_eq!(host::parse_ipv4(b"10.1.2.3.4"), None);
    assert_eq!(host::parse_port(b"0"), Some(0));
    assert_eq!(host::parse_port(b"47592"), Some(47592));
    assert_eq!(host::parse_port(b"65535"), Some(65535));
    for bad in ["", "65536", "99999", "-1", "+5", " 1", "0x10", "123456"] {
        assert_eq!(host::parse_port(bad.as_bytes()), None, "{bad}");
    }
}

proptest! {
    #[test]
    fn ipv4_parse_matches_std(a: [u8; 4]) {
        let s = std::net::Ipv4Addr::from(a).to_string();
        prop_assert_eq!(host::parse_ipv4(s.as_bytes()), Some(a));
    }

    #[test]
    fn port_parse_matches_std(p: u16) {
        prop_assert_eq!(host::parse_port(p.to_string().as_bytes()), Some(p));
    }

    #[test]
    fn ipv4_display_accepted(a: [u8; 4]) {
        let s = std::net::Ipv4Addr::from(a).to_string();
        prop_assert!(host::is_numeric_host(s.as_bytes()));
    }

    #[test]
    fn ipv6_display_accepted(a: [u16; 8]) {
        let s = std::net::Ipv6Addr::from(a).to_string();
        prop_assert!(host::is_ipv6(s.as_bytes()), "{}", s);
    }

    #[test]
    fn ipv6_agrees_with_std(s in "[0-9a-f:.]{0,20}") {
        // Whatever we accept std accepts, and the other way round.
        let ours = host::is_ipv6(s.as_bytes());
        let std_ok = s.parse::<std::net::Ipv6Addr>().is_ok();
        prop_assert_eq!(ours, std_ok, "{}", s);
    }

    #[test]
    fn writer_never_overflows(chunks in proptest::collection::vec(".{0,40}", 0..10), cap in 0usize..64) {
        let mut buf = vec![0xffu8; cap];
        let mut w = writer::BufWriter::new(&mut buf);
        let mut all = String::new();
        for c in &chunks {
            let _ = w.write_str(c);
            all.push_str(c);
        }
        let n = w.len();
        prop_assert!(cap == 0 || n < cap);
        prop_assert_eq!(w.truncated(), all.len() > cap.saturating_sub(1));
        prop_assert_eq!(&all.as_bytes()[..n], w.as_bytes());
        if cap > 0 { prop_assert_eq!(buf[n], 0); }
    }
}

#[test]
fn tostr_flags_and_enums() {
    let s = |v| {
        let mut o = String::new();
        tostr::write(&mut o, v).unwrap();
        o
    };
    assert_eq!(s(tostr::Value::Caps(KFI_MSG | KFI_RMA)), "[ KFI_MSG, KFI_RMA ]");
    assert_eq!(s(tostr::Value::Caps(0)), "[ ]");
    assert_eq!(s(tostr::Value::Caps(KFI_MSG | 1)), "[ KFI_MSG, 0x1 ]");
    assert_eq!(s(tostr::Value::EpType(KFI_EP_RDM)), "KFI_EP_RDM");
    assert_eq!(s(tostr::Value::EpType(77)), "Unknown(77)");
    assert_eq!(s(tostr::Value::Version), "1.7");
    assert_eq!(s(tostr::Value::OpType(10)), "KFI_OP_CNTR_ADD");
    assert_eq!(s(tostr::Value::MrMode(KFI_MR_LOCAL | KFI_MR_ENDPOINT)), "[ KFI_MR_LOCAL, KFI_MR_ENDPOINT ]");
    assert_eq!(s(tostr::Value::Mode(KFI_CONTEXT)), "[ KFI_CONTEXT ]");
}

#[test]
fn tostr_info_lists_every_section() {
    let e = entry();
    let mut o = String::new();
    tostr::write(&mut o, tostr::Value::Info(&e)).unwrap();
    for needle in ["kfi_info:", "kfi_tx_attr:", "kfi_rx_attr:", "kfi_ep_attr:", "kfi_domain_attr:", "kfi_fabric_attr:", "prov_name: tcp", "type: KFI_EP_MSG", "protocol: KFI_PROTO_SOCK_TCP", "addr_format: KFI_SOCKADDR_IN\n", "api_version: 1.7", "name: lo"] {
        assert!(o.contains(needle), "missing {needle:?} in\n{o}");
    }
    let mut none = Info::default();
    none.fabric = None;
    let mut o = String::new();
    tostr::write(&mut o, tostr::Value::Info(&none)).unwrap();
    assert!(o.contains("kfi_fabric_attr: (null)"));
}

#[test]
fn tostr_truncates_into_small_buffer() {
    let e = entry();
    let mut buf = [0u8; 32];
    let mut w = writer::BufWriter::new(&mut buf);
    assert!(tostr::write(&mut w, tostr::Value::Info(&e)).is_err());
    assert!(w.truncated());
    assert_eq!(w.len(), 31);
    let mut c = writer::Counter::default();
    tostr::write(&mut c, tostr::Value::Info(&e)).unwrap();
    assert!(c.0 > 500);
}

#[test]
fn version_macros() {
    assert_eq!(API_VERSION, 0x10007);
    assert_eq!(major(version(3, 9)), 3);
    assert_eq!(minor(version(3, 9)), 9);
}

/* IPv6 text (issue 22): parsing, zones and the canonical form, against std. */

#[test]
fn ipv6_forms() {
    let cases: &[(&str, Option<[u16; 8]>)] = &[
        ("::", Some([0; 8])),
        ("::1", Some([0, 0, 0, 0, 0, 0, 0, 1])),
        ("1::", Some([1, 0, 0, 0, 0, 0, 0, 0])),
        ("fd00::2", Some([0xfd00, 0, 0, 0, 0, 0, 0, 2])),
        ("FE80::A:b", Some([0xfe80, 0, 0, 0, 0, 0, 0xa, 0xb])),
        ("1:2:3:4:5:6:7:8", Some([1, 2, 3, 4, 5, 6, 7, 8])),
        ("1:2:3:4:5:6:1.2.3.4", Some([1, 2, 3, 4, 5, 6, 0x0102, 0x0304])),
        ("::ffff:10.0.0.1", Some([0, 0, 0, 0, 0, 0xffff, 0x0a00, 1])),
        ("1::2:3:4:5:6:7", Some([1, 0, 2, 3, 4, 5, 6, 7])),
        ("0001:0:0:0:0:0:0:0001", Some([1, 0, 0, 0, 0, 0, 0, 1])),
        ("1:2:3:4:5:6:7:8:9", None),
        ("1::2::3", None),
        (":::", None),
        ("1:::2", None),
        (":1::", None),
        ("1::2:", None),
        ("12345::", None),
        ("1.2.3.4::", None),
        ("::1.2.3", None),
        ("::1.2.3.4.5", None),
        ("g::", None),
        ("1:2:3:4:5:6:7::8", None),
        ("", None),
        (":", None),
    ];
    for (s, want) in cases {
        let want = want.map(|g| std::net::Ipv6Addr::from(g).octets());
        assert_eq!(host::parse_ipv6(s.as_bytes()), want, "{s}");
    }
}

#[test]
fn ipv6_zones() {
    let ll = std::net::Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 1).octets();
    assert_eq!(host::parse_ipv6_zone(b"fe80::1%eth0"), Some((ll, Some(&b"eth0"[..]))));
    assert_eq!(host::parse_ipv6_zone(b"fe80::1%2"), Some((ll, Some(&b"2"[..]))));
    assert_eq!(host::parse_ipv6_zone(b"fe80::1"), Some((ll, None)));
    for bad in ["fe80::1%", "fe80::1%a%b", "fe80::1%a/b", "fe80::1%a b", "fe80::1%0123456789abcdef", "fe80:::1%eth0", "%eth0"] {
        assert_eq!(host::parse_ipv6_zone(bad.as_bytes()), None, "{bad}");
    }
    assert_eq!(host::zone_number(b"2"), Some(2));
    assert_eq!(host::zone_number(b"4294967295"), Some(u32::MAX));
    assert_eq!(host::zone_number(b"4294967296"), None);
    assert_eq!(host::zone_number(b"0"), None);
    assert_eq!(host::zone_number(b"eth0"), None);
    // a zone is not a plain address's business
    assert!(!host::is_ipv6(b"fe80::1%eth0"));
}

fn ipv6_text(a: &[u8; 16]) -> String {
    let mut s = String::new();
    host::write_ipv6(&mut s, a).unwrap();
    s
}

#[test]
fn ipv6_canonical_text() {
    for (g, want) in [
        ([0u16; 8], "::"),
        ([0, 0, 0, 0, 0, 0, 0, 1], "::1"),
        ([0x2001, 0xdb8, 0, 0, 1, 0, 0, 1], "2001:db8::1:0:0:1"),
        ([0x2001, 0xdb8, 0, 1, 1, 1, 1, 1], "2001:db8:0:1:1:1:1:1"),
        ([1, 0, 0, 2, 0, 0, 0, 3], "1:0:0:2::3"),
        ([0, 0, 0, 0, 0, 0xffff, 0x0a00, 1], "::ffff:10.0.0.1"),
        ([0xfe80, 0, 0, 0, 0xabcd, 0, 0, 0], "fe80::abcd:0:0:0"),
    ] {
        assert_eq!(ipv6_text(&std::net::Ipv6Addr::from(g).octets()), want);
    }
}

proptest! {
    #[test]
    fn ipv6_parse_matches_std(a: [u16; 8]) {
        let ip = std::net::Ipv6Addr::from(a);
        prop_assert_eq!(host::parse_ipv6(ip.to_string().as_bytes()), Some(ip.octets()));
        // every group written out in full, upper case
        let full = a.iter().map(|g| format!("{g:04X}")).collect::<Vec<_>>().join(":");
        prop_assert_eq!(host::parse_ipv6(full.as_bytes()), Some(ip.octets()));
    }

    #[test]
    fn ipv6_parse_agrees_with_std(s in "[0-9a-fA-F:.]{0,24}") {
        let std_v = s.parse::<std::net::Ipv6Addr>().ok().map(|a| a.octets());
        prop_assert_eq!(host::parse_ipv6(s.as_bytes()), std_v, "{}", s);
    }

    #[test]
    fn ipv6_text_round_trips(a: [u16; 8], zeros in 0u8..=255) {
        // many zero groups: the compression is what is tested
        let g: [u16; 8] = core::array::from_fn(|k| if zeros >> k & 1 == 1 { 0 } else { a[k] });
        let ip = std::net::Ipv6Addr::from(g);
        let ours = ipv6_text(&ip.octets());
        prop_assert_eq!(host::parse_ipv6(ours.as_bytes()), Some(ip.octets()));
        prop_assert_eq!(ours, ip.to_string());
    }
}

// SPDX-License-Identifier: GPL-2.0
//! The hint matching and adjusting rules of rust/logic/hints.rs, one test per
//! rule, each written against libfabric v1.17's rule (prov/util/src/
//! util_attr.c, src/fabric.c) as restated in hints.rs, plus the whole hint
//! set of Lustre 2.15's kfilnd against an entry shaped like kfi_tcp's.

use kfabric_logic::logic::{abi::*, hints, hints::Mismatch as M, view::*};

/// A kfi_tcp-like MSG entry.
fn tcp() -> Info<'static> {
    Info {
        caps: KFI_MSG | KFI_RMA | KFI_SEND | KFI_RECV | KFI_READ | KFI_WRITE | KFI_REMOTE_READ
            | KFI_REMOTE_WRITE | KFI_MULTI_RECV | KFI_RMA_EVENT | KFI_REMOTE_COMM | KFI_LOCAL_COMM,
        addr_format: KFI_SOCKADDR_IN,
        tx: Some(TxAttr {
            caps: KFI_MSG | KFI_RMA | KFI_SEND | KFI_READ | KFI_WRITE,
            op_flags: KFI_COMPLETION | KFI_INJECT | KFI_TRANSMIT_COMPLETE,
            inject_size: 64,
            size: 1024,
            iov_limit: 256,
            rma_iov_limit: 256,
            ..Default::default()
        }),
        rx: Some(RxAttr {
            caps: KFI_MSG | KFI_RMA | KFI_RECV | KFI_REMOTE_READ | KFI_REMOTE_WRITE | KFI_MULTI_RECV | KFI_RMA_EVENT,
            op_flags: KFI_COMPLETION | KFI_MULTI_RECV,
            size: 1024,
            iov_limit: 256,
            ..Default::default()
        }),
        ep: Some(EpAttr {
            ep_type: KFI_EP_MSG,
            protocol: KFI_PROTO_SOCK_TCP,
            protocol_version: 1,
            max_msg_size: 1 << 30,
            max_order_raw_size: 1 << 30,
            max_order_war_size: 1 << 30,
            max_order_waw_size: 1 << 30,
            mem_tag_format: u64::MAX,
            tx_ctx_cnt: 1,
            rx_ctx_cnt: 1,
            auth_key_size: 4,
            ..Default::default()
        }),
        domain: Some(DomainAttr {
            name: Some(b"eth0"),
            threading: KFI_THREAD_SAFE,
            control_progress: KFI_PROGRESS_AUTO,
            data_progress: KFI_PROGRESS_AUTO,
            resource_mgmt: KFI_RM_ENABLED,
            mr_key_size: 8,
            cq_data_size: 8,
            cq_cnt: 256,
            ep_cnt: 8192,
            tx_ctx_cnt: 8192,
            rx_ctx_cnt: 8192,
            max_ep_tx_ctx: 1,
            max_ep_rx_ctx: 1,
            cntr_cnt: 256,
            mr_iov_limit: 256,
            mr_cnt: 65535,
            caps: KFI_LOCAL_COMM | KFI_REMOTE_COMM,
            ..Default::default()
        }),
        fabric: Some(FabricAttr {
            name: Some(b"10.0.0.0/24"),
            prov_name: Some(b"tcp"),
            prov_version: version(1, 0),
            api_version: API_VERSION,
        }),
        ..Default::default()
    }
}

fn dom(f: impl FnOnce(&mut DomainAttr<'static>)) -> Info<'static> {
    let mut a = DomainAttr::default();
    f(&mut a);
    Info { domain: Some(a), ..Default::default() }
}

fn with_dom(mut e: Info<'static>, f: impl FnOnce(&mut DomainAttr<'static>)) -> Info<'static> {
    f(e.domain.as_mut().unwrap());
    e
}

fn ep(f: impl FnOnce(&mut EpAttr)) -> Info<'static> {
    let mut a = EpAttr::default();
    f(&mut a);
    Info { ep: Some(a), ..Default::default() }
}

fn fab(f: impl FnOnce(&mut FabricAttr<'static>)) -> Info<'static> {
    let mut a = FabricAttr::default();
    f(&mut a);
    Info { fabric: Some(a), ..Default::default() }
}

/// Lustre 2.15 kfilnd's hints (kfilnd_dom.c), as the view sees them.
fn kfilnd_215() -> Info<'static> {
    Info {
        caps: KFI_MSG | KFI_RMA | KFI_SEND | KFI_RECV | KFI_READ | KFI_WRITE | KFI_REMOTE_READ
            | KFI_REMOTE_WRITE | KFI_MULTI_RECV | KFI_RMA_EVENT | KFI_REMOTE_COMM,
        tx: Some(TxAttr { op_flags: KFI_COMPLETION, iov_limit: 256, rma_iov_limit: 256, tclass: 0x200 | 3, ..Default::default() }),
        rx: Some(RxAttr { op_flags: KFI_COMPLETION | KFI_MULTI_RECV, iov_limit: 256, ..Default::default() }),
        ep: Some(EpAttr { max_msg_size: 1 << 20, auth_key_size: 4, ..Default::default() }),
        domain: Some(DomainAttr {
            mr_key_size: 4,
            resource_mgmt: KFI_RM_DISABLED,
            mr_iov_limit: 256,
            mr_cnt: 1024,
            tclass: 0x200 | 3,
            ..Default::default()
        }),
        fabric: Some(FabricAttr { prov_version: version(1, 0), ..Default::default() }),
        ..Default::default()
    }
}

#[test]
fn kfilnd_215_hints_match_a_tcp_entry() {
    assert_eq!(hints::check(&tcp(), &kfilnd_215()), Ok(()));
}

#[test]
fn version_zero_is_any_and_only_newer_is_refused() {
    assert_eq!(effective_version(0), Some(API_VERSION));
    assert_eq!(effective_version(API_VERSION), Some(API_VERSION));
    assert_eq!(effective_version(version(1, 0)), Some(version(1, 0)));
    assert_eq!(effective_version(version(0, 9)), Some(version(0, 9)));
    assert_eq!(effective_version(version(1, 8)), None);
    assert_eq!(effective_version(version(2, 0)), None);
}

#[test]
fn resource_mgmt_levels() {
    // ENABLED < DISABLED < UNSPEC; the entry's level must not be above the hint's.
    let e = tcp(); // RM_ENABLED
    for w in [KFI_RM_UNSPEC, KFI_RM_DISABLED, KFI_RM_ENABLED] {
        assert_eq!(hints::check(&e, &dom(|a| a.resource_mgmt = w)), Ok(()), "{w}");
    }
    let off = with_dom(tcp(), |d| d.resource_mgmt = KFI_RM_DISABLED);
    assert_eq!(hints::check(&off, &dom(|a| a.resource_mgmt = KFI_RM_ENABLED)), Err(M::DomainResourceMgmt));
    assert_eq!(hints::check(&off, &dom(|a| a.resource_mgmt = KFI_RM_DISABLED)), Ok(()));
    let unspec = with_dom(tcp(), |d| d.resource_mgmt = KFI_RM_UNSPEC);
    assert_eq!(hints::check(&unspec, &dom(|a| a.resource_mgmt = KFI_RM_DISABLED)), Err(M::DomainResourceMgmt));
}

#[test]
fn addr_format_families() {
    use hints::addr_format_ok as ok;
    let all = [KFI_FORMAT_UNSPEC, KFI_SOCKADDR, KFI_SOCKADDR_IN, KFI_SOCKADDR_IN6, KFI_SOCKADDR_IB, KFI_ADDR_GNI, KFI_ADDR_CXI];
    // (entry format, hint formats it serves besides UNSPEC)
    let table: [(u32, &[u32]); 6] = [
        (KFI_SOCKADDR, &[KFI_SOCKADDR, KFI_SOCKADDR_IN, KFI_SOCKADDR_IN6]),
        (KFI_SOCKADDR_IN, &[KFI_SOCKADDR, KFI_SOCKADDR_IN]),
        (KFI_SOCKADDR_IN6, &[KFI_SOCKADDR, KFI_SOCKADDR_IN, KFI_SOCKADDR_IN6]),
        (KFI_SOCKADDR_IB, &[KFI_SOCKADDR, KFI_SOCKADDR_IN, KFI_SOCKADDR_IN6, KFI_SOCKADDR_IB]),
        (KFI_ADDR_GNI, &[KFI_ADDR_GNI]),
        (KFI_ADDR_CXI, &[KFI_ADDR_CXI]),
    ];
    for (entry, served) in table {
        for w in all {
            let want = w == KFI_FORMAT_UNSPEC || served.contains(&w);
            assert_eq!(ok(entry, w), want, "entry {entry} hint {w}");
        }
    }
    for w in all {
        assert!(ok(KFI_FORMAT_UNSPEC, w));
    }
    let h = Info { addr_format: KFI_SOCKADDR, ..Default::default() };
    assert_eq!(hints::check(&tcp(), &h), Ok(()));
    let h = Info { addr_format: KFI_SOCKADDR_IN6, ..Default::default() };
    assert_eq!(hints::check(&tcp(), &h), Err(M::AddrFormat));
}

#[test]
fn threading_levels() {
    // SAFE < FID < ENDPOINT < COMPLETION < DOMAIN < UNSPEC
    let order = [KFI_THREAD_SAFE, KFI_THREAD_FID, KFI_THREAD_ENDPOINT, KFI_THREAD_COMPLETION, KFI_THREAD_DOMAIN, KFI_THREAD_UNSPEC];
    for (i, offered) in order.iter().enumerate() {
        for (j, wanted) in order.iter().enumerate() {
            let e = with_dom(tcp(), |d| d.threading = *offered);
            let got = hints::check(&e, &dom(|a| a.threading = *wanted));
            let want = if j >= i { Ok(()) } else { Err(M::DomainThreading) };
            assert_eq!(got, want, "entry {offered} hint {wanted}");
        }
    }
}

#[test]
fn progress_levels() {
    let auto = tcp();
    let manual = with_dom(tcp(), |d| {
        d.control_progress = KFI_PROGRESS_MANUAL;
        d.data_progress = KFI_PROGRESS_MANUAL;
    });
    assert_eq!(hints::check(&auto, &dom(|a| a.control_progress = KFI_PROGRESS_MANUAL)), Ok(()));
    assert_eq!(hints::check(&manual, &dom(|a| a.control_progress = KFI_PROGRESS_AUTO)), Err(M::DomainControlProgress));
    assert_eq!(hints::check(&manual, &dom(|a| a.data_progress = KFI_PROGRESS_AUTO)), Err(M::DomainDataProgress));
    assert_eq!(hints::check(&manual, &dom(|a| a.data_progress = KFI_PROGRESS_MANUAL)), Ok(()));
}

#[test]
fn av_type_and_ep_type_unspec_on_either_side() {
    let e = tcp(); // av_type UNSPEC
    assert_eq!(hints::check(&e, &dom(|a| a.av_type = KFI_AV_TABLE)), Ok(()));
    let map = with_dom(tcp(), |d| d.av_type = KFI_AV_MAP);
    assert_eq!(hints::check(&map, &dom(|a| a.av_type = KFI_AV_TABLE)), Err(M::DomainAvType));
    assert_eq!(hints::check(&map, &dom(|a| a.av_type = KFI_AV_MAP)), Ok(()));
    let mut any = tcp();
    any.ep.as_mut().unwrap().ep_type = KFI_EP_UNSPEC;
    assert_eq!(hints::check(&any, &ep(|a| a.ep_type = KFI_EP_RDM)), Ok(()));
    assert_eq!(hints::check(&tcp(), &ep(|a| a.ep_type = KFI_EP_RDM)), Err(M::EpType));
}

#[test]
fn mode_zero_supports_none_and_attr_modes_fall_back() {
    let mut e = tcp();
    e.mode = KFI_CONTEXT;
    assert_eq!(hints::check(&e, &Info::default()), Err(M::Mode));
    assert_eq!(hints::check(&e, &Info { mode: KFI_CONTEXT, ..Default::default() }), Ok(()));
    // tx/rx mode 0 falls back to info mode
    let mut e = tcp();
    e.tx.as_mut().unwrap().mode = KFI_MSG_PREFIX;
    let h = Info { mode: KFI_MSG_PREFIX, tx: Some(TxAttr::default()), ..Default::default() };
    assert_eq!(hints::check(&e, &h), Ok(()));
    let h = Info { tx: Some(TxAttr::default()), ..Default::default() };
    assert_eq!(hints::check(&e, &h), Err(M::TxMode));
    let h = Info { tx: Some(TxAttr { mode: KFI_MSG_PREFIX, ..Default::default() }), ..Default::default() };
    assert_eq!(hints::check(&e, &h), Ok(()));
    let mut e = tcp();
    e.rx.as_mut().unwrap().mode = KFI_RX_CQ_DATA;
    let h = Info { rx: Some(RxAttr::default()), ..Default::default() };
    assert_eq!(hints::check(&e, &h), Err(M::RxMode));
    // domain mode: no fallback
    let e = with_dom(tcp(), |d| d.mode = KFI_CONTEXT);
    let h = Info { mode: KFI_CONTEXT, ..dom(|_| {}) };
    assert_eq!(hints::check(&e, &h), Err(M::DomainMode));
}

#[test]
fn mr_mode_rules() {
    let local = with_dom(tcp(), |d| d.mr_mode = KFI_MR_LOCAL);
    // MR_LOCAL entry: the caller must accept it in mr_mode or with KFI_LOCAL_MR
    assert_eq!(hints::check(&local, &dom(|_| {})), Err(M::Mode));
    let h = Info { mode: KFI_LOCAL_MR, ..dom(|_| {}) };
    assert_eq!(hints::check(&local, &h), Ok(()));
    assert_eq!(hints::check(&local, &dom(|a| a.mr_mode = KFI_MR_LOCAL)), Ok(()));
    // without a domain hint, KFI_LOCAL_MR is not required at the top level
    assert_eq!(hints::check(&local, &Info::default()), Ok(()));
    // KFI_MR_UNSPEC (0) accepts every other requirement
    let keyed = with_dom(tcp(), |d| d.mr_mode = KFI_MR_PROV_KEY | KFI_MR_VIRT_ADDR);
    let h = Info { caps: KFI_RMA | KFI_REMOTE_WRITE, ..dom(|_| {}) };
    assert_eq!(hints::check(&keyed, &h), Ok(()));
    // an RMA target must accept the target modes...
    let h = Info { caps: KFI_RMA | KFI_REMOTE_WRITE, ..dom(|a| a.mr_mode = KFI_MR_PROV_KEY) };
    assert_eq!(hints::check(&keyed, &h), Err(M::DomainMrMode));
    // ... an initiator only need not
    let h = Info { caps: KFI_RMA | KFI_WRITE, ..dom(|a| a.mr_mode = KFI_MR_ENDPOINT) };
    assert_eq!(hints::check(&keyed, &h), Ok(()));
    // RMA without a direction is both: target modes required
    let h = Info { caps: KFI_RMA, ..dom(|a| a.mr_mode = KFI_MR_ENDPOINT) };
    assert_eq!(hints::check(&keyed, &h), Err(M::DomainMrMode));
    // with MR_LOCAL, the non-target bits stay required for an initiator
    let both = with_dom(tcp(), |d| d.mr_mode = KFI_MR_LOCAL | KFI_MR_ENDPOINT | KFI_MR_PROV_KEY);
    let h = Info { caps: KFI_RMA | KFI_WRITE, ..dom(|a| a.mr_mode = KFI_MR_LOCAL) };
    assert_eq!(hints::check(&both, &h), Err(M::DomainMrMode));
    let h = Info { caps: KFI_RMA | KFI_WRITE, ..dom(|a| a.mr_mode = KFI_MR_LOCAL | KFI_MR_ENDPOINT) };
    assert_eq!(hints::check(&both, &h), Ok(()));
}

#[test]
fn caps_primary_secondary_and_attr_ignored_bits() {
    // the info caps: every bit, primary or secondary, must be offered
    let h = Info { caps: KFI_TRIGGER, ..Default::default() };
    assert_eq!(hints::check(&tcp(), &h), Err(M::Caps));
    // tx caps ignore receive-side bits, rx caps transmit-side ones
    let h = Info { tx: Some(TxAttr { caps: KFI_MSG | KFI_RECV | KFI_REMOTE_WRITE | KFI_MULTI_RECV, ..Default::default() }), ..Default::default() };
    assert_eq!(hints::check(&tcp(), &h), Ok(()));
    let h = Info { tx: Some(TxAttr { caps: KFI_TAGGED, ..Default::default() }), ..Default::default() };
    assert_eq!(hints::check(&tcp(), &h), Err(M::TxCaps));
    let h = Info { rx: Some(RxAttr { caps: KFI_MSG | KFI_SEND | KFI_READ | KFI_NAMED_RX_CTX, ..Default::default() }), ..Default::default() };
    assert_eq!(hints::check(&tcp(), &h), Ok(()));
    let h = Info { rx: Some(RxAttr { caps: KFI_DIRECTED_RECV, ..Default::default() }), ..Default::default() };
    assert_eq!(hints::check(&tcp(), &h), Err(M::RxCaps));
}

#[test]
fn prov_version_and_api_version() {
    assert_eq!(hints::check(&tcp(), &fab(|a| a.prov_version = version(1, 0))), Ok(()));
    assert_eq!(hints::check(&tcp(), &fab(|a| a.prov_version = version(1, 1))), Err(M::ProvVersion));
    assert_eq!(hints::check(&tcp(), &fab(|a| a.prov_version = 0)), Ok(()));
    assert_eq!(hints::check(&tcp(), &fab(|a| a.api_version = 0)), Ok(()));
    assert_eq!(hints::check(&tcp(), &fab(|a| a.api_version = API_VERSION)), Ok(()));
    assert_eq!(hints::check(&tcp(), &fab(|a| a.api_version = version(1, 5))), Err(M::ApiVersion));
}

#[test]
fn ep_auth_key_size_must_equal() {
    assert_eq!(hints::check(&tcp(), &ep(|a| a.auth_key_size = 4)), Ok(()));
    assert_eq!(hints::check(&tcp(), &ep(|a| a.auth_key_size = 8)), Err(M::EpAuthKeySize));
    assert_eq!(hints::check(&tcp(), &ep(|a| a.auth_key_size = 0)), Ok(()));
    let mut none = tcp();
    none.ep.as_mut().unwrap().auth_key_size = 0;
    assert_eq!(hints::check(&none, &ep(|a| a.auth_key_size = 4)), Err(M::EpAuthKeySize));
    // the domain's is not matched
    assert_eq!(hints::check(&tcp(), &dom(|a| a.auth_key_size = 123)), Ok(()));
}

#[test]
fn mr_key_size_and_tclass() {
    // mr_key_size: a minimum (fi_getinfo(3)'s general rule)
    assert_eq!(hints::check(&tcp(), &dom(|a| a.mr_key_size = 4)), Ok(()));
    assert_eq!(hints::check(&tcp(), &dom(|a| a.mr_key_size = 8)), Ok(()));
    assert_eq!(hints::check(&tcp(), &dom(|a| a.mr_key_size = 16)), Err(M::DomainMrKeySize));
    // tclass: not matched
    assert_eq!(hints::check(&tcp(), &dom(|a| a.tclass = 0x105)), Ok(()));
    let h = Info { tx: Some(TxAttr { tclass: 0x204, ..Default::default() }), ..Default::default() };
    assert_eq!(hints::check(&tcp(), &h), Ok(()));
}

#[test]
fn ep_ctx_counts_against_domain_maximum() {
    let e = with_dom(tcp(), |d| {
        d.max_ep_tx_ctx = 4;
        d.max_ep_stx_ctx = 0;
        d.max_ep_srx_ctx = 1;
    });
    assert_eq!(hints::check(&e, &ep(|a| a.tx_ctx_cnt = 4)), Ok(()));
    assert_eq!(hints::check(&e, &ep(|a| a.tx_ctx_cnt = 5)), Err(M::EpTxCtxCnt));
    assert_eq!(hints::check(&e, &ep(|a| a.tx_ctx_cnt = KFI_SHARED_CONTEXT)), Err(M::EpTxCtxCnt));
    assert_eq!(hints::check(&e, &ep(|a| a.rx_ctx_cnt = KFI_SHARED_CONTEXT)), Ok(()));
    let mut shared = tcp();
    shared.ep.as_mut().unwrap().rx_ctx_cnt = KFI_SHARED_CONTEXT;
    assert_eq!(hints::check(&shared, &ep(|_| {})), Err(M::EpRxCtxCnt));
}

#[test]
fn max_order_and_tag_format_only_with_their_caps() {
    let mut small = tcp();
    small.ep.as_mut().unwrap().max_order_waw_size = 16;
    small.ep.as_mut().unwrap().mem_tag_format = 0xffff;
    let h = ep(|a| {
        a.max_order_waw_size = 64;
        a.mem_tag_format = 0xffff_ffff;
    });
    assert_eq!(hints::check(&small, &h), Ok(()));
    let h_rma = Info { caps: KFI_RMA, ..h };
    assert_eq!(hints::check(&small, &h_rma), Err(M::EpMaxOrderSize));
    let mut tagged = small;
    tagged.caps |= KFI_TAGGED;
    let h_tag = Info { caps: KFI_TAGGED, ..h };
    assert_eq!(hints::check(&tagged, &h_tag), Err(M::EpMemTagFormat));
    // fewer bits, or other bits below the entry's highest, are fine
    let h_tag = Info { caps: KFI_TAGGED, ..ep(|a| a.mem_tag_format = 0x8001) };
    assert_eq!(hints::check(&tagged, &h_tag), Ok(()));
}

#[test]
fn domain_limits_libfabric_checks() {
    assert_eq!(hints::check(&tcp(), &dom(|a| a.mr_cnt = 65536)), Err(M::DomainMrCnt));
    assert_eq!(hints::check(&tcp(), &dom(|a| a.max_err_data = 1)), Err(M::DomainMaxErrData));
    assert_eq!(hints::check(&tcp(), &dom(|a| a.mr_iov_limit = 257)), Err(M::DomainMrIovLimit));
    // logged only in libfabric: never a mismatch
    assert_eq!(hints::check(&tcp(), &dom(|a| a.max_ep_stx_ctx = 9)), Ok(()));
    assert_eq!(hints::check(&tcp(), &ep(|a| a.msg_prefix_size = 9)), Ok(()));
}

#[test]
fn alter_carries_kfilnd_hints() {
    let h = kfilnd_215();
    let a = hints::alter(&tcp(), &h);
    // caps: the hint's primary ones, the entry's secondary ones
    assert_eq!(a.caps, (h.caps & hints::PRIMARY_CAPS) | (tcp().caps & hints::SECONDARY_CAPS));
    assert_eq!(a.caps & KFI_LOCAL_COMM, 0);
    assert_ne!(a.caps & KFI_MULTI_RECV, 0);
    let (tx, rx) = (a.tx.unwrap(), a.rx.unwrap());
    assert_eq!(tx.op_flags, KFI_COMPLETION);
    assert_eq!(rx.op_flags, KFI_COMPLETION | KFI_MULTI_RECV);
    assert_eq!(tx.tclass, 0x203);
    assert_eq!(a.domain.unwrap().tclass, 0x203);
    assert_eq!(tx.iov_limit, 256);
    // unset hint fields keep the entry's values
    assert_eq!(tx.size, 1024);
    assert_eq!(tx.inject_size, 64);
    assert_eq!(a.domain.unwrap().threading, KFI_THREAD_SAFE);
    // resource_mgmt, mr_key_size and the fabric attribute stay the provider's
    assert_eq!(a.domain.unwrap().resource_mgmt, KFI_RM_ENABLED);
    assert_eq!(a.domain.unwrap().mr_key_size, 8);
    assert_eq!(a.fabric, tcp().fabric);
    // attribute caps: narrowed to what the info caps keep
    assert_eq!(tx.caps, KFI_MSG | KFI_RMA | KFI_SEND | KFI_READ | KFI_WRITE);
    assert_eq!(a.domain.unwrap().caps, KFI_REMOTE_COMM);
}

#[test]
fn alter_rules() {
    let e = tcp();
    // no hint attribute: only caps change
    let a = hints::alter(&e, &Info { caps: KFI_MSG, ..Default::default() });
    assert_eq!(a.caps, KFI_MSG | KFI_SEND | KFI_RECV | KFI_MULTI_RECV | KFI_RMA_EVENT);
    assert_eq!(a.tx.unwrap().op_flags, e.tx.unwrap().op_flags);
    assert_eq!(a.tx.unwrap().caps, KFI_MSG | KFI_SEND);
    // an rx hint sets op_flags and total_buffered_recv even when 0
    let a = hints::alter(&e, &Info { rx: Some(RxAttr::default()), ..Default::default() });
    assert_eq!(a.rx.unwrap().op_flags, 0);
    assert_eq!(a.rx.unwrap().size, 1024);
    // domain enums copied when set; mr_mode narrowed to the accepted bits
    let keyed = with_dom(tcp(), |d| d.mr_mode = KFI_MR_PROV_KEY | KFI_MR_VIRT_ADDR);
    let h = Info {
        caps: KFI_MSG | KFI_RMA | KFI_REMOTE_WRITE,
        ..dom(|a| {
            a.threading = KFI_THREAD_DOMAIN;
            a.data_progress = KFI_PROGRESS_MANUAL;
            a.av_type = KFI_AV_TABLE;
            a.mr_mode = KFI_MR_PROV_KEY | KFI_MR_VIRT_ADDR | KFI_MR_LOCAL;
        })
    };
    assert_eq!(hints::check(&keyed, &h), Ok(()));
    let a = hints::alter(&keyed, &h);
    let d = a.domain.unwrap();
    assert_eq!((d.threading, d.data_progress, d.av_type), (KFI_THREAD_DOMAIN, KFI_PROGRESS_MANUAL, KFI_AV_TABLE));
    assert_eq!(d.control_progress, KFI_PROGRESS_AUTO);
    assert_eq!(d.mr_mode, KFI_MR_PROV_KEY | KFI_MR_VIRT_ADDR);
    assert_ne!(a.caps & KFI_REMOTE_WRITE, 0);
    // a caller with mr_mode 0 asking remote access of a PROV_KEY entry: the
    // remote bits are dropped, as libfabric does
    let h = Info { caps: KFI_MSG | KFI_RMA | KFI_REMOTE_WRITE, ..dom(|_| {}) };
    let a = hints::alter(&keyed, &h);
    assert_eq!(a.caps & (KFI_REMOTE_WRITE | KFI_REMOTE_READ), 0);
    // initiator-only caps: target modes dropped from mr_mode
    let h = Info { caps: KFI_RMA | KFI_WRITE, ..dom(|a| a.mr_mode = KFI_MR_ENDPOINT) };
    let a = hints::alter(&keyed, &h);
    assert_eq!(a.domain.unwrap().mr_mode, 0);
    // ep counts and order sizes (with RMA caps) copied when set
    let h = Info { caps: KFI_RMA, ..ep(|a| {
        a.tx_ctx_cnt = 1;
        a.max_order_waw_size = 4096;
    }) };
    let a = hints::alter(&e, &h);
    assert_eq!(a.ep.unwrap().max_order_waw_size, 4096);
    assert_eq!(a.ep.unwrap().max_order_raw_size, 1 << 30);
}

#[test]
fn adjusted_caps_directions() {
    // MSG with no direction gets the attribute's directions
    assert_eq!(hints::adjusted_caps(0, KFI_MSG, KFI_MSG | KFI_SEND), KFI_MSG | KFI_SEND);
    assert_eq!(hints::adjusted_caps(0, KFI_RMA, KFI_RMA | KFI_READ | KFI_REMOTE_WRITE), KFI_RMA | KFI_READ | KFI_REMOTE_WRITE);
    // a direction in the hint is kept as it is
    assert_eq!(hints::adjusted_caps(0, KFI_MSG | KFI_RECV, KFI_MSG | KFI_SEND | KFI_RECV), KFI_MSG | KFI_RECV);
    // no hint: the info caps' primary bits the attribute has, and its secondary ones
    assert_eq!(hints::adjusted_caps(KFI_MSG | KFI_SEND, 0, KFI_MSG | KFI_TAGGED | KFI_SEND | KFI_TRIGGER), KFI_MSG | KFI_SEND | KFI_TRIGGER);
}

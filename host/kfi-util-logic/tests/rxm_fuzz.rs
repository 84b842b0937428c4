// SPDX-License-Identifier: GPL-2.0
//! Deterministic mutation fuzzer for the rxm codec (kfi_util/logic/rxm.rs),
//! what an RDM endpoint decodes from any peer: connect, accept and reject
//! data, the 64-byte packet header and the rendezvous header.
//!
//! Starting from valid encodings of each (packets of every type), each
//! iteration applies 1–4 mutations (bit flips, interesting byte values at
//! the fields that matter, truncation, extension, splicing), then calls
//! every decoder on the result and checks:
//! - nothing panics (overflow included, in the test profile);
//! - a decoded connect request states rxm's versions, our byte order and
//!   the eager limit, and re-encodes to the input's meaningful bytes;
//! - a decoded accept re-encodes to the input's first 13 bytes;
//! - a reject reason is one of the three, `Already` only for `01 02`;
//! - a decoded packet is version 4 with a known type, re-encodes to a
//!   packet that decodes to the same fields (stale bytes aside);
//! - a decoded rendezvous header has 1 to 4 pieces, each as in the input.
//!
//! Iterations: `KFI_FUZZ_ITERS` (default 1 000 000, about a fifth of a second); seed: `KFI_FUZZ_SEED`.
//! A failure prints the seed and iteration.

use kfi_util_logic::logic::rxm::*;

const DEFAULT_ITERS: u64 = 1_000_000;
const DEFAULT_SEED: u64 = 0x7278_6d5f_6675_7a7a;
const MAX_INPUT: usize = 256;

/// xorshift64* PRNG.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|s| s.trim().parse().ok()).unwrap_or(default)
}

fn seeds() -> Vec<Vec<u8>> {
    let mut v = vec![
        Connect::new(4000, 4096, conn_id(0x61ff, 3)).encode().to_vec(),
        Accept { server_conn_id: conn_id(7, 1), rx_size: 4096, flow_ctrl: FLOW_CTRL_PEER_OFF }.encode().to_vec(),
        reject(Reason::Already).to_vec(),
        reject(Reason::ConnRefused).to_vec(),
    ];
    let pkts = [
        (Type::Eager, Pkt { conn_id: 3, op: Some(Op::Msg), size: 64, ..Pkt::default() }),
        (Type::Eager, Pkt { conn_id: 1, op: Some(Op::Tagged), cq_data: true, size: 5, data: 9, tag: 1234, ..Pkt::default() }),
        (Type::Seg, Pkt { seg_size: 16384, seg_no: 1, seg: Some(Seg::Middle), op: Some(Op::Msg), size: 40000, ..Pkt::default() }),
        (Type::RndvReq, Pkt { msg_id: 1 << 63 | 5, op: Some(Op::Msg), size: 1 << 20, ..Pkt::default() }),
        (Type::RndvRdDone, Pkt { conn_id: 2, msg_id: 77, ..Pkt::default() }),
        (Type::Credit, Pkt::default()),
    ];
    for (ty, p) in pkts {
        let mut b = [0u8; PKT_BYTES];
        encode(ty, &p, &mut b);
        let mut x = b.to_vec();
        if ty == Type::RndvReq {
            let mut r = [0u8; RNDV_BYTES];
            let iovs = [RmaIov { addr: 0, len: 1000, key: 0x8000_0000 }, RmaIov { addr: 8, len: 1 << 20, key: 9 }];
            encode_rndv(&iovs, &mut r);
            x.extend_from_slice(&r);
        }
        v.push(x);
    }
    v
}

fn mutate(r: &mut Rng, x: &mut Vec<u8>, pool: &[Vec<u8>]) {
    for _ in 0..1 + r.below(4) {
        match r.below(7) {
            0 if !x.is_empty() => {
                let i = r.below(x.len());
                x[i] ^= 1 << r.below(8);
            }
            1 if !x.is_empty() => {
                // the bytes that decide: versions, type, op, count, reason
                let at = [0usize, 1, 2, 3, 8, 24, 32, 34, 36, 96 + 64, 160];
                let i = at[r.below(at.len())] % x.len();
                x[i] = [0u8, 1, 2, 3, 4, 5, 8, 9, 0x7f, 0x80, 0xff][r.below(11)];
            }
            2 => {
                let n = r.below(x.len() + 1);
                x.truncate(n);
            }
            3 if x.len() < MAX_INPUT => {
                let n = 1 + r.below(32);
                for _ in 0..n {
                    x.push(r.next() as u8);
                }
            }
            4 => {
                let o = &pool[r.below(pool.len())];
                let n = r.below(o.len() + 1);
                let at = r.below(x.len() + 1);
                x.splice(at..at, o[..n].iter().copied());
                x.truncate(MAX_INPUT);
            }
            5 if x.len() >= 8 => {
                let i = r.below(x.len() - 7);
                x[i..i + 8].copy_from_slice(&r.next().to_ne_bytes());
            }
            _ if !x.is_empty() => {
                let i = r.below(x.len());
                x.remove(i);
            }
            _ => {}
        }
    }
}

fn check(x: &[u8]) {
    if let Ok(c) = Connect::decode(x) {
        assert_eq!(x[0], CM_VERSION);
        assert_eq!(x[1], endianness());
        assert_eq!((x[2], x[3]), (CTRL_VERSION, CM_OP_VERSION));
        assert_eq!(c.eager_limit, EAGER_LIMIT);
        let e = c.encode();
        // bytes 6 (flow control) and 7 (padding) are carried, not checked
        assert_eq!(&e[..6], &x[..6]);
        assert_eq!(&e[8..CONNECT_BYTES], &x[8..CONNECT_BYTES]);
    }
    if let Some(a) = Accept::decode(x) {
        assert!(x.len() >= ACCEPT_BYTES);
        assert_eq!(&a.encode()[..13], &x[..13]);
    }
    match reject_reason(x) {
        Reason::Already => assert!(x.len() >= 2 && x[0] == CM_VERSION && x[1] == 2),
        Reason::Unspec => assert!(x.len() >= 2 && x[0] == CM_VERSION && x[1] == 0),
        Reason::ConnRefused => {}
    }
    if let Ok((ty, p)) = decode(x) {
        assert!(x.len() >= PKT_BYTES);
        assert_eq!(x[0], CTRL_VERSION);
        let mut b = [0u8; PKT_BYTES];
        encode(ty, &p, &mut b);
        assert_eq!(decode(&b), Ok((ty, p)));
        assert_eq!(b[1], x[1]);
    }
    let rest = x.get(PKT_BYTES..).unwrap_or(&[]);
    for r in [x, rest] {
        if let Some((iovs, n)) = decode_rndv(r) {
            assert!((1..=RNDV_IOVS).contains(&n));
            assert_eq!(r[96] as usize, n);
            for (k, v) in iovs.iter().take(n).enumerate() {
                assert_eq!(v.addr.to_ne_bytes(), r[k * 24..k * 24 + 8]);
                assert_eq!(v.key.to_ne_bytes(), r[k * 24 + 16..k * 24 + 24]);
            }
        }
    }
}

#[test]
fn rxm_codec_survives_mutations() {
    let iters = env_u64("KFI_FUZZ_ITERS", DEFAULT_ITERS);
    let seed = env_u64("KFI_FUZZ_SEED", DEFAULT_SEED);
    let mut r = Rng(seed | 1);
    let pool = seeds();
    for x in &pool {
        check(x);
    }
    for it in 0..iters {
        let mut x = pool[r.below(pool.len())].clone();
        mutate(&mut r, &mut x, &pool);
        let res = std::panic::catch_unwind(|| check(&x));
        if res.is_err() {
            panic!("seed {seed:#x} iteration {it}: input {x:02x?}");
        }
    }
}

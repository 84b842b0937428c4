// SPDX-License-Identifier: GPL-2.0
//! Deterministic mutation fuzzer for the frame codec (cargo-fuzz needs a
//! nightly toolchain, which this project's build machines do not have).
//!
//! Starting from valid frames of every kind in both byte orders and from
//! valid CM messages, each iteration applies 1–4 random mutations (bit
//! flips, interesting byte values, truncation, extension, splicing with
//! another input, insertion/deletion, targeted rewrites of the size,
//! flags, hdr_size and rma_iov_cnt fields), then calls every decode entry
//! point in both byte orders and checks:
//! - nothing panics (a panic fails the test; arithmetic overflow panics in
//!   the test profile, so overflow is caught too);
//! - a decoded header is no longer than the input, has 16 ≤ hdr_size ≤ 120,
//!   `payload_len + hdr_size == size`, agrees with `header_len`, and
//!   re-encodes to exactly the input's header bytes;
//! - a decoded frame's payload is `payload_len` bytes and within the input;
//! - `Truncated { need }` always asks for more than the input holds;
//! - every error maps to a negative errno;
//! - decoded CM headers have at most 256 bytes of data and re-encode to
//!   the input's interpreted bytes.
//!
//! Inputs that decode are added (bounded) to the corpus, so mutations keep
//! reaching the deeper, valid-looking parts of the input space.
//!
//! Iterations: `KFI_FUZZ_ITERS` (default 1 500 000: about one second in the
//! test profile); seed: `KFI_FUZZ_SEED` (default fixed). A long run:
//!
//! ```text
//! KFI_FUZZ_ITERS=100000000 cargo test -p kfi-tcp-wire --release --test fuzz -- --nocapture
//! ```
//!
//! (`--release` disables overflow checks; for a long run that also checks
//! overflow use `RUSTFLAGS="-C overflow-checks=on"` with `--release`, or
//! the default test profile.) A failure prints the seed and iteration;
//! rerun with that seed to reproduce.

use kfi_tcp_wire::wire::cm::{self, CmHeader, CmType};
use kfi_tcp_wire::wire::hdr::*;
use kfi_tcp_wire::wire::{ByteOrder, WireError};

const DEFAULT_ITERS: u64 = 1_500_000;
const DEFAULT_SEED: u64 = 0x6b66_6162_7269_6321;
const MAX_CORPUS: usize = 4096;
const MAX_INPUT: usize = 600;

/// xorshift64* PRNG.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform-ish in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(default)
}

fn frame(h: &MsgHeader, order: ByteOrder) -> Vec<u8> {
    let payload: Vec<u8> = (0..h.payload_len()).map(|i| (i * 7) as u8).collect();
    let mut buf = vec![0u8; h.hdr_size() + payload.len()];
    h.encode_frame(&payload, &mut buf, order).unwrap();
    buf
}

fn seeds() -> Vec<Vec<u8>> {
    let iov = |len| RmaIov {
        addr: 0x7f12_3456_7000,
        len,
        key: 0x1234,
    };
    let hdrs = vec![
        MsgHeader::send(0).unwrap(),
        MsgHeader::send(17).unwrap(),
        MsgHeader::send(128)
            .unwrap()
            .with_cq_data(0xdead_beef)
            .unwrap()
            .with_delivery_complete()
            .unwrap(),
        MsgHeader::ack(),
        MsgHeader::tagged(1234, 10, TagForm::Op).unwrap(),
        MsgHeader::tagged(1234, 10, TagForm::Op)
            .unwrap()
            .with_cq_data(5)
            .unwrap(),
        MsgHeader::tagged(1234, 64, TagForm::Flag).unwrap(),
        MsgHeader::tagged(u64::MAX, 3, TagForm::Flag)
            .unwrap()
            .with_cq_data(1)
            .unwrap()
            .with_delivery_complete()
            .unwrap(),
        MsgHeader::read_req(&[]).unwrap(),
        MsgHeader::read_req(&[iov(100)]).unwrap(),
        MsgHeader::read_req(&[iov(1), iov(2), iov(3), iov(4)]).unwrap(),
        MsgHeader::read_rsp(0).unwrap(),
        MsgHeader::read_rsp(40).unwrap().with_id(3),
        MsgHeader::write(&[iov(8)], 8).unwrap(),
        MsgHeader::write(&[iov(8), iov(8), iov(8), iov(8)], 32)
            .unwrap()
            .with_cq_data(9)
            .unwrap()
            .with_commit_complete()
            .unwrap(),
        MsgHeader::write(&[iov(2), iov(2)], 3)
            .unwrap()
            .with_delivery_complete()
            .unwrap(),
    ];
    let mut out = Vec::new();
    for h in &hdrs {
        for o in [ByteOrder::Little, ByteOrder::Big] {
            out.push(frame(h, o));
        }
    }
    for (kind, data) in [
        (CmType::ConnReq, &b""[..]),
        (CmType::ConnReq, &[1u8; 24][..]),
        (CmType::ConnResp, &[2u8; 16][..]),
        (CmType::Nack, &b"busy"[..]),
    ] {
        for o in [ByteOrder::Little, ByteOrder::Big] {
            let mut buf = vec![0u8; 32 + data.len()];
            cm::encode_msg(kind, data, o, &mut buf).unwrap();
            out.push(buf);
        }
    }
    out
}

const INTERESTING_U8: &[u8] = &[
    0, 1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 17, 23, 24, 32, 40, 63, 64, 88, 112, 119, 120, 121, 127,
    128, 0x80, 0x81, 0xfe, 0xff,
];

fn mutate(rng: &mut Rng, input: &mut Vec<u8>, corpus: &[Vec<u8>]) {
    let len = input.len();
    match rng.below(12) {
        0 if len > 0 => {
            let i = rng.below(len);
            input[i] ^= 1 << rng.below(8);
        }
        1 if len > 0 => {
            let i = rng.below(len);
            input[i] = *rng.pick(INTERESTING_U8);
        }
        2 if len > 0 => {
            let i = rng.below(len);
            input[i] = rng.next() as u8;
        }
        3 => {
            let keep = if rng.chance(2) {
                rng.below(len.min(40) + 1)
            } else {
                rng.below(len + 1)
            };
            input.truncate(keep);
        }
        4 => {
            let n = 1 + rng.below(32);
            for _ in 0..n {
                input.push(rng.next() as u8);
            }
        }
        5 => {
            // Splice: our prefix + another input's suffix.
            let other = rng.pick(corpus);
            let cut = rng.below(len + 1);
            let from = rng.below(other.len() + 1);
            input.truncate(cut);
            input.extend_from_slice(&other[from..]);
        }
        6 if len >= 16 => {
            // Size field: related or extreme values, either byte order.
            let hs = u64::from(input[6]);
            let v = match rng.below(8) {
                0 => hs,
                1 => len as u64,
                2 => (len as u64).wrapping_add(1),
                3 => (len as u64).wrapping_sub(1),
                4 => hs.wrapping_sub(1),
                5 => u64::MAX,
                6 => 0,
                _ => rng.next(),
            };
            let b = if rng.chance(2) {
                v.to_le_bytes()
            } else {
                v.to_be_bytes()
            };
            input[8..16].copy_from_slice(&b);
        }
        7 if len >= 4 => {
            let bits = [0x01u16, 0x02, 0x04, 0x08, 0x80, 0x100, 0x8000];
            let mut f = 0u16;
            for _ in 0..rng.below(3) {
                f |= *rng.pick(&bits);
            }
            let b = if rng.chance(2) {
                f.to_le_bytes()
            } else {
                f.to_be_bytes()
            };
            input[2..4].copy_from_slice(&b);
        }
        8 if len >= 7 => {
            input[6] = if rng.chance(2) {
                16 + 8 * rng.below(4) as u8
            } else {
                16 + 24 * rng.below(5) as u8 + 8 * rng.below(2) as u8
            };
        }
        9 if len >= 6 => {
            input[5] = rng.below(7) as u8;
            if rng.chance(2) {
                input[1] = rng.below(6) as u8;
            }
        }
        10 if len > 0 => {
            let i = rng.below(len);
            if rng.chance(2) {
                input.remove(i);
            } else {
                input.insert(i, rng.next() as u8);
            }
        }
        _ => {
            // Restore version/op to reach deeper checks.
            if len >= 2 {
                input[0] = 3;
                input[1] = rng.below(5) as u8;
            }
        }
    }
    input.truncate(MAX_INPUT);
}

/// Errors seen: variant -> (name, count), to show what the run reached.
type Seen = std::collections::HashMap<std::mem::Discriminant<WireError>, (String, u64)>;

fn check_err(e: WireError, len: usize, seen: &mut Seen) {
    seen.entry(std::mem::discriminant(&e))
        .or_insert_with(|| {
            let name = format!("{e:?}");
            (
                name.chars().take_while(|c| c.is_alphanumeric()).collect(),
                0,
            )
        })
        .1 += 1;
    assert!(e.errno() < 0, "{e:?}");
    if let WireError::Truncated { need } = e {
        assert!(need > len, "Truncated {{ need: {need} }} for {len} bytes");
    }
}

/// Calls every decode entry point; returns whether a data header and
/// whether a CM header decoded.
fn exercise(buf: &[u8], seen: &mut Seen) -> (bool, bool) {
    let mut ok = false;
    let mut cm_ok = false;
    for o in [ByteOrder::Little, ByteOrder::Big] {
        let _ = RawBase::peek(buf, o);
        let hl = header_len(buf, o);
        match hl {
            Ok(n) => assert!((BASE_HDR_SIZE..=MAX_HDR_SIZE).contains(&n)),
            Err(e) => check_err(e, buf.len(), seen),
        }
        match MsgHeader::decode(buf, o) {
            Ok(h) => {
                ok = true;
                assert!(h.hdr_size() <= buf.len());
                assert!((BASE_HDR_SIZE..=MAX_HDR_SIZE).contains(&h.hdr_size()));
                assert_eq!(h.payload_len() + h.hdr_size() as u64, h.size());
                assert_eq!(hl, Ok(h.hdr_size()));
                let (bytes, n) = h.to_bytes(o);
                assert_eq!(&bytes[..n], &buf[..n]);
                let mut out = [0u8; MAX_HDR_SIZE];
                assert_eq!(h.encode(&mut out, o), Ok(n));
                assert!(h.rma_iovs().len() <= RMA_IOV_LIMIT);
                let _ = (h.kind(), h.needs_ack(), h.tag_form(), h.is_ack());
            }
            Err(e) => check_err(e, buf.len(), seen),
        }
        match Frame::decode(buf, o) {
            Ok(f) => {
                assert!(f.len() <= buf.len());
                assert_eq!(f.len() as u64, f.header.size());
                assert_eq!(f.payload.len() as u64, f.header.payload_len());
                let mut out = vec![0u8; f.len()];
                assert_eq!(f.header.encode_frame(f.payload, &mut out, o), Ok(f.len()));
                assert_eq!(&out[..], &buf[..f.len()]);
            }
            Err(e) => check_err(e, buf.len(), seen),
        }
    }
    match CmHeader::decode(buf) {
        Ok(h) => {
            cm_ok = true;
            assert!(h.data_len() <= cm::MAX_CM_DATA);
            let b = h.to_bytes();
            assert_eq!(&b[..4], &buf[..4]);
            assert_eq!(&b[24..], &buf[24..32]);
            for me in [ByteOrder::Little, ByteOrder::Big] {
                match h.msg_order(me) {
                    Ok(_) => assert!(h.sender_order().is_some()),
                    Err(e) => check_err(e, buf.len(), seen),
                }
            }
            for t in [CmType::ConnReq, CmType::ConnResp, CmType::Nack] {
                if let Err(e) = h.check(t) {
                    check_err(e, buf.len(), seen);
                }
            }
        }
        Err(e) => check_err(e, buf.len(), seen),
    }
    match cm::decode_msg(buf) {
        Ok((h, d)) => {
            assert_eq!(d.len(), h.data_len());
            assert!(h.msg_len() <= buf.len());
        }
        Err(e) => check_err(e, buf.len(), seen),
    }
    (ok, cm_ok)
}

#[test]
fn fuzz_decoders() {
    let iters = env_u64("KFI_FUZZ_ITERS", DEFAULT_ITERS);
    let seed = env_u64("KFI_FUZZ_SEED", DEFAULT_SEED);
    let mut rng = Rng::new(seed);
    let mut corpus = seeds();
    let n_seeds = corpus.len();
    let mut seen = Seen::new();
    for s in &corpus {
        let (m, c) = exercise(s, &mut seen);
        assert!(m || c, "seed input must decode");
    }
    seen.clear();
    let mut decoded = 0u64;
    let mut cm_decoded = 0u64;
    for it in 0..iters {
        let mut input = rng.pick(&corpus).clone();
        for _ in 0..1 + rng.below(4) {
            mutate(&mut rng, &mut input, &corpus);
        }
        let res =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| exercise(&input, &mut seen)));
        match res {
            Ok((m, c)) if m || c => {
                decoded += u64::from(m);
                cm_decoded += u64::from(c);
                if corpus.len() < MAX_CORPUS {
                    corpus.push(input);
                } else if rng.chance(8) {
                    // Replace a non-seed entry to keep the corpus moving.
                    let i = n_seeds + rng.below(MAX_CORPUS - n_seeds);
                    corpus[i] = input;
                }
            }
            Ok(_) => {}
            Err(_) => panic!("fuzz failure: seed {seed:#x} iteration {it} input {input:02x?}"),
        }
    }
    eprintln!(
        "fuzz: {iters} iterations, seed {seed:#x}: {decoded} data headers and \
         {cm_decoded} CM headers decoded, corpus {}; errors: {:?}",
        corpus.len(),
        seen.values().collect::<std::collections::BTreeSet<_>>()
    );
    if iters >= 1000 {
        assert!(
            decoded > iters / 100,
            "mutator stopped reaching valid frames"
        );
    }
}

// SPDX-License-Identifier: GPL-2.0
//! The rdma_cm private data codec: libfabric's layout, limits, padding,
//! the kfi_verbs trailer.

use kfi_verbs_logic::cmdata::{decode, encode, CmDataError, Decoded, Mode, APP_MAX, APP_MAX_TRAILER, TOTAL};

#[test]
fn libfabric_layout_length_byte_then_data() {
    let mut out = [0xeeu8; TOTAL];
    let n = encode(b"hello", None, &mut out).unwrap();
    assert_eq!(n, 6);
    assert_eq!(&out[..n], b"\x05hello");
    // no data: the length byte alone (libfabric sends its header always)
    assert_eq!(encode(b"", None, &mut out), Ok(1));
    assert_eq!(out[0], 0);
}

#[test]
fn limits_as_libfabric_and_with_the_trailer() {
    let mut out = [0u8; TOTAL];
    let big = [7u8; TOTAL];
    assert_eq!(APP_MAX, 55);
    assert_eq!(APP_MAX_TRAILER, 51);
    assert_eq!(encode(&big[..55], None, &mut out), Ok(56));
    assert_eq!(encode(&big[..56], None, &mut out), Err(CmDataError::TooLong));
    assert_eq!(encode(&big[..51], Some(Mode::Soft), &mut out), Ok(56));
    assert_eq!(encode(&big[..52], Some(Mode::Soft), &mut out), Err(CmDataError::TooLong));
}

#[test]
fn round_trip_with_and_without_trailer() {
    let mut out = [0u8; TOTAL];
    for mode in [None, Some(Mode::Direct), Some(Mode::Soft)] {
        for len in [0usize, 1, 17, 51] {
            let app: Vec<u8> = (0..len as u8).collect();
            let n = encode(&app, mode, &mut out).unwrap();
            assert_eq!(decode(&out[..n]), Decoded { app: &app, mode });
            // transports pad: the same with zeros after it
            let mut padded = out.to_vec();
            padded.extend_from_slice(&[0u8; 36]);
            for b in &mut padded[n..] {
                *b = 0;
            }
            assert_eq!(decode(&padded), Decoded { app: &app, mode });
        }
    }
}

#[test]
fn hostile_or_foreign_private_data() {
    // nothing at all
    assert_eq!(decode(&[]), Decoded { app: &[], mode: None });
    // a length beyond what arrived: cut to what arrived
    assert_eq!(decode(b"\xffabc"), Decoded { app: b"abc", mode: None });
    // a trailer with a bad magic, version or mode is no trailer
    assert_eq!(decode(b"\x01xkv\x02\x02").mode, None);
    assert_eq!(decode(b"\x01xKV\x01\x02").mode, None);
    assert_eq!(decode(b"\x01xkv\x01\x09").mode, None);
    // a truncated trailer
    assert_eq!(decode(b"\x01xkv\x01").mode, None);
    // libfabric's own data that happens to contain "kv" inside it is data
    let d = decode(b"\x06kv\x01\x02ab");
    assert_eq!(d.app, b"kv\x01\x02ab");
    assert_eq!(d.mode, None);
}

// SPDX-License-Identifier: GPL-2.0
//! Validation of the `node` argument of `kfi_getinfo` under `KFI_NUMERICHOST`:
//! the caller promises a numeric address, so no name resolution may happen and
//! anything else is rejected with -EINVAL before a provider sees it.

/// Parses a dotted-quad IPv4 address (exactly four decimal parts, 0..=255,
/// no sign, no empty part) into its four bytes, network order.
pub fn parse_ipv4(s: &[u8]) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut parts = 0;
    for part in s.split(|&b| b == b'.') {
        if parts == 4 || part.is_empty() || part.len() > 3 || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let v = part.iter().fold(0u32, |a, &d| a * 10 + u32::from(d - b'0'));
        out[parts] = u8::try_from(v).ok()?;
        parts += 1;
    }
    (parts == 4).then_some(out)
}

/// True for a dotted-quad IPv4 address.
pub fn is_ipv4(s: &[u8]) -> bool {
    parse_ipv4(s).is_some()
}

/// Parses a numeric service (port) "0".."65535"; no sign, no spaces.
pub fn parse_port(s: &[u8]) -> Option<u16> {
    if s.is_empty() || s.len() > 5 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let v = s.iter().fold(0u32, |a, &d| a * 10 + u32::from(d - b'0'));
    u16::try_from(v).ok()
}

/// True for an IPv6 address in the textual forms of RFC 4291 (hex groups,
/// one `::`, optional embedded IPv4 tail); no zone index.
pub fn is_ipv6(s: &[u8]) -> bool {
    if s.len() < 2 || s.len() > 45 {
        return false;
    }
    let (head, tail, compressed) = match find_double_colon(s) {
        Some(i) => (&s[..i], &s[i + 2..], true),
        None => (s, &s[..0], false),
    };
    if find_double_colon(tail).is_some() {
        return false;
    }
    let mut groups = 0usize;
    for (side, text) in [(0, head), (1, tail)] {
        if text.is_empty() {
            continue;
        }
        let n = text.split(|&b| b == b':').count();
        for (i, g) in text.split(|&b| b == b':').enumerate() {
            let last = side == 1 || !compressed;
            if last && i == n - 1 && g.contains(&b'.') {
                if !is_ipv4(g) {
                    return false;
                }
                groups += 2;
                continue;
            }
            if g.is_empty() || g.len() > 4 || !g.iter().all(u8::is_ascii_hexdigit) {
                return false;
            }
            groups += 1;
        }
    }
    if compressed {
        groups < 8
    } else {
        groups == 8
    }
}

fn find_double_colon(s: &[u8]) -> Option<usize> {
    s.windows(2).position(|w| w == b"::")
}

/// True when `node` is a numeric IPv4 or IPv6 address.
pub fn is_numeric_host(node: &[u8]) -> bool {
    is_ipv4(node) || is_ipv6(node)
}

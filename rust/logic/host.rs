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
    parse_ipv6(s).is_some()
}

/// Parses an IPv6 address in the textual forms of RFC 4291 section 2.2:
/// eight groups of 1-4 hex digits separated by `:`, at most one `::`
/// standing for one or more zero groups, and optionally the last 32 bits
/// as a dotted-quad IPv4 address. No zone index (see
/// [`parse_ipv6_zone`]). The 16 bytes, network order.
pub fn parse_ipv6(s: &[u8]) -> Option<[u8; 16]> {
    if s.len() < 2 || s.len() > 45 {
        return None;
    }
    let (head, tail, compressed) = match find_double_colon(s) {
        Some(i) => (&s[..i], &s[i + 2..], true),
        None => (s, &s[..0], false),
    };
    if find_double_colon(tail).is_some() {
        return None;
    }
    // Groups of each side, in order; the head's go first, the tail's last.
    let mut sides = [[0u16; 8]; 2];
    let mut counts = [0usize; 2];
    for (side, text) in [head, tail].into_iter().enumerate() {
        if text.is_empty() {
            continue;
        }
        let n = text.split(|&b| b == b':').count();
        // Only the address's last group may be a dotted quad.
        let ends = side == 1 || !compressed;
        for (k, g) in text.split(|&b| b == b':').enumerate() {
            let words: &[u16] = &if ends && k == n - 1 && g.contains(&b'.') {
                let v4 = parse_ipv4(g)?;
                [u16::from_be_bytes([v4[0], v4[1]]), u16::from_be_bytes([v4[2], v4[3]])]
            } else {
                if g.is_empty() || g.len() > 4 || !g.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                let v = g.iter().fold(0u16, |a, &d| (a << 4) | u16::from(hex_val(d)));
                [v, 0]
            }[..if g.contains(&b'.') { 2 } else { 1 }];
            for &w in words {
                *sides[side].get_mut(counts[side])? = w;
                counts[side] += 1;
            }
        }
    }
    let total = counts[0] + counts[1];
    if (compressed && total > 7) || (!compressed && total != 8) {
        return None;
    }
    let mut groups = [0u16; 8];
    groups[..counts[0]].copy_from_slice(&sides[0][..counts[0]]);
    groups[8 - counts[1]..].copy_from_slice(&sides[1][..counts[1]]);
    let mut out = [0u8; 16];
    for (k, g) in groups.iter().enumerate() {
        out[2 * k..2 * k + 2].copy_from_slice(&g.to_be_bytes());
    }
    Some(out)
}

/// Longest zone (interface name) accepted: `IFNAMSIZ` - 1.
pub const ZONE_MAX: usize = 15;

/// Parses an IPv6 address with an optional zone index (RFC 4007 section
/// 11: `fe80::1%eth0`, `fe80::1%2`): the address and the zone's text
/// (non-empty, at most [`ZONE_MAX`] bytes, no `%`, `/` or white space).
/// What the zone names (an interface name or a number, see
/// [`zone_number`]) is resolved by the caller.
pub fn parse_ipv6_zone(s: &[u8]) -> Option<([u8; 16], Option<&[u8]>)> {
    let Some(i) = s.iter().position(|&b| b == b'%') else {
        return parse_ipv6(s).map(|a| (a, None));
    };
    let zone = &s[i + 1..];
    if zone.is_empty() || zone.len() > ZONE_MAX || zone.iter().any(|&b| b == b'%' || b == b'/' || !b.is_ascii_graphic()) {
        return None;
    }
    parse_ipv6(&s[..i]).map(|a| (a, Some(zone)))
}

/// A zone that is a decimal number (an interface index, 1..=u32::MAX).
pub fn zone_number(zone: &[u8]) -> Option<u32> {
    if zone.is_empty() || zone.len() > 10 || !zone.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let v = zone.iter().fold(0u64, |a, &d| a * 10 + u64::from(d - b'0'));
    u32::try_from(v).ok().filter(|&v| v != 0)
}

/// Writes an IPv6 address in the canonical text of RFC 5952: lower-case
/// hex without leading zeros, the longest run of two or more zero groups
/// (the first of equal ones) as `::`, and an IPv4-mapped address
/// (`::ffff:0:0/96`) with its IPv4 part as a dotted quad.
pub fn write_ipv6(w: &mut impl core::fmt::Write, a: &[u8; 16]) -> core::fmt::Result {
    let g: [u16; 8] = core::array::from_fn(|k| u16::from_be_bytes([a[2 * k], a[2 * k + 1]]));
    if g[..5] == [0; 5] && g[5] == 0xffff {
        return write!(w, "::ffff:{}.{}.{}.{}", a[12], a[13], a[14], a[15]);
    }
    // The longest run of zero groups (2 or more), the first of equals.
    let (mut best, mut best_len, mut k) = (0usize, 0usize, 0usize);
    while k < 8 {
        let run = g[k..].iter().take_while(|&&x| x == 0).count();
        if run > best_len {
            (best, best_len) = (k, run);
        }
        k += run.max(1);
    }
    if best_len < 2 {
        best_len = 0;
        best = 8;
    }
    for (k, x) in g.iter().enumerate() {
        if k == best {
            w.write_str("::")?;
            continue;
        }
        if k > best && k < best + best_len {
            continue;
        }
        if k != 0 && k != best + best_len {
            w.write_str(":")?;
        }
        write!(w, "{:x}", x)?;
    }
    Ok(())
}

fn hex_val(d: u8) -> u8 {
    match d {
        b'0'..=b'9' => d - b'0',
        b'a'..=b'f' => d - b'a' + 10,
        _ => d - b'A' + 10,
    }
}

fn find_double_colon(s: &[u8]) -> Option<usize> {
    s.windows(2).position(|w| w == b"::")
}

/// True when `node` is a numeric IPv4 or IPv6 address.
pub fn is_numeric_host(node: &[u8]) -> bool {
    is_ipv4(node) || is_ipv6(node)
}

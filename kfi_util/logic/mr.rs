// SPDX-License-Identifier: GPL-2.0
//! Memory-region rules: which access bits a registration may ask for, key
//! choice, and the check every remote access goes through before a byte is
//! read from or written to a registered region.
//!
//! Addressing is by offset (the domain's `mr_mode` has no
//! `KFI_MR_VIRT_ADDR`): a region registered with `offset` covers remote
//! addresses `[offset, offset + len)`.

/// Access bits a registration may carry (KFI_SEND, KFI_RECV, KFI_READ,
/// KFI_WRITE, KFI_REMOTE_READ, KFI_REMOTE_WRITE).
pub const ACCESS_MASK: u64 = (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12) | (1 << 13);
/// `KFI_REMOTE_READ`.
pub const REMOTE_READ: u64 = 1 << 12;
/// `KFI_REMOTE_WRITE`.
pub const REMOTE_WRITE: u64 = 1 << 13;
/// Most segments (kvecs, bio_vecs, scatterlist entries) one region may
/// have: the domain's `mr_iov_limit`. A 1 MiB buffer as single pages.
pub const SEG_LIMIT: usize = 256;

/// A registered region as the checks see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// First remote address (the registration's `offset`).
    pub base: u64,
    /// Length in bytes.
    pub len: u64,
    /// Access bits granted.
    pub access: u64,
}

/// Why a registration or an access was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MrError {
    /// Access bits outside [`ACCESS_MASK`], or none (-EINVAL).
    BadAccess,
    /// The region would wrap the 64-bit address space, or is empty (-EINVAL).
    BadRange,
    /// No segments, or more than [`SEG_LIMIT`] (-EINVAL).
    BadSegCount,
    /// The requested key is in use (-KFI_ENOKEY).
    KeyInUse,
    /// No region has the key (remote access: -KFI_ENOKEY).
    NoKey,
    /// The region does not grant the access (-EACCES).
    Denied,
    /// The access is not entirely inside the region (-EFAULT).
    OutOfBounds,
}

impl MrError {
    /// Negative errno.
    pub fn errno(self) -> i32 {
        match self {
            MrError::BadAccess | MrError::BadRange | MrError::BadSegCount => -22, // EINVAL
            MrError::KeyInUse | MrError::NoKey => -266,    // KFI_ENOKEY
            MrError::Denied => -13,                        // EACCES
            MrError::OutOfBounds => -14,                   // EFAULT
        }
    }
}

/// Checks a registration's segment count (before anything is copied).
pub fn seg_count(n: usize) -> Result<(), MrError> {
    if n == 0 || n > SEG_LIMIT {
        return Err(MrError::BadSegCount);
    }
    Ok(())
}

/// Validates a registration; returns the region it describes.
pub fn register(offset: u64, len: u64, access: u64) -> Result<Region, MrError> {
    if access == 0 || access & !ACCESS_MASK != 0 {
        return Err(MrError::BadAccess);
    }
    if len == 0 || offset.checked_add(len).is_none() {
        return Err(MrError::BadRange);
    }
    Ok(Region { base: offset, len, access })
}

/// Checks a remote access of `len` bytes at `addr` needing the access bits
/// `need`; returns the byte offset into the region.
pub fn check(r: &Region, addr: u64, len: u64, need: u64) -> Result<u64, MrError> {
    if need & !r.access != 0 {
        return Err(MrError::Denied);
    }
    let end = addr.checked_add(len).ok_or(MrError::OutOfBounds)?;
    // `register` guarantees base + len does not wrap.
    if addr < r.base || end > r.base + r.len {
        return Err(MrError::OutOfBounds);
    }
    Ok(addr - r.base)
}

/// Chooses keys for `KFI_MR_PROV_KEY` domains: increasing, skipping keys in
/// use (requested keys of other registrations cannot collide with chosen
/// ones as long as the caller checks `taken`).
#[derive(Default)]
pub struct KeyChooser {
    next: u64,
}

impl KeyChooser {
    /// The next free key; `taken` says whether a key is in use.
    pub fn choose(&mut self, taken: impl Fn(u64) -> bool) -> u64 {
        loop {
            let k = self.next;
            self.next = self.next.wrapping_add(1);
            if !taken(k) {
                return k;
            }
        }
    }
}

/// One piece of an access that falls in one segment of a region: the
/// segment index, the offset inside it and the length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Index of the segment.
    pub seg: usize,
    /// Offset inside the segment.
    pub off: usize,
    /// Bytes in this piece.
    pub len: usize,
}

/// Splits `[off, off + len)` of a region made of segments of the given
/// lengths (in order; any number of them) into per-segment pieces, calling
/// `f` for each in order. Returns false (having called `f` for nothing) if
/// the range is not inside the segments.
pub fn pieces<I>(seg_lens: I, off: u64, len: u64, mut f: impl FnMut(Piece)) -> bool
where
    I: IntoIterator<Item = usize>,
    I::IntoIter: Clone,
{
    let lens = seg_lens.into_iter();
    let total = lens.clone().try_fold(0u64, |t, l| t.checked_add(l as u64));
    match (total, off.checked_add(len)) {
        (Some(total), Some(end)) if end <= total => {}
        _ => return false,
    }
    let (mut skip, mut left) = (off, len);
    for (seg, l) in lens.enumerate() {
        if left == 0 {
            break;
        }
        let l = l as u64;
        if skip >= l {
            skip -= l;
            continue;
        }
        let n = (l - skip).min(left);
        f(Piece { seg, off: skip as usize, len: n as usize });
        left -= n;
        skip = 0;
    }
    true
}

// SPDX-License-Identifier: GPL-2.0
//! Data-transfer rules that need no kernel: the operation lists of an
//! endpoint (index-linked lists over preallocated slots, so posting never
//! allocates), which flags each call accepts, tag matching, multi-receive
//! buffer carving and the flags of completion entries. Provider-independent
//! (the toolkit's, Documentation/toolkit-plan.md); the tcp wire's own rules
//! are in kfi_tcp/logic/xfer_tcp.rs.

/// `KFI_MSG`.
pub const F_MSG: u64 = 1 << 1;
/// `KFI_RMA`.
pub const F_RMA: u64 = 1 << 2;
/// `KFI_TAGGED`.
pub const F_TAGGED: u64 = 1 << 3;
/// `KFI_ATOMIC`.
pub const F_ATOMIC: u64 = 1 << 4;
/// `KFI_READ`.
pub const F_READ: u64 = 1 << 8;
/// `KFI_WRITE`.
pub const F_WRITE: u64 = 1 << 9;
/// `KFI_RECV`.
pub const F_RECV: u64 = 1 << 10;
/// `KFI_SEND`.
pub const F_SEND: u64 = 1 << 11;
/// `KFI_REMOTE_WRITE`.
pub const F_REMOTE_WRITE: u64 = 1 << 13;
/// `KFI_MULTI_RECV`.
pub const F_MULTI_RECV: u64 = 1 << 16;
/// `KFI_REMOTE_CQ_DATA`.
pub const F_REMOTE_CQ_DATA: u64 = 1 << 17;
/// `KFI_MORE`.
pub const F_MORE: u64 = 1 << 18;
/// `KFI_PEEK`.
pub const F_PEEK: u64 = 1 << 19;
/// `KFI_TRIGGER`.
pub const F_TRIGGER: u64 = 1 << 20;
/// `KFI_FENCE`.
pub const F_FENCE: u64 = 1 << 21;
/// `KFI_COMPLETION`.
pub const F_COMPLETION: u64 = 1 << 24;
/// `KFI_INJECT`.
pub const F_INJECT: u64 = 1 << 25;
/// `KFI_INJECT_COMPLETE`.
pub const F_INJECT_COMPLETE: u64 = 1 << 26;
/// `KFI_TRANSMIT_COMPLETE`.
pub const F_TRANSMIT_COMPLETE: u64 = 1 << 27;
/// `KFI_DELIVERY_COMPLETE`.
pub const F_DELIVERY_COMPLETE: u64 = 1 << 28;
/// `KFI_CLAIM` (tagged receives).
pub const F_CLAIM: u64 = 1 << 59;
/// `KFI_DISCARD` (tagged receives, with `KFI_PEEK` or `KFI_CLAIM`).
pub const F_DISCARD: u64 = 1 << 58;

/// A tagged receive that probes the messages already arrived instead of
/// waiting for one (`KFI_PEEK`, or `KFI_CLAIM` fetching a claimed one).
#[inline]
pub const fn is_probe(flags: u64) -> bool {
    flags & (F_PEEK | F_CLAIM) != 0
}

/// Local segments and remote regions an operation's description holds in
/// place; longer lists live in a table of their own.
pub const IOV_LIMIT: usize = 4;
/// Most local segments and remote regions per operation (`iov_limit`,
/// `rma_iov_limit`): a 1 MiB transfer as 4 KiB pages.
pub const IOV_MAX: usize = 256;
/// Largest inject payload.
pub const INJECT_LIMIT: usize = 128;

/// What a posted operation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Untagged send.
    Send,
    /// Untagged receive.
    Recv,
    /// Tagged send.
    TSend,
    /// Tagged receive.
    TRecv,
    /// RMA read (request, then the peer's response).
    Read,
    /// RMA write.
    Write,
    /// Atomic operation without a result (`kfi_atomic`).
    Atomic,
    /// Atomic operation returning the old value (`kfi_fetch_atomic`).
    FetchAtomic,
    /// Compare atomic (`kfi_compare_atomic`), returning the old value.
    CompareAtomic,
}

impl Kind {
    /// Whether the operation transmits.
    #[inline]
    pub const fn is_tx(self) -> bool {
        !matches!(self, Kind::Recv | Kind::TRecv)
    }

    /// Whether the operation is an RMA.
    #[inline]
    pub const fn is_rma(self) -> bool {
        matches!(self, Kind::Read | Kind::Write)
    }

    /// Whether the operation is an atomic.
    #[inline]
    pub const fn is_atomic(self) -> bool {
        matches!(self, Kind::Atomic | Kind::FetchAtomic | Kind::CompareAtomic)
    }

    /// Whether it reads remote memory into a local buffer (counted on the
    /// `KFI_READ` counter): a read, a fetching or compare atomic.
    #[inline]
    pub const fn reads(self) -> bool {
        matches!(self, Kind::Read | Kind::FetchAtomic | Kind::CompareAtomic)
    }

    /// Whether the operation is tagged.
    #[inline]
    pub const fn is_tagged(self) -> bool {
        matches!(self, Kind::TSend | Kind::TRecv)
    }

    /// The flags of its completion entry (`KFI_SEND | KFI_MSG`, ...).
    #[inline]
    pub const fn cq_flags(self) -> u64 {
        match self {
            Kind::Send => F_SEND | F_MSG,
            Kind::Recv => F_RECV | F_MSG,
            Kind::TSend => F_SEND | F_TAGGED,
            Kind::TRecv => F_RECV | F_TAGGED,
            Kind::Read => F_RMA | F_READ,
            Kind::Write => F_RMA | F_WRITE,
            Kind::Atomic => F_ATOMIC | F_WRITE,
            Kind::FetchAtomic | Kind::CompareAtomic => F_ATOMIC | F_READ,
        }
    }

    /// The flags of the completion entry of an operation of this kind
    /// posted with `flags`: [`Kind::cq_flags`], and for a tagged RMA
    /// `KFI_TAGGED | KFI_RMA | KFI_READ/WRITE | KFI_SEND` (kfilnd accepts
    /// no other).
    #[inline]
    pub const fn entry_flags(self, flags: u64) -> u64 {
        if self.is_rma() && flags & F_TAGGED != 0 {
            self.cq_flags() | F_TAGGED | F_SEND
        } else {
            self.cq_flags()
        }
    }

    /// Flags a `*msg` call of this kind accepts.
    #[inline]
    pub const fn allowed_flags(self) -> u64 {
        // What every transmitting call may ask for. `KFI_FENCE` holds
        // without doing anything: one connection is one ordered byte
        // stream, and its peer serves every request in arrival order, so
        // no operation posted after a fenced one can overtake the ones
        // before it at the target (reads and writes included).
        const TX: u64 = F_COMPLETION
            | F_FENCE
            | F_REMOTE_CQ_DATA
            | F_INJECT
            | F_MORE
            | F_INJECT_COMPLETE
            | F_TRANSMIT_COMPLETE
            | F_DELIVERY_COMPLETE;
        match self {
            Kind::Send => TX | F_MSG | F_SEND,
            Kind::TSend => TX | F_TAGGED | F_SEND,
            // A receive completes once its data is placed, which is all
            // `KFI_TRANSMIT_COMPLETE` asks of one (fi_msg(3)).
            Kind::Recv => F_COMPLETION | F_MULTI_RECV | F_MORE | F_MSG | F_RECV | F_TRANSMIT_COMPLETE,
            // fi_tagged(3): peek, claim and discard, as `kfi_tagged.h`
            // documents them.
            Kind::TRecv => {
                F_COMPLETION | F_MORE | F_TAGGED | F_RECV | F_TRANSMIT_COMPLETE | F_PEEK | F_CLAIM | F_DISCARD
            }
            // `KFI_TAGGED`: a tagged RMA (`KFI_TAGGED_RMA`), whose key is
            // the tag of a receive posted at the target (the provider
            // says whether it does them: `tagged_rma_ok`).
            Kind::Read => F_COMPLETION | F_FENCE | F_MORE | F_RMA | F_READ | F_TAGGED,
            Kind::Write => TX | F_RMA | F_WRITE | F_TAGGED,
            // fi_atomic(3): no remote CQ data on atomics.
            Kind::Atomic => (TX & !F_REMOTE_CQ_DATA) | F_ATOMIC | F_WRITE,
            Kind::FetchAtomic | Kind::CompareAtomic => F_COMPLETION | F_FENCE | F_MORE | F_ATOMIC | F_READ,
        }
    }
}

/// Why a post was refused before anything was queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PostError {
    /// Flags the call does not support (-KFI_EBADFLAGS).
    BadFlags,
    /// More than [`IOV_LIMIT`] iovs, or a bad buffer description (-EINVAL).
    BadIov,
    /// Longer than the largest message, or an inject longer than
    /// [`INJECT_LIMIT`] (-EMSGSIZE).
    TooLong,
}

impl PostError {
    /// Negative errno.
    pub const fn errno(self) -> i32 {
        match self {
            PostError::BadFlags => -260, // KFI_EBADFLAGS
            PostError::BadIov => -22,    // EINVAL
            PostError::TooLong => -90,   // EMSGSIZE
        }
    }
}

/// Checks a post: flags against the kind, iov count, length.
/// `KFI_TRIGGER` is refused here: the trigger engine handles it before.
pub fn check_post(kind: Kind, flags: u64, nseg: usize, len: u64, max_msg: u64) -> Result<(), PostError> {
    if flags & !kind.allowed_flags() != 0 {
        return Err(PostError::BadFlags);
    }
    // Discard says what to do with a peeked or claimed message.
    if flags & F_DISCARD != 0 && !is_probe(flags) {
        return Err(PostError::BadFlags);
    }
    if nseg > IOV_MAX {
        return Err(PostError::BadIov);
    }
    if len > max_msg {
        return Err(PostError::TooLong);
    }
    if flags & F_INJECT != 0 && len > INJECT_LIMIT as u64 {
        return Err(PostError::TooLong);
    }
    Ok(())
}

/// Checks the remote side of an RMA of `local` bytes: 1 to
/// [`IOV_MAX`] regions; a write's payload fits them, a read's response
/// fits the local buffer. Returns the bytes the operation moves (the
/// payload of a write, the regions' total for a read).
pub fn check_rma(kind: Kind, local: u64, rma_lens: &[u64]) -> Result<u64, PostError> {
    let total = rma_lens.iter().try_fold(0u64, |a, &l| a.checked_add(l));
    check_rma_total(kind, local, rma_lens.len(), total)
}

/// [`check_rma`] from the number of regions and their total length
/// (`None`: it overflowed).
pub fn check_rma_total(kind: Kind, local: u64, n_regions: usize, total: Option<u64>) -> Result<u64, PostError> {
    if n_regions == 0 || n_regions > IOV_MAX {
        return Err(PostError::BadIov);
    }
    let total = total.ok_or(PostError::TooLong)?;
    match kind {
        Kind::Write if local <= total => Ok(local),
        Kind::Read if total <= local => Ok(total),
        Kind::Write | Kind::Read => Err(PostError::TooLong),
        // An atomic's operand has as many elements as its remote region
        // (none: `KFI_ATOMIC_READ`); one region.
        k if k.is_atomic() && n_regions == 1 && (local == total || local == 0) => Ok(total),
        k if k.is_atomic() => Err(PostError::BadIov),
        _ => Err(PostError::BadIov),
    }
}

/// Checks the remote side of a tagged RMA (`KFI_TAGGED`, read or
/// write) of `local` bytes: one region (the receive its key names), at
/// least as long as the local buffer (else `BadIov`, -EINVAL, as kcxi).
/// Returns the bytes it moves: the local buffer's.
pub fn check_tagged_rma(local: u64, n_regions: usize, total: Option<u64>) -> Result<u64, PostError> {
    match total {
        Some(t) if n_regions == 1 && local <= t => Ok(local),
        _ => Err(PostError::BadIov),
    }
}

/// Whether a successful operation writes a completion entry: always,
/// unless the CQ was bound with selective completion and the operation
/// lacks `KFI_COMPLETION`; never for the inject calls (`suppress`).
pub const fn writes_entry(selective: bool, flags: u64, suppress: bool) -> bool {
    !suppress && (!selective || flags & F_COMPLETION != 0)
}

/// Tagged receive matching: the bits not ignored are equal.
pub const fn tag_match(want: u64, ignore: u64, tag: u64) -> bool {
    (want & !ignore) == (tag & !ignore)
}

/// Where a message lands in a multi-receive buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Carve {
    /// Offset of the message in the buffer.
    pub offset: u64,
    /// The buffer is released after this message (`KFI_MULTI_RECV` in
    /// its completion).
    pub last: bool,
}

/// Consumption state of a multi-receive buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MultiRecv {
    /// Buffer length.
    pub len: u64,
    /// Bytes consumed.
    pub used: u64,
    /// `KFI_OPT_MIN_MULTI_RECV` of the endpoint when posted.
    pub min: u64,
}

impl MultiRecv {
    /// A fresh buffer of `len` bytes released when less than `min` is
    /// left.
    pub const fn new(len: u64, min: u64) -> MultiRecv {
        MultiRecv { len, used: 0, min }
    }

    /// Bytes left.
    pub const fn left(&self) -> u64 {
        self.len - self.used
    }

    /// Places a message of `n` bytes; `None` if it does not fit (the
    /// message is truncated into what is left, which the caller reports).
    pub fn carve(&mut self, n: u64) -> Option<Carve> {
        if n > self.left() {
            return None;
        }
        let offset = self.used;
        self.used += n;
        Some(Carve {
            offset,
            last: self.left() < self.min.max(1),
        })
    }
}

/// `KFI_ADDR_UNSPEC` (a receive from anyone) and `KFI_ADDR_NOTAVAIL` (a
/// sender with no address handle): the same value in the API.
pub const ADDR_ANY: u64 = u64::MAX;

/// Whether a message from `from` (an address handle, or [`ADDR_ANY`]: not
/// known) may land in a receive with the source filter `filter`
/// (`KFI_DIRECTED_RECV`; [`ADDR_ANY`]: from anyone).
#[inline(always)]
pub fn src_match(filter: u64, from: u64) -> bool {
    filter == ADDR_ANY || filter == from
}

/// Sentinel index: no slot.
pub const NIL: u32 = u32::MAX;

/// A list of slot indices threaded through a shared `next` array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct List {
    head: u32,
    tail: u32,
    len: u32,
}

impl Default for List {
    fn default() -> Self {
        List::new()
    }
}

impl List {
    /// An empty list.
    pub const fn new() -> List {
        List {
            head: NIL,
            tail: NIL,
            len: 0,
        }
    }

    /// Number of slots on the list.
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the list is empty.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first slot.
    #[inline]
    pub fn front(&self) -> Option<usize> {
        (self.head != NIL).then_some(self.head as usize)
    }
}

/// The links of a set of slots: every slot is on at most one list.
/// `S` is the `next` array (one entry per slot).
pub struct Links<S> {
    next: S,
}

impl<S: core::ops::Deref<Target = [u32]> + core::ops::DerefMut> Links<S> {
    /// Links over `next` (its length is the number of slots); every slot
    /// starts on no list.
    pub fn new(next: S) -> Links<S> {
        Links { next }
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.next.len()
    }

    /// A list holding every slot, in index order (the initial free list).
    pub fn all(&mut self) -> List {
        let mut l = List::new();
        for i in 0..self.slots() {
            self.push_back(&mut l, i);
        }
        l
    }

    /// Appends slot `i` (on no list) to `l`.
    #[inline]
    pub fn push_back(&mut self, l: &mut List, i: usize) {
        let i32_ = i as u32;
        self.next[i] = NIL;
        if l.tail == NIL {
            l.head = i32_;
        } else {
            self.next[l.tail as usize] = i32_;
        }
        l.tail = i32_;
        l.len += 1;
    }

    /// Puts slot `i` (on no list) first on `l`. Free lists are used this
    /// way: the slot freed last is taken next, while its memory is warm.
    #[inline]
    pub fn push_front(&mut self, l: &mut List, i: usize) {
        let i32_ = i as u32;
        self.next[i] = l.head;
        if l.tail == NIL {
            l.tail = i32_;
        }
        l.head = i32_;
        l.len += 1;
    }

    /// Removes and returns the first slot of `l`.
    #[inline]
    pub fn pop_front(&mut self, l: &mut List) -> Option<usize> {
        let h = l.front()?;
        l.head = self.next[h];
        if l.head == NIL {
            l.tail = NIL;
        }
        l.len -= 1;
        self.next[h] = NIL;
        Some(h)
    }

    /// Removes and returns the first slot of `l` for which `pred` holds
    /// (list order is kept for the others).
    pub fn remove_first(&mut self, l: &mut List, mut pred: impl FnMut(usize) -> bool) -> Option<usize> {
        let mut prev = NIL;
        let mut cur = l.head;
        while cur != NIL {
            let next = self.next[cur as usize];
            if pred(cur as usize) {
                if prev == NIL {
                    l.head = next;
                } else {
                    self.next[prev as usize] = next;
                }
                if l.tail == cur {
                    l.tail = prev;
                }
                l.len -= 1;
                self.next[cur as usize] = NIL;
                return Some(cur as usize);
            }
            prev = cur;
            cur = next;
        }
        None
    }

    /// The first slot of `l` for which `pred` holds (left on the list).
    pub fn find_first(&self, l: &List, mut pred: impl FnMut(usize) -> bool) -> Option<usize> {
        let mut cur = l.head;
        while cur != NIL {
            if pred(cur as usize) {
                return Some(cur as usize);
            }
            cur = self.next[cur as usize];
        }
        None
    }

    /// Removes slot `i` from `l`; false if it is not on `l`.
    pub fn remove(&mut self, l: &mut List, i: usize) -> bool {
        self.remove_first(l, |j| j == i).is_some()
    }

    /// Calls `f` on every slot of `l`, in order.
    pub fn for_each(&self, l: &List, mut f: impl FnMut(usize)) {
        let mut cur = l.head;
        while cur != NIL {
            f(cur as usize);
            cur = self.next[cur as usize];
        }
    }
}

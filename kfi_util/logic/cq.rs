// SPDX-License-Identifier: GPL-2.0
//! The completion queue's ring: a bounded FIFO of completion records over
//! storage allocated once when the CQ is opened, so that completing an
//! operation never allocates.
//!
//! Reading (libfabric's `fi_cq_read`/`fi_cq_readerr`):
//! - `read` writes up to `out.len() / format.entry_bytes()` entries into the
//!   caller's buffer in the CQ's format and stops before the first error
//!   entry: `Empty` when nothing is queued (-EAGAIN), `ErrorAvail` when an
//!   error entry is at the head (-KFI_EAVAIL), `Invalid` when the buffer
//!   cannot hold one entry (-EINVAL).
//! - `read_err` pops the head only if it is an error entry (`Empty`
//!   otherwise).
//! - Entries come out in the order they went in, errors included.
//!
//! Credits: the CQ holds at most `capacity` entries *queued or promised*.
//! The provider reserves one slot per posted operation at post time
//! (`try_reserve`; refused when the CQ is full, so the post fails with
//! -EAGAIN) and consumes it when the operation completes (`push_reserved`,
//! which therefore always has room) or returns it when no entry will be
//! written (`unreserve`). Completions that were never posted locally (a
//! remote write carrying CQ data, at the target) use `try_push`, which only
//! takes free, unpromised slots; the caller applies back-pressure and
//! retries when it returns `Full`. No completion is ever dropped.
//!
//! Notification ("arming"): the consumer's handler is to be called after a
//! push only while the ring is armed. It is armed when created and whenever
//! a read finds the ring empty, and disarmed by the push that returns
//! [`Notify::Handler`]. So a consumer that drains until -EAGAIN always gets
//! the next call, and is never called again before it has drained.
//!
//! Layouts: entries are written as the x86_64 (LP64) layouts of the C
//! structures `kfi_cq_entry` (8 bytes), `kfi_cq_msg_entry` (24),
//! `kfi_cq_data_entry` (40), `kfi_cq_tagged_entry` (48) and
//! `kfi_cq_err_entry` (80), native byte order; each is a prefix of the
//! next, at the offsets in [`offset`]. The module asserts at compile time
//! that the bindgen types have exactly these sizes and offsets.

/// Bytes of one entry of each format.
pub const CONTEXT_BYTES: usize = 8;
pub const MSG_BYTES: usize = 24;
pub const DATA_BYTES: usize = 40;
pub const TAGGED_BYTES: usize = 48;
/// Bytes of a `kfi_cq_err_entry`.
pub const ERR_BYTES: usize = 80;

/// Field offsets shared by every entry layout (each format is a prefix of
/// the tagged entry, itself a prefix of the error entry).
pub mod offset {
    pub const OP_CONTEXT: usize = 0;
    pub const FLAGS: usize = 8;
    pub const LEN: usize = 16;
    pub const BUF: usize = 24;
    pub const DATA: usize = 32;
    pub const TAG: usize = 40;
    pub const OLEN: usize = 48;
    pub const ERR: usize = 56;
    pub const PROV_ERRNO: usize = 60;
    pub const ERR_DATA: usize = 64;
    pub const ERR_DATA_SIZE: usize = 72;
}

/// `enum kfi_cq_format` values.
pub const FORMAT_UNSPEC: u32 = 0;
pub const FORMAT_CONTEXT: u32 = 1;
pub const FORMAT_MSG: u32 = 2;
pub const FORMAT_DATA: u32 = 3;
pub const FORMAT_TAGGED: u32 = 4;

/// `enum kfi_cq_wait_cond` values.
pub const COND_NONE: u32 = 0;
pub const COND_THRESHOLD: u32 = 1;

/// Queue size when the consumer asks for 0 (the `kgetinfo` queue sizes).
pub const DEFAULT_SIZE: usize = 1024;
/// Largest queue size accepted.
pub const MAX_SIZE: usize = 65536;

/// The number of slots for a requested size: 0 means [`DEFAULT_SIZE`];
/// `None` above [`MAX_SIZE`].
pub fn queue_size(requested: usize) -> Option<usize> {
    match requested {
        0 => Some(DEFAULT_SIZE),
        n if n <= MAX_SIZE => Some(n),
        _ => None,
    }
}

/// The layout of the entries `read` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Context,
    Msg,
    Data,
    Tagged,
}

impl Format {
    /// From a `kfi_cq_format` value; `KFI_CQ_FORMAT_UNSPEC` is `Context`.
    /// `None` for an unknown value.
    pub fn from_raw(v: u32) -> Option<Format> {
        match v {
            FORMAT_UNSPEC | FORMAT_CONTEXT => Some(Format::Context),
            FORMAT_MSG => Some(Format::Msg),
            FORMAT_DATA => Some(Format::Data),
            FORMAT_TAGGED => Some(Format::Tagged),
            _ => None,
        }
    }

    /// Bytes of one entry.
    pub fn entry_bytes(self) -> usize {
        match self {
            Format::Context => CONTEXT_BYTES,
            Format::Msg => MSG_BYTES,
            Format::Data => DATA_BYTES,
            Format::Tagged => TAGGED_BYTES,
        }
    }
}

/// The condition of a blocking read (`kfi_cq_attr.wait_cond`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitCond {
    /// Any entry.
    None,
    /// At least the number of entries passed as the `cond` argument.
    Threshold,
}

impl WaitCond {
    /// From a `kfi_cq_wait_cond` value; `None` for an unknown value.
    pub fn from_raw(v: u32) -> Option<WaitCond> {
        match v {
            COND_NONE => Some(WaitCond::None),
            COND_THRESHOLD => Some(WaitCond::Threshold),
            _ => None,
        }
    }

    /// How many entries a blocking read of up to `count` entries waits
    /// for. With `Threshold`, `cond` is the value of the `cond` pointer (as
    /// libfabric's providers read it: `(void *)(uintptr_t)n`), at least 1
    /// and at most `count`; otherwise 1.
    pub fn threshold(self, cond: usize, count: usize) -> usize {
        match self {
            WaitCond::None => 1,
            WaitCond::Threshold => cond.clamp(1, count.max(1)),
        }
    }
}

/// `KFI_ADDR_NOTAVAIL`: the source `readfrom` reports for an entry
/// without one (transmits, MSG endpoints, a sender not in the AV).
pub const ADDR_NOTAVAIL: u64 = u64::MAX;

/// A successful completion. Pointers (`op_context`, `buf`) are carried as
/// addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub op_context: usize,
    /// `KFI_SEND`, `KFI_RECV`, `KFI_RMA`, ... describing the operation.
    pub flags: u64,
    pub len: usize,
    pub buf: usize,
    /// Remote CQ data (with `KFI_REMOTE_CQ_DATA` in `flags`).
    pub data: u64,
    pub tag: u64,
    /// The sender's address handle (`kfi_cq_readfrom`), else
    /// [`ADDR_NOTAVAIL`]. Not part of any entry layout.
    pub src: u64,
}

impl Default for Completion {
    fn default() -> Self {
        Completion { op_context: 0, flags: 0, len: 0, buf: 0, data: 0, tag: 0, src: ADDR_NOTAVAIL }
    }
}

/// A failed operation (`kfi_cq_err_entry` without the error data).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ErrCompletion {
    pub op_context: usize,
    pub flags: u64,
    pub len: usize,
    pub buf: usize,
    pub data: u64,
    pub tag: u64,
    /// Bytes that did not fit (with `KFI_ETRUNC`).
    pub olen: usize,
    /// Positive kfabric error number (`KFI_ECANCELED`, `KFI_ETRUNC`, ...).
    pub err: i32,
    /// Provider error number, for `kfi_cq_strerror`.
    pub prov_errno: i32,
}

// Stores through fixed-size references (plain stores; `copy_from_slice`
// calls out of line). The offsets are the layout's, within `out`.
fn put_u64(out: &mut [u8], at: usize, v: u64) {
    if let Some(d) = out.get_mut(at..at + 8).and_then(|d| <&mut [u8; 8]>::try_from(d).ok()) {
        *d = v.to_ne_bytes();
    }
}

fn put_i32(out: &mut [u8], at: usize, v: i32) {
    if let Some(d) = out.get_mut(at..at + 4).and_then(|d| <&mut [u8; 4]>::try_from(d).ok()) {
        *d = v.to_ne_bytes();
    }
}

impl Completion {
    /// Writes the entry in `format` into `out`, which holds exactly
    /// `format.entry_bytes()` bytes.
    pub fn encode(&self, format: Format, out: &mut [u8]) {
        put_u64(out, offset::OP_CONTEXT, self.op_context as u64);
        if format == Format::Context {
            return;
        }
        put_u64(out, offset::FLAGS, self.flags);
        put_u64(out, offset::LEN, self.len as u64);
        if format == Format::Msg {
            return;
        }
        put_u64(out, offset::BUF, self.buf as u64);
        put_u64(out, offset::DATA, self.data);
        if format == Format::Data {
            return;
        }
        put_u64(out, offset::TAG, self.tag);
    }
}

impl ErrCompletion {
    /// Writes the entry as a `kfi_cq_err_entry` into `out` (at least
    /// [`ERR_BYTES`] bytes). The provider has no error data: a consumer
    /// that supplied a buffer for it (a non-zero `err_data_size` on entry,
    /// libfabric's rule since API 1.5) keeps its `err_data` pointer, and
    /// learns through `err_data_size` 0 that nothing was copied; otherwise
    /// `err_data` is NULL. Nothing is ever written through `err_data`.
    pub fn encode(&self, out: &mut [u8]) {
        let supplied = out
            .get(offset::ERR_DATA_SIZE..offset::ERR_DATA_SIZE + 8)
            .is_some_and(|b| b.iter().any(|&x| x != 0));
        put_u64(out, offset::OP_CONTEXT, self.op_context as u64);
        put_u64(out, offset::FLAGS, self.flags);
        put_u64(out, offset::LEN, self.len as u64);
        put_u64(out, offset::BUF, self.buf as u64);
        put_u64(out, offset::DATA, self.data);
        put_u64(out, offset::TAG, self.tag);
        put_u64(out, offset::OLEN, self.olen as u64);
        put_i32(out, offset::ERR, self.err);
        put_i32(out, offset::PROV_ERRNO, self.prov_errno);
        if !supplied {
            put_u64(out, offset::ERR_DATA, 0);
        }
        put_u64(out, offset::ERR_DATA_SIZE, 0);
    }
}

/// One queued record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    Done(Completion),
    Failed(ErrCompletion),
}

/// One slot of the ring's storage.
#[derive(Clone, Copy)]
pub struct Slot(Entry);

impl Default for Slot {
    fn default() -> Self {
        Slot(Entry::Done(Completion::default()))
    }
}

/// What the caller must do once it has dropped the CQ's lock after a push.
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notify {
    /// Call the consumer's completion handler (the ring was armed; it is
    /// now disarmed).
    Handler,
    /// Nothing: the consumer has not drained since the last call.
    Quiet,
}

/// `try_push`: no free slot (every slot is queued or reserved).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Full;

/// A reservation was consumed or returned that was never taken (a
/// provider bug; the ring's accounting is left consistent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotReserved;

/// Why a read returned nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// Nothing queued (-EAGAIN); for `read_err`, also: the head is not an
    /// error entry.
    Empty,
    /// The head is an error entry: use `read_err` (-KFI_EAVAIL).
    ErrorAvail,
    /// The buffer cannot hold a single entry (-EINVAL).
    Invalid,
}

impl ReadError {
    /// Negative errno for the C API.
    pub fn errno(self) -> isize {
        match self {
            ReadError::Empty => -11,       // EAGAIN (KFI_EAGAIN)
            ReadError::ErrorAvail => -259, // KFI_EAVAIL
            ReadError::Invalid => -22,     // EINVAL
        }
    }
}

/// The ring over caller-provided storage (`KVVec<Slot>` in the kernel).
///
/// Invariant: `count + reserved <= capacity`; `errors` is the number of
/// `Failed` entries among the `count` queued ones.
pub struct Ring<S> {
    slots: S,
    head: usize,
    count: usize,
    reserved: usize,
    errors: usize,
    armed: bool,
}

impl<S: AsRef<[Slot]> + AsMut<[Slot]>> Ring<S> {
    /// An empty, armed ring using every slot of `slots`.
    pub fn new(slots: S) -> Self {
        Ring { slots, head: 0, count: 0, reserved: 0, errors: 0, armed: true }
    }

    /// Number of slots.
    pub fn capacity(&self) -> usize {
        self.slots.as_ref().len()
    }

    /// Number of queued entries, errors included.
    #[inline]
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when nothing is queued.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Number of queued error entries.
    pub fn errors(&self) -> usize {
        self.errors
    }

    /// Slots promised to operations in flight.
    pub fn reserved(&self) -> usize {
        self.reserved
    }

    /// Slots neither queued nor promised.
    pub fn free(&self) -> usize {
        self.capacity() - self.count - self.reserved
    }

    /// Whether the next push will ask for the handler.
    #[inline]
    pub fn is_armed(&self) -> bool {
        self.armed
    }

    /// Promises `n` slots to operations being posted; false (nothing
    /// promised) when fewer than `n` are free.
    #[inline]
    pub fn try_reserve(&mut self, n: usize) -> bool {
        if n > self.free() {
            return false;
        }
        self.reserved += n;
        true
    }

    /// Returns `n` promised slots (operations that will write no entry).
    /// More than are promised is a bug: all are returned and
    /// `NotReserved` reported.
    #[inline]
    pub fn unreserve(&mut self, n: usize) -> Result<(), NotReserved> {
        if n > self.reserved {
            self.reserved = 0;
            return Err(NotReserved);
        }
        self.reserved -= n;
        Ok(())
    }

    /// Queues the entry of an operation that holds a reservation; always
    /// succeeds then. Without a reservation nothing is queued and
    /// `NotReserved` is returned (the caller may fall back to `try_push`).
    pub fn push_reserved(&mut self, e: Entry) -> Result<Notify, NotReserved> {
        if self.reserved == 0 {
            return Err(NotReserved);
        }
        self.reserved -= 1;
        Ok(self.push(e))
    }

    /// Queues an entry without a reservation, in a free slot.
    pub fn try_push(&mut self, e: Entry) -> Result<Notify, Full> {
        if self.free() == 0 {
            return Err(Full);
        }
        Ok(self.push(e))
    }

    /// Stores `e` in the slot after the last entry; a slot is free or
    /// was reserved (checked by the callers).
    fn push(&mut self, e: Entry) -> Notify {
        let cap = self.capacity();
        let idx = (self.head + self.count) % cap;
        self.slots.as_mut()[idx] = Slot(e);
        self.count += 1;
        if matches!(e, Entry::Failed(_)) {
            self.errors += 1;
        }
        if self.armed {
            self.armed = false;
            Notify::Handler
        } else {
            Notify::Quiet
        }
    }

    fn head_entry(&self) -> Option<Entry> {
        (self.count > 0).then(|| self.slots.as_ref()[self.head].0)
    }

    fn pop(&mut self) {
        if matches!(self.slots.as_ref()[self.head].0, Entry::Failed(_)) {
            self.errors -= 1;
        }
        self.head = (self.head + 1) % self.capacity();
        self.count -= 1;
        if self.count == 0 {
            // Empty: start over at slot 0, so that a consumer that keeps
            // up (one entry at a time) reuses one warm slot.
            self.head = 0;
        }
    }

    /// Writes as many successful entries as fit into `out` (`format`
    /// layout), stopping before an error entry; returns how many. With
    /// `src`, the source of entry `n` goes to `src[n]` (`readfrom`; it
    /// limits the count too). Finding the ring empty arms it.
    pub fn read(&mut self, format: Format, out: &mut [u8], mut src: Option<&mut [u64]>) -> Result<usize, ReadError> {
        let size = format.entry_bytes();
        let mut max = out.len() / size;
        if let Some(s) = &src {
            max = max.min(s.len());
        }
        if max == 0 {
            return Err(ReadError::Invalid);
        }
        if self.count == 0 {
            self.armed = true;
            return Err(ReadError::Empty);
        }
        let mut n = 0;
        while n < max {
            let Some(Entry::Done(c)) = self.head_entry() else {
                break;
            };
            c.encode(format, &mut out[n * size..(n + 1) * size]);
            if let Some(s) = src.as_deref_mut() {
                s[n] = c.src;
            }
            self.pop();
            n += 1;
        }
        if n == 0 {
            return Err(ReadError::ErrorAvail);
        }
        Ok(n)
    }

    /// Pops the head entry if it is an error entry. `Empty` otherwise;
    /// finding the ring empty arms it.
    pub fn read_err(&mut self) -> Result<ErrCompletion, ReadError> {
        match self.head_entry() {
            None => {
                self.armed = true;
                Err(ReadError::Empty)
            }
            Some(Entry::Done(_)) => Err(ReadError::Empty),
            Some(Entry::Failed(e)) => {
                self.pop();
                Ok(e)
            }
        }
    }

    /// Whether a blocking read waiting for `threshold` entries can stop
    /// waiting: that many are queued, or an error entry is (a read could
    /// not get past it anyway).
    pub fn ready(&self, threshold: usize) -> bool {
        self.errors > 0 || self.count >= threshold.max(1)
    }
}

// SPDX-License-Identifier: GPL-2.0
//! The event queue's ring: a bounded FIFO of fixed-size slots, allocated
//! once when the EQ is opened, so that pushing an event (from a connection's
//! work item) never allocates.
//!
//! Semantics (libfabric's `fi_eq_read`/`fi_eq_readerr`):
//! - `read` copies the head entry if it is a normal event: `Empty` when there
//!   is none (-EAGAIN), `ErrorAvail` when the head is an error entry
//!   (-KFI_EAVAIL), `TooSmall` when the caller's buffer cannot hold it
//!   (-KFI_ETOOSMALL; the entry stays). With `peek` the entry stays.
//! - `read_err` pops the head only if it is an error entry.
//! - entries come out in the order they went in, errors included.
//! - a slot can be reserved ahead of the event that will fill it
//!   (`reserve`, then `push_reserved` or `unreserve`): other pushes see the
//!   ring full while every free slot is reserved, so the reserved event is
//!   never lost. Asynchronous memory registration reserves the slot of its
//!   `KFI_MR_COMPLETE` before it registers anything.

/// Bytes one slot holds: the largest entry, a `kfi_eq_cm_entry` (two
/// pointers) with 256 bytes of connection data.
pub const SLOT_BYTES: usize = 16 + 256;

/// One queued event.
#[derive(Clone, Copy)]
pub struct Slot {
    event: u32,
    error: bool,
    len: u16,
    data: [u8; SLOT_BYTES],
}

impl Default for Slot {
    fn default() -> Self {
        Slot { event: 0, error: false, len: 0, data: [0; SLOT_BYTES] }
    }
}

/// Why a push failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushError {
    /// Every slot is taken (-EAGAIN for `kfi_eq_write`; the provider
    /// sizes its queue so that its own events always fit).
    Full,
    /// The entry is larger than a slot (-EINVAL).
    TooLarge,
}

/// Why a read returned nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// No entry (-EAGAIN).
    Empty,
    /// The head is an error entry: use `read_err` (-KFI_EAVAIL).
    ErrorAvail,
    /// The caller's buffer is smaller than the entry (-KFI_ETOOSMALL).
    TooSmall,
}

impl ReadError {
    /// Negative errno for the C API.
    pub fn errno(self) -> isize {
        match self {
            ReadError::Empty => -11,       // EAGAIN
            ReadError::ErrorAvail => -259, // KFI_EAVAIL
            ReadError::TooSmall => -257,   // KFI_ETOOSMALL
        }
    }
}

/// The ring over caller-provided storage (`KVec<Slot>` in the kernel).
pub struct Ring<S> {
    slots: S,
    head: usize,
    count: usize,
    /// Free slots promised to events not pushed yet.
    reserved: usize,
}

impl<S: AsRef<[Slot]> + AsMut<[Slot]>> Ring<S> {
    /// A ring using every slot of `slots`.
    pub fn new(slots: S) -> Self {
        Ring { slots, head: 0, count: 0, reserved: 0 }
    }

    /// Number of queued entries.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Number of slots.
    pub fn capacity(&self) -> usize {
        self.slots.as_ref().len()
    }

    /// Number of reserved slots.
    pub fn reserved(&self) -> usize {
        self.reserved
    }

    /// Promises a free slot to an event pushed later with
    /// [`Ring::push_reserved`] (or given back with [`Ring::unreserve`]).
    pub fn reserve(&mut self) -> Result<(), PushError> {
        if self.count + self.reserved == self.capacity() {
            return Err(PushError::Full);
        }
        self.reserved += 1;
        Ok(())
    }

    /// Gives back a slot reserved by [`Ring::reserve`].
    pub fn unreserve(&mut self) {
        self.reserved = self.reserved.saturating_sub(1);
    }

    /// Queues an entry into a slot reserved by [`Ring::reserve`]: fails
    /// only with `TooLarge` (the reservation is then kept), or `Full` if
    /// nothing was reserved.
    pub fn push_reserved(&mut self, event: u32, error: bool, bytes: &[u8]) -> Result<(), PushError> {
        if bytes.len() > SLOT_BYTES {
            return Err(PushError::TooLarge);
        }
        if self.reserved == 0 {
            return Err(PushError::Full);
        }
        self.reserved -= 1;
        self.put(event, error, bytes);
        Ok(())
    }

    /// Queues an entry (event number, error flag, bytes) into a slot that
    /// is neither taken nor reserved.
    pub fn push(&mut self, event: u32, error: bool, bytes: &[u8]) -> Result<(), PushError> {
        if bytes.len() > SLOT_BYTES {
            return Err(PushError::TooLarge);
        }
        if self.count + self.reserved == self.capacity() {
            return Err(PushError::Full);
        }
        self.put(event, error, bytes);
        Ok(())
    }

    /// Writes the next slot (room and size checked by the caller).
    fn put(&mut self, event: u32, error: bool, bytes: &[u8]) {
        let cap = self.capacity();
        let idx = (self.head + self.count) % cap;
        let s = &mut self.slots.as_mut()[idx];
        s.event = event;
        s.error = error;
        s.len = bytes.len() as u16;
        s.data[..bytes.len()].copy_from_slice(bytes);
        self.count += 1;
    }

    fn head(&self) -> Option<&Slot> {
        (self.count > 0).then(|| &self.slots.as_ref()[self.head])
    }

    fn pop(&mut self) {
        let cap = self.capacity();
        self.head = (self.head + 1) % cap;
        self.count -= 1;
    }

    /// Reads the head entry into `out` if it is a normal event; returns its
    /// event number and length.
    pub fn read(&mut self, out: &mut [u8], peek: bool) -> Result<(u32, usize), ReadError> {
        let s = self.head().ok_or(ReadError::Empty)?;
        if s.error {
            return Err(ReadError::ErrorAvail);
        }
        let n = usize::from(s.len);
        let dst = out.get_mut(..n).ok_or(ReadError::TooSmall)?;
        dst.copy_from_slice(&s.data[..n]);
        let ev = s.event;
        if !peek {
            self.pop();
        }
        Ok((ev, n))
    }

    /// Reads the head entry into `out` if it is an error entry; returns its
    /// length. `Empty` when the head is not an error (or nothing queued).
    pub fn read_err(&mut self, out: &mut [u8], peek: bool) -> Result<usize, ReadError> {
        let s = self.head().ok_or(ReadError::Empty)?;
        if !s.error {
            return Err(ReadError::Empty);
        }
        let n = usize::from(s.len);
        let dst = out.get_mut(..n).ok_or(ReadError::TooSmall)?;
        dst.copy_from_slice(&s.data[..n]);
        if !peek {
            self.pop();
        }
        Ok(n)
    }
}

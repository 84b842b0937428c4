// SPDX-License-Identifier: GPL-2.0
//! A `core::fmt::Write` sink over a caller's byte buffer.
//!
//! Output that does not fit is cut and remembered as truncated; one byte is
//! always kept for the terminating NUL, so the buffer is a valid C string
//! whatever happens.

use core::fmt;

/// Writes into `buf`, never past its end.
pub struct BufWriter<'a> {
    buf: &'a mut [u8],
    len: usize,
    truncated: bool,
}

impl<'a> BufWriter<'a> {
    /// A writer over `buf`; an empty buffer accepts nothing.
    pub fn new(buf: &'a mut [u8]) -> Self {
        if let Some(b) = buf.first_mut() {
            *b = 0;
        }
        Self { buf, len: 0, truncated: false }
    }

    /// Bytes written so far, without the NUL.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True if some output was cut.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// The text written so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl fmt::Write for BufWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = self.buf.len().saturating_sub(self.len + 1);
        let n = s.len().min(room);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        if let Some(b) = self.buf.get_mut(self.len) {
            *b = 0;
        }
        if n < s.len() {
            self.truncated = true;
            return Err(fmt::Error);
        }
        Ok(())
    }
}

/// Counts the bytes a formatting would produce (for sizing an allocation).
#[derive(Default)]
pub struct Counter(pub usize);

impl fmt::Write for Counter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

// SPDX-License-Identifier: GPL-2.0
//! The private data of rdma_cm connection requests, replies and rejects,
//! as libfabric 1.17's verbs provider lays it out (`struct
//! vrb_cm_data_hdr`: one length byte, then the application's CM data), so
//! that kernel endpoints and userspace libfabric verbs peers understand
//! each other; and the provider's own trailer after it, by which two
//! kfi_verbs endpoints agree on their wire mode (Documentation/
//! verbs-plan.md §4.7; libfabric reads the length byte and ignores what
//! follows the data). Kernel-independent (host crate `kfi-verbs-logic`).

/// Private data sent (header, application data, trailer): it fits an
/// InfiniBand REQ (92 bytes less the 36-byte rdma_cm header) and an iWARP
/// MPA request.
pub const TOTAL: usize = 56;
/// The length byte.
const HDR: usize = 1;
/// The trailer: `'k' 'v'`, version, mode.
const TRAILER: usize = 4;
const MAGIC: [u8; 2] = *b"kv";
const TRAILER_VERSION: u8 = 1;

/// Largest application CM data (`KFI_OPT_CM_DATA_SIZE`) of an endpoint
/// that sends no trailer (libfabric's `VERBS_CM_DATA_SIZE`).
pub const APP_MAX: usize = TOTAL - HDR;
/// The same with the trailer.
pub const APP_MAX_TRAILER: usize = TOTAL - HDR - TRAILER;

/// The wire mode of a connection (`ep_attr->protocol_version`): direct
/// (libfabric-compatible, no trailer) or soft (kernel peers only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every receive is the consumer's buffer on the receive queue.
    Direct,
    /// Headers, bounce buffers, tag matching (kfi_verbs peers only).
    Soft,
}

impl Mode {
    fn code(self) -> u8 {
        match self {
            Mode::Direct => 1,
            Mode::Soft => 2,
        }
    }

    fn of(code: u8) -> Option<Mode> {
        match code {
            1 => Some(Mode::Direct),
            2 => Some(Mode::Soft),
            _ => None,
        }
    }
}

/// Why private data could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmDataError {
    /// More application data than the limit (`-EINVAL`).
    TooLong,
}

/// Writes the private data for `app` (with a trailer naming `mode` when
/// given) into `out`; returns its length. Errors if `app` is longer than
/// [`APP_MAX`] (no trailer) or [`APP_MAX_TRAILER`].
pub fn encode(app: &[u8], trailer: Option<Mode>, out: &mut [u8; TOTAL]) -> Result<usize, CmDataError> {
    let max = if trailer.is_some() { APP_MAX_TRAILER } else { APP_MAX };
    if app.len() > max {
        return Err(CmDataError::TooLong);
    }
    out[0] = app.len() as u8;
    out[HDR..HDR + app.len()].copy_from_slice(app);
    let mut n = HDR + app.len();
    if let Some(m) = trailer {
        out[n..n + TRAILER].copy_from_slice(&[MAGIC[0], MAGIC[1], TRAILER_VERSION, m.code()]);
        n += TRAILER;
    }
    Ok(n)
}

/// What a peer's private data says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded<'a> {
    /// The application's CM data.
    pub app: &'a [u8],
    /// The peer's mode if it sent a trailer (a kfi_verbs peer), else
    /// `None` (libfabric, or a peer that sent nothing).
    pub mode: Option<Mode>,
}

/// Reads a peer's private data (`pdata` as received: transports pad it,
/// so its length says nothing). The application data is as long as the
/// length byte says, cut to what arrived; a trailer is recognised only
/// right after it. Empty private data is no data.
pub fn decode(pdata: &[u8]) -> Decoded<'_> {
    let Some((&len, rest)) = pdata.split_first() else {
        return Decoded { app: &[], mode: None };
    };
    let len = (len as usize).min(rest.len());
    let (app, after) = rest.split_at(len);
    let mode = match after {
        [a, b, TRAILER_VERSION, m, ..] if [*a, *b] == MAGIC => Mode::of(*m),
        _ => None,
    };
    Decoded { app, mode }
}

// SPDX-License-Identifier: GPL-2.0
//! `kfi_strerror`: error number to constant text.
//!
//! The text is a `'static` C string, so the exported function needs no buffer
//! and is safe to call from any context and any number of threads at once
//! (upstream formatted into one static buffer).

use core::ffi::CStr;

/// Linux errno values (asm-generic numbering, used by x86 and arm64) paired
/// with their text. The module checks the numbers against the kernel's own
/// headers at compile time (`rust/abi_check.rs`).
pub const LINUX: &[(i32, &CStr)] = &[
    (1, c"Operation not permitted"),
    (2, c"No such file or directory"),
    (4, c"Interrupted system call"),
    (5, c"Input/output error"),
    (6, c"No such device or address"),
    (7, c"Argument list too long"),
    (9, c"Bad file descriptor"),
    (11, c"Resource temporarily unavailable"),
    (12, c"Cannot allocate memory"),
    (13, c"Permission denied"),
    (14, c"Bad address"),
    (16, c"Device or resource busy"),
    (17, c"File exists"),
    (19, c"No such device"),
    (22, c"Invalid argument"),
    (24, c"Too many open files"),
    (28, c"No space left on device"),
    (32, c"Broken pipe"),
    (34, c"Numerical result out of range"),
    (38, c"Function not implemented"),
    (42, c"No message of desired type"),
    (61, c"No data available"),
    (62, c"Timer expired"),
    (71, c"Protocol error"),
    (74, c"Bad message"),
    (75, c"Value too large for defined data type"),
    (90, c"Message too long"),
    (92, c"Protocol not available"),
    (95, c"Operation not supported"),
    (98, c"Address already in use"),
    (99, c"Cannot assign requested address"),
    (100, c"Network is down"),
    (101, c"Network is unreachable"),
    (103, c"Software caused connection abort"),
    (104, c"Connection reset by peer"),
    (105, c"No buffer space available"),
    (106, c"Transport endpoint is already connected"),
    (107, c"Transport endpoint is not connected"),
    (108, c"Cannot send after transport endpoint shutdown"),
    (110, c"Connection timed out"),
    (111, c"Connection refused"),
    (113, c"No route to host"),
    (114, c"Operation already in progress"),
    (115, c"Operation now in progress"),
    (121, c"Remote I/O error"),
    (125, c"Operation canceled"),
    (129, c"Key was rejected by service"),
];

/// kfabric's extended codes, `KFI_EOTHER` (256) to `KFI_EOVERRUN` (268).
pub const EXTENDED: &[(i32, &CStr)] = &[
    (256, c"Unspecified error"),
    (257, c"Provided buffer is too small"),
    (258, c"Operation not permitted in current state"),
    (259, c"Error available"),
    (260, c"Flags not supported"),
    (261, c"Missing or unavailable event queue"),
    (262, c"Invalid resource domain"),
    (263, c"Missing or unavailable completion queue"),
    (264, c"CRC error"),
    (265, c"Truncation error"),
    (266, c"Required key not available"),
    (267, c"Missing or unavailable address vector"),
    (268, c"Queue has been overrun"),
];

/// Text for `KFI_SUCCESS`.
pub const SUCCESS: &CStr = c"Success";
/// Text for a number neither table knows.
pub const UNKNOWN: &CStr = c"Unknown error";

/// Returns the text for `errnum`; the sign is ignored (callers pass both the
/// negative return values and the positive `err` of CQ error entries).
pub fn strerror(errnum: i32) -> &'static CStr {
    let e = errnum.unsigned_abs();
    if e == 0 {
        return SUCCESS;
    }
    LINUX
        .iter()
        .chain(EXTENDED.iter())
        .find(|(n, _)| n.unsigned_abs() == e)
        .map(|(_, s)| *s)
        .unwrap_or(UNKNOWN)
}

// SPDX-License-Identifier: GPL-2.0
//! Names and sizes of the verbs provider's kfi_getinfo entries.

use kfi_verbs_logic::info::{fabric_name, queue_size, QUEUE_SIZE};

fn name(iwarp: bool, prefix: u64) -> String {
    let mut s = String::new();
    fabric_name(&mut s, iwarp, prefix).unwrap();
    s
}

#[test]
fn fabric_names_as_libfabric_gives_them() {
    // rxe's GID 0 is the link-local fe80::/64 (what `fi_info -p verbs`
    // prints in the guest, tests/guest/rdma.sh).
    assert_eq!(name(false, 0xfe80_0000_0000_0000), "IB-0xfe80000000000000");
    // PRIx64: no leading zeros, lower case.
    assert_eq!(name(false, 0x00ab_cdef), "IB-0xabcdef");
    assert_eq!(name(false, 0), "IB-0x0");
    // iWARP devices share one name whatever their GID.
    assert_eq!(name(true, 0xfe80_0000_0000_0000), "Ethernet-iWARP");
    assert_eq!(name(true, 0), "Ethernet-iWARP");
}

#[test]
fn queue_sizes_keep_one_request_for_the_drain() {
    assert_eq!(queue_size(0), 0);
    assert_eq!(queue_size(1), 0);
    assert_eq!(queue_size(2), 1);
    assert_eq!(queue_size(1025), QUEUE_SIZE);
    assert_eq!(queue_size(1024), 1023);
    // rxe and siw allow far more.
    assert_eq!(queue_size(u32::MAX), QUEUE_SIZE);
}

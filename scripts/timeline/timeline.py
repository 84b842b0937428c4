#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Timeline of ping-pong transfers from kfi_tcp's trace ring (timeline.sh).

  timeline.py TRACE.bin...

Each file is a dump of the ring of kfi_tcp_tr() (kfi_tcp/kfi_tcp_trace.h):
16-byte records (u64 ns, u16 point, u16 cpu, u32 pad). The records are
sorted by time and cut into windows, one per client send (from one client
PP_TX to the next, i.e. one round trip). In every window each point's
first, second... occurrence is timed from the window's start; the report
lists, per occurrence, the median of those times, the step from the line
before, where it ran ('client' is the CPU of the client's send) and in how
many windows it was seen. Occurrences seen in fewer than a fifth of the
windows are left out.
"""
import collections
import statistics
import struct
import sys

NAMES = {
    1: 'pingpong: send starts',
    2: 'pingpong: send done',
    3: 'pingpong: message received',
    10: 'socket: data_ready',
    11: 'send: takes the socket',
    12: 'send: tcp_sendmsg_locked() returned',
    13: 'send: socket let go (softirqs ran)',
    14: 'recv: takes the socket',
    15: 'recv: tcp_read_sock() returned',
    16: 'recv: socket let go',
    20: 'post: starts',
    21: 'post: returns',
    22: 'poll: takes the connection\'s event',
    23: 'call: starts moving data',
    24: 'CQ: completion queued',
    25: 'CQ: read returns it',
    26: 'rx: header decoded',
    27: 'rx: receive matched',
    28: 'rx: payload in',
}
SERVER = 0x80
PP_TX = 1


def load(path):
    data = open(path, 'rb').read()
    recs = [struct.unpack_from('<QHH', data, o) for o in range(0, len(data) - 15, 16)]
    return sorted(r for r in recs if r[0])


def name(point):
    who = 'server ' if point & SERVER else ''
    base = point & ~SERVER
    return who + NAMES.get(base, f'point {base}')


def report(path):
    recs = load(path)
    starts = [i for i, r in enumerate(recs) if r[1] == PP_TX]
    if len(starts) < 3:
        print(f'== {path}: too few client sends ({len(starts)})')
        return
    times = collections.defaultdict(list)
    where = collections.defaultdict(collections.Counter)
    lengths = []
    for a, b in zip(starts, starts[1:]):
        t0, cpu0 = recs[a][0], recs[a][2]
        lengths.append(recs[b][0] - t0)
        seen = collections.Counter()
        for ns, point, cpu in recs[a:b]:
            seen[point] += 1
            key = (point, seen[point])
            times[key].append(ns - t0)
            where[key]['client' if cpu == cpu0 else 'other'] += 1
    windows = len(starts) - 1
    srt = sorted(lengths)
    print(f'== {path}: {windows} round trips, median {srt[windows // 2] / 1000:.2f} us, '
          f'mean {sum(srt) / windows / 1000:.2f}, p99 {srt[int(windows * 0.99)] / 1000:.2f}')
    print(f'  {"at us":>8} {"step":>7}  {"cpu":6}  point')
    rows = sorted((statistics.median(v), k) for k, v in times.items()
                  if len(v) >= windows / 5)
    prev = 0
    for med, key in rows:
        point, nth = key
        cpu = where[key].most_common(1)[0][0]
        seen = 100 * len(times[key]) / windows
        label = name(point) + (f' (#{nth})' if nth > 1 else '')
        extra = f'  [{seen:.0f}% of round trips]' if seen < 99 else ''
        print(f'  {med / 1000:8.2f} {(med - prev) / 1000:7.2f}  {cpu:6}  {label}{extra}')
        prev = med
    stalls(recs, starts)


def stalls(recs, starts, slow=200000):
    """Round trips over SLOW ns: between which two points their longest gap was."""
    gaps = collections.Counter()
    total = collections.Counter()
    for a, b in zip(starts, starts[1:]):
        if recs[b][0] - recs[a][0] < slow:
            continue
        i = max(range(a, b), key=lambda k: recs[k + 1][0] - recs[k][0])
        cpu0 = recs[a][2]
        key = (name(recs[i][1]), 'client' if recs[i][2] == cpu0 else 'other',
               name(recs[i + 1][1]), 'client' if recs[i + 1][2] == cpu0 else 'other')
        gaps[key] += 1
        total[key] += recs[i + 1][0] - recs[i][0]
    n = sum(gaps.values())
    print(f'  round trips over {slow / 1000:.0f} us: {n}; their longest gap, most common first:')
    for key, k in gaps.most_common(5):
        print(f'    {k:5d} x {total[key] / k / 1000:7.1f} us  after {key[0]} ({key[1]}),'
              f' before {key[2]} ({key[3]})')


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    for path in sys.argv[1:]:
        report(path)
    return 0


if __name__ == '__main__':
    sys.exit(main())

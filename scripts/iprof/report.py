#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of an iprof run (scripts/iprof.sh): what ran between two snapshots.

  report.py --syms KALLSYMS --from SNAP --to SNAP --per N [--top 40]
            [--focus SYMBOL] [--ko FILE.ko ...]

Prints per unit of work (N: messages or transfers) the kernel's translated
blocks executed and instructions, by instruction class, by module and by
function (blocks are attributed to the symbol they start in). --focus lists
the blocks of the functions whose name contains SYMBOL; --ko lists the call
sites of memcpy/memset in a module (with the size when it is a constant),
by how often they ran: large copies of provider state show up there.
"""
import argparse
import bisect
import collections
import re
import subprocess
import sys


def load_snap(path):
    """{vaddr: (insns, execs, {class: n})}, user instructions."""
    blocks, user = {}, 0
    with open(path) as f:
        for line in f:
            p = line.split()
            if p[0] == 'user':
                user = int(p[1])
                continue
            va, n, c = int(p[0], 16), int(p[1]), int(p[2])
            cls = dict(kv.split('=') for kv in p[3:])
            old = blocks.get(va)
            if old:  # the same address translated again: add up
                c += old[1]
            blocks[va] = (n, c, {k: int(v) for k, v in cls.items()})
    return blocks, user


def load_syms(path):
    syms = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 3 or p[1] in 'aAuU':
                continue
            a = int(p[0], 16)
            if a:
                syms.append((a, p[2], p[3].strip('[]') if len(p) > 3 else 'vmlinux'))
    syms.sort()
    return syms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--syms', required=True)
    ap.add_argument('--from', dest='a', required=True)
    ap.add_argument('--to', dest='b', required=True)
    ap.add_argument('--per', type=float, required=True)
    ap.add_argument('--top', type=int, default=40)
    ap.add_argument('--focus')
    ap.add_argument('--ko', action='append', default=[])
    o = ap.parse_args()

    a, ua = load_snap(o.a)
    b, ub = load_snap(o.b)
    syms = load_syms(o.syms)
    addrs = [s[0] for s in syms]
    per = o.per

    tot = collections.Counter()
    fn_ex, fn_in = collections.Counter(), collections.Counter()
    mod_ex, mod_in = collections.Counter(), collections.Counter()
    blk = {}
    for va, (n, c, cls) in b.items():
        d = c - a.get(va, (0, 0, {}))[1]
        if d <= 0:
            continue
        i = bisect.bisect_right(addrs, va) - 1
        name, mod = (syms[i][1], syms[i][2]) if i >= 0 else ('?', '?')
        off = va - syms[i][0] if i >= 0 else va
        tot['blocks'] += d
        tot['insns'] += d * n
        for k, v in cls.items():
            tot[k] += d * v
        fn_ex[(name, mod)] += d
        fn_in[(name, mod)] += d * n
        mod_ex[mod] += d
        mod_in[mod] += d * n
        blk[va] = (name, mod, off, n, d)

    print(f'per unit of work (÷ {per:g}): kernel blocks {tot["blocks"] / per:.0f}, '
          f'instructions {tot["insns"] / per:.0f}; userspace instructions '
          f'{(ub - ua) / per:.0f}')
    print('instruction classes: ' + ', '.join(
        f'{k} {tot[k] / per:.1f}' for k in sorted(tot) if k not in ('blocks', 'insns')))
    print('\nby module:             blocks  instructions')
    for m, v in mod_ex.most_common():
        print(f'  {m:20s} {v / per:8.0f} {mod_in[m] / per:13.0f}')
    print(f'\ntop {o.top} functions:  blocks  instructions  (blocks started in them)')
    for (name, mod), v in fn_ex.most_common(o.top):
        where = '' if mod == 'vmlinux' else f' [{mod}]'
        print(f'  {v / per:8.1f} {fn_in[(name, mod)] / per:9.0f}  {name[:100]}{where}')
    if o.focus:
        print(f'\nblocks of *{o.focus}*: offset, instructions, runs per unit')
        rows = [r for r in blk.values() if o.focus in r[0]]
        rows.sort(key=lambda r: -r[3] * r[4])
        for name, mod, off, n, d in rows[:40]:
            print(f'  {name[:60]}+{off:#x} n={n} runs={d / per:.2f}')
    for ko in o.ko:
        call_sites(ko, syms, a, b, per)


def call_sites(ko, syms, a, b, per):
    """memcpy/memset calls of module KO, by runs per unit: the block that
    starts at the return address runs once per call."""
    mod = re.sub(r'\.ko$', '', ko.split('/')[-1])
    run = {name: addr for addr, name, m in syms if m == mod}
    try:
        dis = subprocess.run(['objdump', '-dr', '--no-show-raw-insn', ko],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f'\n{ko}: objdump failed: {e}', file=sys.stderr)
        return
    rows = []
    fn = base = fnaddr = prev = None
    size = '?'
    for line in dis.splitlines():
        m = re.match(r'^([0-9a-f]+) <(.*)>:$', line)
        if m:
            fnaddr, fn = int(m.group(1), 16), m.group(2)
            base, size = run.get(fn), '?'
            continue
        if 'R_X86' not in line:
            m = re.match(r'^\s+([0-9a-f]+):\s', line)
            if m:
                prev = int(m.group(1), 16)
            m = re.search(r'mov\s+\$(0x[0-9a-f]+),%edx', line)
            if m:
                size = int(m.group(1), 16)
            continue
        m = re.search(r'R_X86_64_PLT32\s+(memcpy|memset)', line)
        if m and base is not None and prev is not None:
            ret = base + (prev - fnaddr) + 5  # a call is 5 bytes
            d = b.get(ret, (0, 0))[1] - a.get(ret, (0, 0))[1]
            if d > 0:
                rows.append((d / per, m.group(1), size, fn, prev - fnaddr))
            size = '?'
    print(f'\n{mod}: memcpy/memset calls per unit (size when constant)')
    for r, what, size, fn, off in sorted(rows, key=lambda r: -r[0])[:30]:
        print(f'  {r:6.2f} {what} {size} {fn[:90]}+{off:#x}')


if __name__ == '__main__':
    main()

# SPDX-License-Identifier: LGPL-2.1-or-later
"""What one subprocess.run() costs from a small and from a large parent.

    spawn_cost.py [-n CALLS] [-r ROUNDS] [--fds N] [--mem MIB] [PROGRAM]

The parent first opens N more descriptors (of /dev/null) or touches MIB
mebibytes of memory, then times CALLS calls of subprocess.run([PROGRAM])
(/bin/true by default) with CPython's own fork_exec() ("stock", which
vforks), with pidspawn.install() ("dropin") and with a pidspawn.Template
of PROGRAM ("template": Template.popen(), then wait()), taking turns in
ROUNDS rounds, all in this one process: the parent is the same for each.
Prints what it measures, then for each way the microseconds a call (the mean over all rounds)
and its ratio to stock, then how many of 20 more drop-in calls, traced
(PIDSPAWN_TRACE), went native: "way us ratio" lines, then "native N/M".
"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import pidspawn


def large_parent(fds, mib):
    """Open @fds descriptors and touch @mib MiB; keep them until exit."""
    held = []
    if fds:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = fds + 64
        if soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE,
                               (want, max(hard, want)))
        held.extend(os.open("/dev/null", os.O_RDONLY) for _ in range(fds))
    if mib:
        mem = bytearray(mib << 20)
        for i in range(0, len(mem), 4096):
            mem[i] = 1
        held.append(mem)
    return held


def timed(calls, one):
    t0 = time.perf_counter()
    for _ in range(calls):
        one()
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", "--calls", type=int, default=200)
    ap.add_argument("-r", "--rounds", type=int, default=3)
    ap.add_argument("--fds", type=int, default=0)
    ap.add_argument("--mem", type=int, default=0, metavar="MIB")
    ap.add_argument("program", nargs="?", default="/bin/true")
    args = ap.parse_args()

    held = large_parent(args.fds, args.mem)
    argv = [args.program]
    template = pidspawn.Template(args.program)

    def run():
        subprocess.run(argv, check=True)

    def from_template():
        if template.popen(argv).wait():
            raise RuntimeError(f"{args.program} failed")

    def stock():
        pidspawn.uninstall()
        run()

    def dropin():
        pidspawn.install()
        run()

    print(f"subprocess.run([{args.program!r}]) from a parent with"
          f" {args.fds} more fds and {args.mem} MiB touched:"
          f" {args.calls} calls x {args.rounds} rounds (us a call, ratio to stock)")
    ways = {"stock": stock, "dropin": dropin, "template": from_template}
    total = dict.fromkeys(ways, 0.0)
    for _ in range(args.rounds):
        for name, one in ways.items():
            one()       # warm: the first call loads and caches
            total[name] += timed(args.calls, one)
    # Which way the drop-in went, out of the timed calls: the trace
    # writes a line a call.
    with tempfile.NamedTemporaryFile("r") as trace:
        os.environ["PIDSPAWN_TRACE"] = trace.name
        timed(20, dropin)
        del os.environ["PIDSPAWN_TRACE"]
        lines = trace.read().splitlines()
    pidspawn.uninstall()
    n = args.calls * args.rounds
    for name in ways:
        us = total[name] / n * 1e6
        print(f"{name} {us:.1f} {total[name] / total['stock']:.3f}")
    native = sum(": native:" in line for line in lines)
    print(f"native {native}/{len(lines)}")
    del held
    return 0


if __name__ == "__main__":
    sys.exit(main())

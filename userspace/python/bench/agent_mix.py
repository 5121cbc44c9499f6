# SPDX-License-Identifier: LGPL-2.1-or-later
"""The seed RFC's harness shape: an asyncio agent runtime's tool calls.

    agent_mix.py -w WORKERS -t INFLIGHT -n CALLS -d DIR -m MODE -l TOOLS

WORKERS processes (this script with --worker) each keep INFLIGHT tool
calls in flight with asyncio.create_subprocess_exec(), stdout and stderr
on a pipe that communicate() drains, as an agent runtime's tool calls
are made; CALLS calls in all, taken in turn from TOOLS (the output of
demo/agent-mix -l: a call a line, its arguments separated by tabs, so
that this harness and the C one run the same mix).  MODE is how
subprocess creates the children:

    stock      CPython's own _posixsubprocess.fork_exec()
    dropin     pidspawn.install()
    templates  pidspawn.install() with PIDSPAWN_TEMPLATES=1

The clock runs from the moment every worker has imported, set up and said
it is ready to the moment the last is done, so interpreter start-up is
not counted.  The children get the environment without PIDSPAWN_*,
LD_PRELOAD and PYTHONPATH, the same in every mode.  Prints
"CALLS SECONDS FAILED" as demo/agent-mix does.
"""

import argparse
import os
import subprocess
import sys
import time


def child_environment():
    return {k: v for k, v in os.environ.items()
            if not k.startswith("PIDSPAWN_")
            and k not in ("LD_PRELOAD", "PYTHONPATH")}


def worker(args):
    """Run the calls index, index + workers, ... with INFLIGHT in flight."""
    import asyncio

    if args.mode != "stock":
        import pidspawn
        pidspawn.install()
    with open(args.tools) as f:
        tools = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    env = child_environment()
    mine = iter(range(args.index, args.calls, args.workers))
    failed = 0

    async def call(argv):
        p = await asyncio.create_subprocess_exec(
            *argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            env=env, cwd=args.dir)
        await p.communicate()
        return p.returncode

    async def inflight():
        nonlocal failed
        for i in mine:
            try:
                if await call(tools[i % len(tools)]):
                    failed += 1
            except OSError as e:
                print(f"agent_mix: {tools[i % len(tools)][0]}: {e}",
                      file=sys.stderr)
                failed += 1

    async def main():
        await asyncio.gather(*(inflight() for _ in range(args.inflight)))

    print("ready", flush=True)
    sys.stdin.readline()
    asyncio.run(main())
    print(failed, flush=True)


def driver(args):
    env = dict(os.environ)
    env.pop("PIDSPAWN_TEMPLATES", None)
    if args.mode == "templates":
        env["PIDSPAWN_TEMPLATES"] = "1"
    common = ["-w", str(args.workers), "-t", str(args.inflight),
              "-n", str(args.calls), "-d", args.dir, "-m", args.mode,
              "-l", args.tools]
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", str(i)]
                              + common, env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
             for i in range(args.workers)]
    for p in procs:
        if p.stdout.readline() != "ready\n":
            sys.exit("agent_mix: a worker did not start")
    t0 = time.monotonic()
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    failed = 0
    for p in procs:
        line = p.stdout.readline()
        failed += int(line) if line.strip() else args.calls
    t1 = time.monotonic()
    bad = sum(p.wait() != 0 for p in procs)
    print(f"{args.calls} {t1 - t0:.3f} {failed}")
    return 1 if bad or failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-w", "--workers", type=int, default=1)
    ap.add_argument("-t", "--inflight", type=int, default=16)
    ap.add_argument("-n", "--calls", type=int, default=160)
    ap.add_argument("-d", "--dir", default=".")
    ap.add_argument("-m", "--mode", default="stock",
                    choices=("stock", "dropin", "templates"))
    ap.add_argument("-l", "--tools", required=True)
    ap.add_argument("--worker", type=int, dest="index", default=None,
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.workers < 1 or args.inflight < 1 or args.calls < 1:
        ap.error("workers, inflight and calls must be at least 1")
    if args.index is not None:
        return worker(args)
    return driver(args)


if __name__ == "__main__":
    sys.exit(main())

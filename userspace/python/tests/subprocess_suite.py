# SPDX-License-Identifier: LGPL-2.1-or-later
"""CPython's own test_subprocess, stock and with pidspawn installed.

Runs Lib/test/test_subprocess.py (Debian: libpython3.11-testsuite) twice,
each in a python3 of its own: with the stock fork_exec(), then under
"python3 -m pidspawn" (install() before subprocess is imported).  Prints
each run's counts, then TAP: one line a test, "not ok" when it passed
stock and does not with the drop-in (a test that fails or is skipped on
stock is reported as a skip with its stock result), then one line saying
whether the drop-in did the spawning (PIDSPAWN_TRACE), with how many calls
went which way; with PIDSPAWN_EXPECT=native (the guest), natively.

    python3 subprocess_suite.py [--keep DIR] [unittest -k patterns...]
"""
import collections
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.dirname(HERE)

# Tests that look at the stock implementation itself rather than at what
# a child gets, with why; reported by name whatever their result.
INSPECTS_STOCK = {
    "test_fork_exec_sorted_fd_sanity_check":
        "calls _posixsubprocess.fork_exec directly with bad fds_to_keep",
    "test_fork_exec":
        "calls _posixsubprocess.fork_exec directly with bad arguments",
    "test_preexec_at_exit":
        "a preexec_fn: goes to the stock fork_exec",
    "test_vfork_used_when_expected":
        "traces the stock fork_exec's vfork() with strace",
}


class Recorder(unittest.TextTestResult):
    """Each test's id and outcome, in a list."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.outcomes = []

    def note(self, test, status, detail=""):
        self.outcomes.append((test.id(), status, detail))

    def addSuccess(self, test):
        super().addSuccess(test)
        self.note(test, "pass")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.note(test, "fail", self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self.note(test, "fail", self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.note(test, "skip", reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.note(test, "pass", "expected failure")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.note(test, "fail", "unexpected success")


def run_here(out, patterns):
    """In the child python3: the suite, outcomes to the file out."""
    from test import support
    support.verbose = False
    import test.test_subprocess as mod
    loader = unittest.TestLoader()
    if patterns:
        loader.testNamePatterns = ["*%s*" % p for p in patterns]
    suite = loader.loadTestsFromModule(mod)
    runner = unittest.TextTestRunner(stream=sys.stderr, verbosity=0,
                                     resultclass=Recorder)
    result = runner.run(suite)
    with open(out, "w") as f:
        json.dump(result.outcomes, f)
    support.reap_children()


def run(dropin, work, patterns):
    out = os.path.join(work, "dropin.json" if dropin else "stock.json")
    env = dict(os.environ)
    env["PYTHONPATH"] = PACKAGE_DIR
    env.pop("PIDSPAWN_PYTHON", None)
    cmd = [sys.executable]
    if dropin:
        cmd += ["-m", "pidspawn"]
        env["PIDSPAWN_TRACE"] = os.path.join(work, "trace")
    else:
        env.pop("PIDSPAWN_TRACE", None)
    cmd += [os.path.abspath(__file__), "--child", out] + patterns
    with open(os.path.join(work, ("dropin" if dropin else "stock") +
                           ".log"), "w") as log:
        rc = subprocess.call(cmd, env=env, stdout=log, stderr=log,
                             cwd=work)
    try:
        with open(out) as f:
            return {t: (s, d) for t, s, d in json.load(f)}, rc
    except (OSError, ValueError):
        return {}, rc


def counts(results):
    c = collections.Counter(s for s, _ in results.values())
    return "%d passed, %d failed, %d skipped" % (c["pass"], c["fail"],
                                                 c["skip"])


def main(argv):
    if len(argv) > 2 and argv[1] == "--child":
        run_here(argv[2], argv[3:])
        return 0
    keep = None
    if len(argv) > 2 and argv[1] == "--keep":
        keep = argv[2]
        argv = argv[:1] + argv[3:]
    patterns = argv[1:]
    work = keep or tempfile.mkdtemp(prefix="pidspawn-subprocess-")
    os.makedirs(work, exist_ok=True)
    try:
        import test.test_subprocess  # noqa: F401
    except ImportError as e:
        print("1..0 # SKIP no test.test_subprocess (libpython3.11-testsuite):"
              " %s" % e)
        return 0
    stock, rc_stock = run(False, work, patterns)
    dropin, rc_dropin = run(True, work, patterns)
    sys.path.insert(0, PACKAGE_DIR)
    import pidspawn
    print("# backend: %s" % pidspawn.backend())
    print("# stock test_subprocess: %s (exit %d)" % (counts(stock), rc_stock))
    print("# drop-in test_subprocess: %s (exit %d)" % (counts(dropin),
                                                      rc_dropin))
    n = 0
    new_failures = []
    for test in sorted(set(stock) | set(dropin)):
        n += 1
        s, _ = stock.get(test, ("missing", ""))
        d, detail = dropin.get(test, ("missing", ""))
        name = test.replace("test.test_subprocess.", "")
        short = test.rsplit(".", 1)[-1]
        note = ""
        if short in INSPECTS_STOCK:
            note = " (inspects the stock implementation: %s)" % \
                INSPECTS_STOCK[short]
        if s != "pass":
            print("ok %d %s # SKIP stock: %s, drop-in: %s%s" %
                  (n, name, s, d, note))
        elif d == "pass":
            print("ok %d %s%s" % (n, name, note))
        elif d == "skip":
            print("ok %d %s # SKIP drop-in skipped it: %s%s" %
                  (n, name, detail, note))
        else:
            new_failures.append(name)
            print("not ok %d %s: passes stock, %s with the drop-in%s" %
                  (n, name, d, note))
            for line in detail.splitlines()[-15:]:
                print("# %s" % line)
    ways = collections.Counter()
    try:
        with open(os.path.join(work, "trace")) as f:
            for line in f:
                if line.startswith("fork_exec "):
                    ways[line.rsplit(": ", 2)[1]] += 1
    except OSError:
        pass
    n += 1
    print("# drop-in fork_exec calls: %s" %
          ", ".join("%d %s" % (c, w) for w, c in ways.most_common()))
    spawned = sum(ways.values()) > 0
    if os.environ.get("PIDSPAWN_EXPECT") == "native":
        spawned = ways["native"] + ways["template"] > 0 and \
            not ways["fallback backend"]
        # With the template cache, programs started again come from it.
        if os.environ.get("PIDSPAWN_TEMPLATES") == "1":
            spawned = spawned and ways["template"] > 0
    print("%s %d the drop-in made the spawns (%d calls traced)" %
          ("ok" if spawned else "not ok", n, sum(ways.values())))
    print("1..%d" % n)
    if new_failures:
        print("# new failures with the drop-in: %s" % " ".join(new_failures))
    if not keep:
        import shutil
        shutil.rmtree(work, ignore_errors=True)
    return 1 if new_failures or not spawned else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

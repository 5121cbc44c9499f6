# SPDX-License-Identifier: LGPL-2.1-or-later
"""pidspawn's fork_exec() against the stock one, under subprocess.

Each case runs twice, with the stock _posixsubprocess.fork_exec() and with
pidspawn installed, and must give the same result: exit status, output,
or the same exception (type, errno, message, filename).  After each run
no child, zombie or fd may be left (the fds of /proc/self/fd compared with
before).  PIDSPAWN_TRACE shows which way each drop-in call went: with
PIDSPAWN_EXPECT=native (the emulated kernel, the guest) the plain cases
must have gone native; else they went to the stock fork_exec() because
the kernel lacks pidfd_config().

    python3 test_pidspawn.py [-v]      unittest's output
    python3 test_pidspawn.py --tap     TAP, for make check
"""
import asyncio
import contextlib
import errno
import os
import pwd
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
# The package: build/python (make python) or the staged copy beside us.
sys.path.insert(0, os.path.dirname(HERE))
import pidspawn  # noqa: E402

EXPECT_NATIVE = os.environ.get("PIDSPAWN_EXPECT") == "native"
TEMPLATES = os.environ.get("PIDSPAWN_TEMPLATES") == "1"
TRACE = os.environ.setdefault(
    "PIDSPAWN_TRACE", os.path.join(tempfile.mkdtemp(), "trace"))


def fds():
    """Our fds and what each is, but the one listing them."""
    d = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY)
    try:
        out = {}
        for name in os.listdir(d):
            fd = int(name)
            if fd == d:
                continue
            try:
                out[fd] = os.readlink("/proc/self/fd/%d" % fd)
            except OSError:
                pass
        return out
    finally:
        os.close(d)


def template_range():
    """Where libpidspawn's template fds live (pidspawn_template_create(3))."""
    import resource
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    lim = 1024 if soft < 0 or soft > 1024 else soft
    return lim - lim // 8


def no_children():
    try:
        pid, status = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def outcome(fn):
    """fn()'s result, or its exception as comparable values."""
    try:
        return ("result", fn())
    except subprocess.SubprocessError as e:
        return ("raised", type(e).__name__, str(e))
    except OSError as e:
        return ("raised", type(e).__name__, e.errno, e.strerror, e.filename)
    except (KeyError, ValueError, TypeError) as e:
        return ("raised", type(e).__name__, str(e))


@contextlib.contextmanager
def std_fd_freed(fd):
    """Standard descriptor @fd closed for the block, then put back."""
    saved = os.dup(fd)
    try:
        os.close(fd)
        yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)


def trace_lines():
    try:
        with open(TRACE) as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


class DropIn(unittest.TestCase):
    """The same as stock, nothing left behind."""

    # The way a drop-in call must go for an ordinary case.
    native = True

    def setUp(self):
        pidspawn.uninstall()

    def tearDown(self):
        pidspawn.uninstall()

    def run_once(self, fn):
        before = fds()
        res = outcome(fn)
        after = fds()
        if TEMPLATES:
            top = template_range()
            after = {k: v for k, v in after.items()
                     if k < top or k in before}
        self.assertEqual(before, after, "fds left behind")
        self.assertTrue(no_children(), "a child or zombie left behind")
        return res

    def compare(self, fn, native=None, called=True):
        """fn() with the stock fork_exec() and with ours: the same.

        native: whether the drop-in's calls must have gone native (where
        the kernel has pidfd_config()); called: whether Popen calls
        fork_exec() at all (not when it raises first).
        """
        stock = self.run_once(fn)
        start = len(trace_lines())
        pidspawn.install()
        try:
            ours = self.run_once(fn)
        finally:
            pidspawn.uninstall()
        self.assertEqual(stock, ours)
        ways = [line.rsplit(": ", 2)[1] for line in trace_lines()[start:]
                if line.startswith("fork_exec ")]
        self.assertEqual(bool(ways), called, "the drop-in's calls")
        if not called:
            return ours
        if native is None:
            native = self.native
        if EXPECT_NATIVE and native:
            for way in ways:
                self.assertIn(way, ("native", "template"), ways)
        elif native and pidspawn.backend() == "fallback":
            self.assertEqual(set(ways), {"fallback backend"})
        return ours

    # Success, output, input.

    def test_true(self):
        self.compare(lambda: subprocess.run(["true"]).returncode)

    def test_exit_status(self):
        r = self.compare(lambda: subprocess.run(["sh", "-c", "exit 3"])
                         .returncode)
        self.assertEqual(r, ("result", 3))

    def test_absolute(self):
        sh = shutil.which("sh")
        self.compare(lambda: subprocess.run([sh, "-c", "exit 4"]).returncode)

    def test_repeated(self):
        # Repeated executables: from the template cache with
        # PIDSPAWN_TEMPLATES=1.
        self.compare(lambda: [subprocess.run(["sh", "-c", "exit %d" % i])
                              .returncode for i in range(4)])

    def test_stdout_stderr(self):
        def fn():
            r = subprocess.run(["sh", "-c", "echo out; echo err >&2; exit 1"],
                               capture_output=True)
            return r.returncode, r.stdout, r.stderr
        self.assertEqual(self.compare(fn), ("result", (1, b"out\n", b"err\n")))

    def test_stderr_to_stdout(self):
        self.compare(lambda: subprocess.run(
            ["sh", "-c", "echo out; echo err >&2"], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT).stdout)

    def test_stdin(self):
        self.compare(lambda: subprocess.run(
            ["cat"], input=b"data\n", capture_output=True).stdout)

    def test_communicate_large(self):
        data = os.urandom(1 << 20)
        r = self.compare(lambda: subprocess.run(
            ["cat"], input=data, capture_output=True).stdout == data)
        self.assertEqual(r, ("result", True))

    # The child's fds.

    def child_fds(self, **kw):
        return subprocess.run(["sh", "-c", "ls /proc/self/fd"],
                              capture_output=True, **kw).stdout

    def test_close_fds(self):
        r, w = os.pipe()
        try:
            os.set_inheritable(w, True)
            self.compare(lambda: self.child_fds())
        finally:
            os.close(r)
            os.close(w)

    def test_close_fds_false(self):
        r, w = os.pipe()
        try:
            os.set_inheritable(w, True)
            self.compare(lambda: self.child_fds(close_fds=False))
        finally:
            os.close(r)
            os.close(w)

    def test_pass_fds(self):
        def fn():
            r, w = os.pipe()
            try:
                out = subprocess.run(
                    ["sh", "-c", "echo passed >&%d; ls /proc/self/fd" % w],
                    pass_fds=[w], capture_output=True).stdout
            finally:
                os.close(w)
            try:
                return out, os.read(r, 100)
            finally:
                os.close(r)
        r = self.compare(fn)
        self.assertEqual(r[1][1], b"passed\n")

    def test_stdio_fds_low(self):
        # Our end of a pipe at 0: stdin is the pipe itself.
        def fn():
            with std_fd_freed(0):
                r, w = os.pipe()        # r is 0
                try:
                    os.write(w, b"low\n")
                    os.close(w)
                    return subprocess.run(["cat"], stdin=r,
                                          capture_output=True).stdout
                finally:
                    os.close(r)
        self.compare(fn)

    def test_stdout_at_0(self):
        # c2pwrite 0: fork_exec()'s child moves it out of stdout's way.
        def fn():
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "out")
                with std_fd_freed(0):
                    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
                    try:
                        rc = subprocess.run(["sh", "-c", "echo out"],
                                            stdout=fd).returncode
                    finally:
                        os.close(fd)
                with open(path) as f:
                    return fd, rc, f.read()
        r = self.compare(fn)
        self.assertEqual(r[1], (0, 0, "out\n"))

    def test_stderr_at_1(self):
        # errwrite 1: moved out of the way of stdout's dup2() first.
        def fn():
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "err")
                fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
                try:
                    with std_fd_freed(1):
                        os.dup2(fd, 1)
                        rc = subprocess.run(
                            ["sh", "-c", "echo out; echo err >&2"],
                            stdout=subprocess.DEVNULL, stderr=1).returncode
                finally:
                    os.close(fd)
                with open(path) as f:
                    return rc, f.read()
        r = self.compare(fn)
        self.assertEqual(r[1], (0, "err\n"))

    # Working directory, environment, session, group, umask, signals.

    def test_cwd(self):
        with tempfile.TemporaryDirectory() as d:
            self.compare(lambda: subprocess.run(
                ["pwd"], cwd=d, capture_output=True).stdout)

    def test_cwd_relative_executable(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "prog"), "w") as f:
                f.write("#!/bin/sh\necho relative\n")
            os.chmod(os.path.join(d, "prog"), 0o755)
            self.compare(lambda: subprocess.run(
                ["./prog"], cwd=d, capture_output=True).stdout)

    def test_env(self):
        env = {"PATH": os.environ["PATH"], "X": "1"}
        self.compare(lambda: subprocess.run(
            ["sh", "-c", "env | sort"], env=env, capture_output=True).stdout)

    def test_env_inherited(self):
        os.environ["PIDSPAWN_TEST_VALUE"] = "inherited"
        try:
            self.compare(lambda: subprocess.run(
                ["sh", "-c", "echo $PIDSPAWN_TEST_VALUE"],
                capture_output=True).stdout)
        finally:
            del os.environ["PIDSPAWN_TEST_VALUE"]

    leader = ('s=$(cut -d" " -f6 /proc/$$/stat); g=$(cut -d" " -f5 '
              '/proc/$$/stat); [ $s = $$ ] && echo session; '
              '[ $g = $$ ] && echo group; exit 0')

    def test_start_new_session(self):
        r = self.compare(lambda: subprocess.run(
            ["sh", "-c", self.leader], start_new_session=True,
            capture_output=True).stdout)
        self.assertEqual(r, ("result", b"session\ngroup\n"))

    def test_process_group(self):
        r = self.compare(lambda: subprocess.run(
            ["sh", "-c", self.leader], process_group=0,
            capture_output=True).stdout)
        self.assertEqual(r, ("result", b"group\n"))

    def test_process_group_ours(self):
        self.compare(lambda: subprocess.run(
            ["sh", "-c", self.leader], process_group=os.getpgid(0),
            capture_output=True).stdout)

    def test_umask(self):
        r = self.compare(lambda: subprocess.run(
            ["sh", "-c", "umask"], umask=0o077, capture_output=True).stdout)
        self.assertEqual(r, ("result", b"0077\n"))

    sigs = "grep -E '^Sig(Blk|Ign)' /proc/self/status"

    def test_restore_signals(self):
        self.compare(lambda: subprocess.run(
            ["sh", "-c", self.sigs], capture_output=True).stdout)

    def test_no_restore_signals(self):
        self.compare(lambda: subprocess.run(
            ["sh", "-c", self.sigs], restore_signals=False,
            capture_output=True).stdout)

    def test_sigmask(self):
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
        try:
            self.compare(lambda: subprocess.run(
                ["sh", "-c", self.sigs], capture_output=True).stdout)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)

    # Identity.

    ids = "id -u; id -g; id -G"

    def test_group_own(self):
        self.compare(lambda: subprocess.run(
            ["sh", "-c", self.ids], group=os.getgid(),
            capture_output=True).stdout)

    @unittest.skipUnless(os.geteuid() == 0, "needs root")
    def test_user_group_root(self):
        r = self.compare(lambda: subprocess.run(
            ["sh", "-c", self.ids], user=65534, group=65534,
            extra_groups=[65534, 100], capture_output=True).stdout)
        self.assertEqual(r, ("result", b"65534\n65534\n65534 100\n"))

    @unittest.skipUnless(os.geteuid() == 0, "needs root")
    def test_user_by_name_root(self):
        self.compare(lambda: subprocess.run(
            ["sh", "-c", self.ids], user="nobody", group="nogroup",
            extra_groups=[], capture_output=True).stdout)

    @unittest.skipUnless(os.geteuid() != 0, "needs a user other than root")
    def test_user_root_denied(self):
        self.compare(lambda: subprocess.run(["true"], user=0))

    # Errors: what stock Popen raises.

    def test_missing_program(self):
        r = self.compare(lambda: subprocess.run(["pidspawn-no-such-program"]))
        self.assertEqual(r[:2], ("raised", "FileNotFoundError"))
        self.assertEqual(r[4], "pidspawn-no-such-program")

    def test_missing_path(self):
        r = self.compare(lambda: subprocess.run(["/nonexistent/prog"]))
        self.assertEqual(r[4], "/nonexistent/prog")

    def test_bad_cwd(self):
        r = self.compare(lambda: subprocess.run(["true"], cwd="/nonexistent"))
        self.assertEqual(r, ("raised", "FileNotFoundError", errno.ENOENT,
                             os.strerror(errno.ENOENT), "/nonexistent"))

    def test_bad_cwd_and_program(self):
        # The cwd's failure comes first.
        self.compare(lambda: subprocess.run(["pidspawn-no-such-program"],
                                            cwd="/nonexistent"))

    def test_cwd_not_directory(self):
        self.compare(lambda: subprocess.run(["true"], cwd="/etc/passwd"))

    def test_pass_fds_not_open(self):
        fd = 200
        while True:
            try:
                os.fstat(fd)
                fd += 1
            except OSError:
                break
        # A named fd that is not open goes to the stock fork_exec().
        r = self.compare(lambda: subprocess.run(["true"], pass_fds=[fd]),
                         native=False)
        self.assertEqual(r[:3], ("raised", "OSError", errno.EBADF))

    def test_pass_fds_not_open_with_cwd(self):
        with tempfile.TemporaryDirectory() as d:
            self.compare(lambda: subprocess.run(["true"], pass_fds=[250],
                                                cwd=d), native=False)

    @staticmethod
    def lowest_free():
        fd = os.open("/dev/null", os.O_RDONLY)
        os.close(fd)
        return fd

    def test_not_open_where_the_pidfd_goes(self):
        # Popen's error pipe takes the two lowest free numbers, a pidfd
        # made next the one after: a stdin, stdout or pass_fds there that
        # is not open must still be EBADF, not the pidfd.
        for how in ("pass_fds", "stdin", "stdout"):
            with self.subTest(how=how):
                def fn():
                    n = self.lowest_free() + 2
                    kw = {"pass_fds": (n,)} if how == "pass_fds" else {how: n}
                    return subprocess.run(["true"], **kw).returncode
                r = self.compare(fn, native=False)
                self.assertEqual(r[:3], ("raised", "OSError", errno.EBADF))

    def test_user_missing(self):
        self.compare(lambda: subprocess.run(["true"],
                                            user="pidspawn-no-such-user"),
                     called=False)

    def test_group_missing(self):
        self.compare(lambda: subprocess.run(["true"],
                                            group="pidspawn-no-such-group"),
                     called=False)

    def test_not_executable(self):
        with tempfile.NamedTemporaryFile() as f:
            self.compare(lambda: subprocess.run([f.name]))

    def test_exec_format(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "garbage")
            with open(p, "wb") as f:
                f.write(b"\x7fELF garbage")
            os.chmod(p, 0o755)
            self.compare(lambda: subprocess.run([p]))

    def test_search_eacces_then_found(self):
        # fork_exec() goes on past EACCES: the second directory's runs.
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a"), os.path.join(d, "b")
            os.mkdir(a)
            os.mkdir(b)
            for where, mode in ((a, 0o644), (b, 0o755)):
                with open(os.path.join(where, "prog"), "w") as f:
                    f.write("#!/bin/sh\necho %s\n" % where)
                os.chmod(os.path.join(where, "prog"), mode)
            env = {"PATH": a + ":" + b}
            self.compare(lambda: subprocess.run(
                ["prog"], env=env, capture_output=True).stdout)

    def test_search_eacces_only(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "prog"), "w") as f:
                f.write("#!/bin/sh\n")
            env = {"PATH": "/nonexistent:" + d + ":/nonexistent2"}
            r = self.compare(lambda: subprocess.run(["prog"], env=env))
            self.assertEqual(r[:3], ("raised", "PermissionError",
                                     errno.EACCES))

    def test_search_stops_then_found(self):
        # execvp() stops at ENOEXEC, fork_exec() goes on: stock it is.
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a"), os.path.join(d, "b")
            os.mkdir(a)
            os.mkdir(b)
            with open(os.path.join(a, "prog"), "wb") as f:
                f.write(b"\x7fELF garbage")
            with open(os.path.join(b, "prog"), "w") as f:
                f.write("#!/bin/sh\necho found\n")
            os.chmod(os.path.join(a, "prog"), 0o755)
            os.chmod(os.path.join(b, "prog"), 0o755)
            env = {"PATH": a + ":" + b}
            r = self.compare(lambda: subprocess.run(
                ["prog"], env=env, capture_output=True).stdout, native=False)
            self.assertEqual(r, ("result", b"found\n"))

    def test_process_group_missing(self):
        # setpgid() fails: the stock fork_exec() says what failed first.
        self.compare(lambda: subprocess.run(["true"], process_group=2**22 - 3),
                     native=False)

    def test_argument_too_long(self):
        self.compare(lambda: subprocess.run(["true", "x" * (1 << 21)]),
                     native=False)

    def test_bad_argument_types(self):
        self.compare(lambda: subprocess.run(["true", 3]), native=False)
        self.compare(lambda: subprocess.run(["true", "a\0b"]), native=False)

    def test_preexec_fn(self):
        self.compare(lambda: subprocess.run(["true"], preexec_fn=lambda: None)
                     .returncode, native=False)

    def test_preexec_fn_raises(self):
        def boom():
            raise ValueError("no")
        self.compare(lambda: subprocess.run(["true"], preexec_fn=boom),
                     native=False)

    # Users of Popen.

    def test_asyncio(self):
        async def main():
            p = await asyncio.create_subprocess_exec(
                "sh", "-c", "echo async; exit 2",
                stdout=asyncio.subprocess.PIPE)
            out, _ = await p.communicate()
            return out, p.returncode
        self.compare(lambda: asyncio.run(main()))

    def test_popen_wait_kill(self):
        def fn():
            p = subprocess.Popen(["sleep", "30"])
            p.kill()
            return p.wait()
        self.compare(fn)


class Direct(unittest.TestCase):
    """fork_exec() called as subprocess calls it, and its argument checks."""

    def args(self, **over):
        r, w = os.pipe()
        self.addCleanup(lambda: [os.close(x) for x in (r, w)
                                 if self.is_open(x)])
        a = dict(args=[b"true"], executable_list=(b"/bin/true",),
                 close_fds=True, pass_fds=(w,), cwd=None, env=None,
                 p2cread=-1, p2cwrite=-1, c2pread=-1, c2pwrite=-1,
                 errread=-1, errwrite=-1, errpipe_read=r, errpipe_write=w,
                 restore_signals=True, call_setsid=False, pgid_to_set=-1,
                 gid=None, extra_groups=None, uid=None, child_umask=-1,
                 preexec_fn=None, allow_vfork=True)
        a.update(over)
        return tuple(a.values())

    @staticmethod
    def is_open(fd):
        try:
            os.fstat(fd)
            return True
        except OSError:
            return False

    def both(self, args):
        import _posixsubprocess
        res = []
        for f in (pidspawn._stock, pidspawn.fork_exec):
            try:
                pid = f(*args)
                res.append(("pid", os.waitpid(pid, 0)[1]))
            except Exception as e:
                res.append((type(e).__name__, str(e)))
        self.assertEqual(res[0], res[1])
        self.assertIs(_posixsubprocess.fork_exec, pidspawn._stock)
        return res[1]

    def test_success(self):
        self.assertEqual(self.both(self.args()), ("pid", 0))

    def test_wrong_number(self):
        self.both(self.args()[:-1])

    def test_errpipe_write_low(self):
        self.both(self.args(errpipe_write=2))

    def test_fds_to_keep_unsorted(self):
        self.both(self.args(pass_fds=(9, 5)))

    def test_groups_not_list(self):
        self.both(self.args(extra_groups=(1,)))

    def test_failed_child_status(self):
        # The child that failed exits 255, with the error in the pipe.
        for f in (pidspawn._stock, pidspawn.fork_exec):
            a = self.args(executable_list=(b"/nonexistent",))
            r, w = a[12], a[13]
            pid = f(*a)
            os.close(w)
            self.assertEqual(os.read(r, 100), b"OSError:2:")
            self.assertEqual(os.waitpid(pid, 0)[1], 255 << 8)


    def test_exec_error_with_errpipe_closed(self):
        # multiprocessing's call: errpipe_write not kept, close_fds: the
        # stock child's close_fds closed the pipe before its exec, so an
        # exec error is not reported; a chdir error, before, is.
        for over in (dict(executable_list=(b"/nonexistent",)),
                     dict(cwd="/nonexistent")):
            with self.subTest(**over):
                res = []
                for f in (pidspawn._stock, pidspawn.fork_exec):
                    a = self.args(pass_fds=(), **over)
                    r, w = a[12], a[13]
                    pid = f(*a)
                    os.close(w)
                    res.append((os.read(r, 100), os.waitpid(pid, 0)[1]))
                self.assertEqual(res[0], res[1])


class Install(unittest.TestCase):
    """install(), uninstall(), python3 -m pidspawn, PIDSPAWN_PYTHON=1."""

    def tearDown(self):
        pidspawn.uninstall()

    def test_install_uninstall(self):
        import _posixsubprocess
        stock = _posixsubprocess.fork_exec
        pidspawn.install()
        self.assertIs(_posixsubprocess.fork_exec, pidspawn.fork_exec)
        self.assertIs(subprocess._fork_exec, pidspawn.fork_exec)
        self.assertTrue(pidspawn.installed())
        pidspawn.uninstall()
        self.assertIs(_posixsubprocess.fork_exec, stock)
        self.assertIs(subprocess._fork_exec, stock)
        self.assertFalse(pidspawn.installed())

    def run_python(self, args, env=None, cwd=None):
        e = dict(os.environ)
        e["PYTHONPATH"] = os.path.dirname(HERE)
        e.update(env or {})
        return subprocess.run([sys.executable] + args, env=e, cwd=cwd,
                              capture_output=True)

    probe = textwrap.dedent("""\
        import _posixsubprocess, subprocess, sys
        print(sys.argv[1:])
        print(subprocess.run(["sh", "-c", "exit 7"]).returncode)
        print(type(_posixsubprocess.fork_exec).__module__,
              getattr(_posixsubprocess.fork_exec, "__self__", None).__name__)
        """)

    def test_dash_m_script(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "prog.py"), "w") as f:
                f.write(self.probe)
            r = self.run_python(["-m", "pidspawn", os.path.join(d, "prog.py"),
                                 "a", "b"])
            self.assertEqual(r.stderr, b"")
            self.assertEqual(r.stdout.decode().splitlines(),
                             ["['a', 'b']", "7",
                              "builtins pidspawn._pidspawn"])

    def test_dash_m_module(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "probemod.py"), "w") as f:
                f.write(self.probe)
            r = self.run_python(["-m", "pidspawn", "-m", "probemod", "x"],
                                cwd=d)
            self.assertEqual(r.stderr, b"")
            self.assertEqual(r.stdout.decode().splitlines()[1:],
                             ["7", "builtins pidspawn._pidspawn"])

    def test_pth(self):
        # pidspawn.pth as site.py reads it from site-packages.
        code = ("import site, sys; site.addsitedir(sys.argv[1]); "
                "import _posixsubprocess; "
                "print(getattr(_posixsubprocess.fork_exec, '__self__', "
                "None).__name__)")
        site_dir = os.path.dirname(HERE)
        self.assertTrue(os.path.exists(os.path.join(site_dir,
                                                    "pidspawn.pth")))
        on = self.run_python(["-c", code, site_dir],
                             env={"PIDSPAWN_PYTHON": "1"})
        off = self.run_python(["-c", code, site_dir],
                              env={"PIDSPAWN_PYTHON": "0"})
        self.assertEqual(on.stdout, b"pidspawn._pidspawn\n")
        self.assertEqual(off.stdout, b"_posixsubprocess\n")

    def test_multiprocessing_spawn(self):
        code = textwrap.dedent("""\
            import multiprocessing, pidspawn
            pidspawn.install()
            def f(q): q.put(6 * 7)
            if __name__ == "__main__":
                ctx = multiprocessing.get_context("spawn")
                q = ctx.Queue()
                p = ctx.Process(target=f, args=(q,))
                p.start()
                print(q.get(timeout=60))
                p.join()
                print(p.exitcode)
            """)
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "mp.py"), "w") as f:
                f.write(code)
            trace = os.path.join(d, "trace")
            r = self.run_python([os.path.join(d, "mp.py")],
                                env={"PIDSPAWN_TRACE": trace})
            self.assertEqual(r.stdout, b"42\n0\n", r.stderr)
            with open(trace) as f:
                self.assertTrue(f.read().startswith("fork_exec "))


class TemplateAPI(unittest.TestCase):
    """pidspawn.Template and its Popen."""

    def setUp(self):
        self.before = fds()
        self.sh = os.path.realpath(shutil.which("sh"))
        self.t = pidspawn.Template(self.sh)

    def tearDown(self):
        del self.t
        after = fds()
        self.assertEqual(self.before, after, "fds left behind")
        self.assertTrue(no_children())

    def test_relative_path(self):
        with self.assertRaises(OSError) as cm:
            pidspawn.Template("sh")
        self.assertEqual(cm.exception.errno, errno.EINVAL)

    def test_popen(self):
        start = len(trace_lines())
        for i in range(3):
            p = self.t.popen(["sh", "-c", "echo $0; exit %d" % i],
                             stdout=subprocess.PIPE)
            self.assertIsInstance(p, subprocess.Popen)
            out, _ = p.communicate()
            self.assertEqual((out, p.returncode), (b"sh\n", i))
            self.assertEqual(p.pidfd, -1)
        ways = [line.rsplit(": ", 2)[1] for line in trace_lines()[start:]]
        if EXPECT_NATIVE:
            self.assertEqual(ways, ["template"] * 3)

    def test_pidfd_readable_at_exit(self):
        with self.t.popen(["sh", "-c", "exit 9"]) as p:
            self.assertGreaterEqual(p.pidfd, 0)
            r, _, _ = select.select([p.pidfd], [], [], 30)
            self.assertEqual(r, [p.pidfd])
        self.assertEqual(p.returncode, 9)
        self.assertEqual(p.pidfd, -1)

    def test_pidfd_asyncio(self):
        async def main():
            loop = asyncio.get_running_loop()
            p = self.t.popen(["sh", "-c", "sleep 0.1; exit 5"])
            done = loop.create_future()

            def exited(fd=p.pidfd):
                loop.remove_reader(fd)
                done.set_result(None)
            loop.add_reader(p.pidfd, exited)
            await asyncio.wait_for(done, 30)
            return p.wait()
        self.assertEqual(asyncio.run(main()), 5)

    def test_kill_by_pidfd(self):
        p = self.t.popen(["sh", "-c", "sleep 30"])
        p.terminate()
        self.assertEqual(p.wait(), -signal.SIGTERM)

    def test_failed(self):
        with self.assertRaises(FileNotFoundError) as cm:
            self.t.popen(["sh"], cwd="/nonexistent")
        self.assertEqual(cm.exception.filename, "/nonexistent")

    def test_executable_given(self):
        with self.assertRaises(ValueError):
            self.t.popen(["x"], executable="/bin/true")


class TapResult(unittest.TextTestResult):
    """ok/not ok lines, one a test."""

    def __init__(self, stream, descriptions, verbosity):
        super().__init__(stream, descriptions, 0)
        self.n = 0

    def line(self, test, ok, extra=""):
        self.n += 1
        self.stream.write("%s %d %s%s\n" % ("ok" if ok else "not ok", self.n,
                                            test.id().split(".", 1)[-1],
                                            extra))
        self.stream.flush()

    def addSuccess(self, test):
        super().addSuccess(test)
        self.line(test, True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.line(test, False)
        self.comment(self.failures[-1][1])

    def addError(self, test, err):
        super().addError(test, err)
        self.line(test, False)
        self.comment(self.errors[-1][1])

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.line(test, True, " # SKIP " + reason)

    def comment(self, text):
        for t in text.splitlines():
            self.stream.write("# %s\n" % t)

    def printErrors(self):
        pass


if __name__ == "__main__":
    sys.stdout.write("# backend: %s, trace %s\n" % (pidspawn.backend(),
                                                    TRACE))
    if "--tap" in sys.argv:
        sys.argv.remove("--tap")
        runner = unittest.TextTestRunner(stream=sys.stdout,
                                         resultclass=TapResult)
        unittest.main(testRunner=runner, exit=True)
    else:
        unittest.main()

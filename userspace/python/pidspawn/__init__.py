# SPDX-License-Identifier: LGPL-2.1-or-later
"""Children for subprocess without fork(): libpidspawn under Popen.

fork_exec() is CPython 3.11's _posixsubprocess.fork_exec() on libpidspawn's
builder: where the kernel has pidfd_config() the child is an empty process
configured to do what the forked child would do, then started; what the
builder cannot express exactly (a preexec_fn, a kernel without
pidfd_config(), ...) goes to the stock fork_exec() unchanged.  Popen's
behaviour, exceptions and messages stay the same.

install() makes subprocess (and multiprocessing) use it; uninstall() puts
the stock one back.  Without changing a program:

    python3 -m pidspawn prog.py args...
    python3 -m pidspawn -m module args...
    PIDSPAWN_PYTHON=1 python3 prog.py args...   (pidspawn.pth, at startup)

Template(path) keeps a kernel spawn template of one executable; its
popen() returns a Popen whose pidfd attribute is the child's pidfd, for
event loops.

PIDSPAWN_TEMPLATES=1 takes executables started again and again from
libpidspawn's template cache, as for its posix_spawn().  PIDSPAWN_TRACE=file
appends a line a call: "fork_exec FILE: native|template|<why not>: ERR".
"""

import _posixsubprocess
import os
import sys
import threading

from ._pidspawn import Template as _Template, backend, fork_exec

__all__ = ["fork_exec", "install", "uninstall", "installed", "backend",
           "Template", "Popen"]

# The stock fork_exec(), as _posixsubprocess had it when we came.
_stock = (_posixsubprocess.fork_exec
          if _posixsubprocess.fork_exec is not fork_exec
          else None)
_local = threading.local()


def install():
    """Make subprocess and multiprocessing spawn with fork_exec().

    Replaces _posixsubprocess.fork_exec, which 3.11's subprocess imports
    as subprocess._fork_exec when it is first imported, and that name if
    subprocess was imported already.
    """
    _posixsubprocess.fork_exec = fork_exec
    sp = sys.modules.get("subprocess")
    if sp is not None and getattr(sp, "_fork_exec", None) is not _dispatch:
        sp._fork_exec = fork_exec


def uninstall():
    """Put the stock fork_exec() back where install() put ours."""
    _posixsubprocess.fork_exec = _stock
    sp = sys.modules.get("subprocess")
    if sp is not None and getattr(sp, "_fork_exec", None) is fork_exec:
        sp._fork_exec = _stock


def installed():
    """Whether install() is in effect."""
    return _posixsubprocess.fork_exec is fork_exec


def _dispatch(*args):
    """subprocess._fork_exec while Template.popen() is in use.

    The spawn a Template's Popen makes goes to the template; every other
    to _posixsubprocess.fork_exec (ours when installed, else the stock one).
    """
    template = getattr(_local, "template", None)
    if template is None:
        return _posixsubprocess.fork_exec(*args)
    _local.template = None
    pid, _local.pidfd = template.spawn(*args)
    return pid


def _route_templates():
    import subprocess
    if subprocess._fork_exec is not _dispatch:
        subprocess._fork_exec = _dispatch


class Template(_Template):
    """Template(path): spawns of the executable at the absolute path.

    Where the kernel has spawn templates, the executable (and its ELF
    interpreter) is opened, pinned and its headers read once, and each
    spawn starts from that; elsewhere spawns go by path.  While it lives
    the executable cannot be opened for writing (ETXTBSY); replacing it by
    rename() works, the template is made again.
    """

    __slots__ = ()

    def popen(self, args, **kwargs):
        """subprocess.Popen(args, executable=self.path, **kwargs).

        The child comes from the template; the Popen's pidfd attribute is
        its pidfd.
        """
        return _popen_class()(self, args, **kwargs)

    def __repr__(self):
        return "<pidspawn.Template %r>" % (self.path,)


def _make_popen():
    import subprocess

    class Popen(subprocess.Popen):
        """A subprocess.Popen of a Template's executable, with its pidfd.

        Popen(template, args, **kwargs) is subprocess.Popen(args,
        executable=template.path, **kwargs), the child from the template.
        pidfd is the child's pidfd (close-on-exec), readable once it
        exited: for event loops (loop.add_reader(), select, poll).  It is
        closed when the Popen has the exit status, or with the Popen;
        then it is -1.  send_signal() (so terminate() and kill()) signals
        by the pidfd while there is one.

        With close_fds=False, Popen may take its os.posix_spawn() way,
        which no fork_exec() serves: the child then is not from the
        template, and its pidfd comes from os.pidfd_open().
        """

        def __init__(self, template, args, **kwargs):
            self._pidfd = -1
            if not isinstance(template, _Template):
                raise TypeError("template must be a pidspawn.Template")
            if kwargs.get("executable") is not None:
                raise ValueError("the executable is the template's")
            kwargs["executable"] = template.path
            _route_templates()
            _local.template = template
            _local.pidfd = -1
            try:
                super().__init__(args, **kwargs)
            except BaseException:
                pidfd = _local.pidfd
                if pidfd >= 0:
                    os.close(pidfd)
                raise
            finally:
                _local.template = None
            pidfd, _local.pidfd = _local.pidfd, -1
            if pidfd < 0 and self.returncode is None:
                try:
                    pidfd = os.pidfd_open(self.pid)
                except OSError:
                    pidfd = -1
            self._pidfd = pidfd

        @property
        def pidfd(self):
            """The child's pidfd, -1 once closed."""
            return self._pidfd

        def _close_pidfd(self):
            pidfd, self._pidfd = self._pidfd, -1
            if pidfd >= 0:
                os.close(pidfd)

        def _handle_exitstatus(self, *args, **kwargs):
            super()._handle_exitstatus(*args, **kwargs)
            self._close_pidfd()

        def send_signal(self, sig):
            self.poll()
            if self.returncode is not None:
                return
            if self._pidfd >= 0:
                import signal
                try:
                    signal.pidfd_send_signal(self._pidfd, sig)
                except ProcessLookupError:
                    pass
                return
            super().send_signal(sig)

        def __exit__(self, *exc):
            try:
                return super().__exit__(*exc)
            finally:
                if self.returncode is not None:
                    self._close_pidfd()

        def __del__(self, _close=os.close):
            pidfd = getattr(self, "_pidfd", -1)
            if pidfd >= 0 and self.returncode is not None:
                self._pidfd = -1
                _close(pidfd)
            super().__del__()

    Popen.__module__ = __name__
    return Popen


_popen_lock = threading.Lock()


def _popen_class():
    with _popen_lock:
        cls = globals().get("Popen")
        if cls is None:
            cls = globals()["Popen"] = _make_popen()
        return cls


def __getattr__(name):
    # Popen subclasses subprocess.Popen: made on first use, so that
    # importing pidspawn (pidspawn.pth at startup) imports no subprocess.
    if name == "Popen":
        return _popen_class()
    raise AttributeError("module %r has no attribute %r" % (__name__, name))

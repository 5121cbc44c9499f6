# SPDX-License-Identifier: LGPL-2.1-or-later
# Python's posix_spawn users, for preload-test.sh: prints what it sees,
# nothing that differs between two runs (no pids).
import os
import signal
import subprocess
import sys

tmp = sys.argv[1]
out = os.path.join(tmp, "out")
script = ('echo "X=$X"; grep -E "^SigBlk" /proc/self/status; '
          'awk \'/^SigIgn/ { print substr($2, 10) }\' /proc/self/status; '
          'ls /proc/self/fd; pwd; '
          'test "$(cut -d" " -f6 /proc/$$/stat)" = $$ && echo session leader; '
          'exit 3')


def status(pid):
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def error(fn, *args, **kw):
    try:
        pid = fn(*args, **kw)
        print("  no error, exit", status(pid))
    except OSError as e:
        print("  error", e.errno, os.strerror(e.errno))


print("os.posix_spawn with file actions and attributes")
pid = os.posix_spawn(
    "/bin/sh", ["sh", "-c", script], {"X": "1", "PATH": "/usr/bin:/bin"},
    file_actions=[
        (os.POSIX_SPAWN_OPEN, 1, out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
        (os.POSIX_SPAWN_DUP2, 1, 2),
        (os.POSIX_SPAWN_CLOSE, 0),
    ],
    setsigmask=[signal.SIGUSR1], setsigdef=[signal.SIGPIPE], resetids=True,
    setsid=True)
print("  exit", status(pid))
print(open(out).read(), end="")

print("os.posix_spawn, new process group, scheduler")
pid = os.posix_spawn("/bin/sh", ["sh", "-c", 'test "$(cut -d" " -f5 /proc/$$/stat)" = $$ && echo group leader'],
                     os.environ, setpgroup=0,
                     scheduler=(os.SCHED_OTHER, os.sched_param(0)))
print("  exit", status(pid))

print("os.posix_spawnp, PATH search")
print("  exit", status(os.posix_spawnp("sh", ["sh", "-c", "exit 4"], os.environ)))

print("errors")
error(os.posix_spawn, "/nonexistent", ["x"], {})
error(os.posix_spawnp, "no-such-program-anywhere", ["x"], os.environ)
error(os.posix_spawn, "/bin/true", ["x"], {}, file_actions=[(os.POSIX_SPAWN_DUP2, 77, 1)])
error(os.posix_spawn, "/bin/true", ["x"], {},
      file_actions=[(os.POSIX_SPAWN_OPEN, 3, "/nonexistent", os.O_RDONLY, 0)])
error(os.posix_spawn, "/etc/passwd", ["x"], {})

print("subprocess, close_fds=False (posix_spawn)")
r = subprocess.run(["/bin/sh", "-c", "echo to stdout; echo to stderr >&2; exit 5"],
                   capture_output=True, close_fds=False)
print("  exit", r.returncode, r.stdout, r.stderr)
r = subprocess.run(["/bin/cat"], input=b"through a pipe\n", capture_output=True,
                   close_fds=False)
print("  exit", r.returncode, r.stdout)
try:
    subprocess.run(["/nonexistent/program"], close_fds=False)
except OSError as e:
    print("  error", type(e).__name__, e.errno)

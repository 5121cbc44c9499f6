/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pidspawn._pidspawn: subprocess's fork_exec() on libpidspawn's builder.
 *
 * fork_exec() takes CPython 3.11's _posixsubprocess.fork_exec() arguments
 * and has its results: the child's pid, errors of the parent as exceptions,
 * and the child's failure written to errpipe_write in the form Popen reads
 * ("OSError:<hex errno>:noexec" before the exec, "OSError:<hex errno>:"
 * for the exec).  The child is one empty process configured to do what
 * fork_exec()'s forked child does, in its order, and started; the kernel
 * runs the steps in this order:
 *
 *   signal defaults (restore_signals), setsid, setpgid, umask, then the
 *   actions: pass_fds made inheritable, the parent's pipe ends closed, the
 *   standard fds dup2()ed, the chdir to cwd, close_fds; then the groups,
 *   gid and uid; the signal mask; the exec, trying each executable_list
 *   path as execvp() does.
 *
 * which is fork_exec()'s but for setsid and setpgid (before the actions
 * here, after the chdir there; only setpgid can fail).  A failed START
 * leaves nothing behind and changes nothing outside the child, so where
 * the two could differ (setpgid failed; a search the kernel stopped early
 * or whose error execvp() and fork_exec() choose differently; a message
 * not understood) the call is made again by the stock fork_exec(), which
 * then reports as it always does.  Everything the builder cannot express
 * exactly goes to the stock fork_exec() from the start: preexec_fn, a
 * subinterpreter, a kernel without pidfd_config(), an fd it names that
 * is not open (see named_fds_open()), a c2pwrite of 0 or an errwrite of
 * 0 or 1 that cannot be moved out of the way first (see move_std_fds():
 * no free descriptor), a gid or uid that only setresgid()/setresuid()
 * would accept, arguments it would not convert or that the kernel
 * refuses when configured.  PIDSPAWN_TRACE
 * counts each call as libpidspawn counts its spawns.
 *
 * When the child failed, fork_exec()'s child exits 255 after writing to
 * the pipe, and Popen reaps it.  Ours left nothing; one that does exactly
 * that is made with vfork() so that Popen's waitpid() finds the status it
 * expects.
 */
#define PY_SSIZE_T_CLEAN
#include "Python.h"
#include "structmember.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <linux/capability.h>

#include "pidspawn.h"

#ifdef NGROUPS_MAX
#define MAX_GROUPS NGROUPS_MAX
#else
#define MAX_GROUPS 64
#endif

/* PIDFD_FD_CLEAR_CLOEXEC of <linux/pidfd.h> (see pidspawn.h). */
#define CLEAR_CLOEXEC 1U

extern char **environ;

typedef struct {
    PyObject *stock;            /* _posixsubprocess.fork_exec */
    PyTypeObject *template_type;
} pidspawn_state;

static inline pidspawn_state *
get_state(PyObject *module)
{
    return (pidspawn_state *)PyModule_GetState(module);
}

/* One fork_exec() call, converted for the builder. */
typedef struct {
    char **exec_array;          /* NULL-terminated */
    Py_ssize_t nexec;
    char **argv;                /* NULL: none given */
    char **envp;                /* NULL: the caller's environ */
    char *cwd;
    int p2cread, p2cwrite, c2pread, c2pwrite, errread, errwrite;
    int errpipe_read, errpipe_write;
    int close_fds, restore_signals, call_setsid;
    pid_t pgid;
    int call_setgid, call_setuid, call_setgroups;
    gid_t gid;
    uid_t uid;
    gid_t *groups;
    Py_ssize_t ngroups;
    int child_umask;
    int *keep;                  /* fds_to_keep, sorted */
    Py_ssize_t nkeep;
    int moved[2];               /* see move_std_fds() */
    int nmoved;
} spawn_request;

/* How a call ended, for the caller and PIDSPAWN_TRACE. */
enum outcome {
    SPAWNED,            /* a child runs its program */
    CHILD_FAILED,       /* report err to the error pipe */
    STOCK,              /* the stock fork_exec(), for the reason given */
};

static void
free_vector(char **v)
{
    PyMem_Free(v);
}

/*
 * A sequence of bytes (argv: of str, bytes or path-like objects, as
 * PyUnicode_FSConverter() takes them) as one block: pointers then
 * strings.  NULL with an exception set on anything fork_exec() would not
 * convert the same way; the caller then asks fork_exec() itself.
 */
static char **
to_vector(PyObject *seq, int fs_convert, Py_ssize_t *count)
{
    PyObject *items;
    Py_ssize_t n, i, size = 0;
    char **v, *p;

    if (fs_convert) {
        items = PySequence_Fast(seq, "argv must be a tuple");
        if (items == NULL) {
            return NULL;
        }
        n = PySequence_Fast_GET_SIZE(items);
        PyObject *converted = PyTuple_New(n);
        if (converted == NULL) {
            Py_DECREF(items);
            return NULL;
        }
        for (i = 0; i < n; i++) {
            PyObject *b;
            if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(items, i),
                                       &b)) {
                Py_DECREF(items);
                Py_DECREF(converted);
                return NULL;
            }
            PyTuple_SET_ITEM(converted, i, b);
        }
        Py_DECREF(items);
        items = converted;
    }
    else {
        if (!PyTuple_Check(seq) && !PyList_Check(seq)) {
            PyErr_SetString(PyExc_TypeError, "expected a tuple or a list");
            return NULL;
        }
        items = PySequence_Tuple(seq);
        if (items == NULL) {
            return NULL;
        }
    }
    n = PyTuple_GET_SIZE(items);
    for (i = 0; i < n; i++) {
        PyObject *b = PyTuple_GET_ITEM(items, i);
        if (!PyBytes_CheckExact(b) ||
            strlen(PyBytes_AS_STRING(b)) != (size_t)PyBytes_GET_SIZE(b)) {
            PyErr_SetString(PyExc_ValueError, "not plain bytes");
            Py_DECREF(items);
            return NULL;
        }
        size += PyBytes_GET_SIZE(b) + 1;
    }
    v = PyMem_Malloc((n + 1) * sizeof(char *) + size);
    if (v == NULL) {
        Py_DECREF(items);
        PyErr_NoMemory();
        return NULL;
    }
    p = (char *)(v + n + 1);
    for (i = 0; i < n; i++) {
        PyObject *b = PyTuple_GET_ITEM(items, i);
        v[i] = p;
        memcpy(p, PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b) + 1);
        p += PyBytes_GET_SIZE(b) + 1;
    }
    v[n] = NULL;
    Py_DECREF(items);
    if (count) {
        *count = n;
    }
    return v;
}

/* A plain int id, 0 to (id_t)-2; the stock converters take the rest. */
static int
to_id(PyObject *obj, unsigned int *id)
{
    unsigned long v;

    if (!PyLong_CheckExact(obj)) {
        PyErr_SetString(PyExc_TypeError, "not an int");
        return -1;
    }
    v = PyLong_AsUnsignedLong(obj);
    if (PyErr_Occurred()) {
        return -1;
    }
    if (v >= UINT_MAX) {
        PyErr_SetString(PyExc_OverflowError, "id out of range");
        return -1;
    }
    *id = (unsigned int)v;
    return 0;
}

static void
request_clear(spawn_request *r)
{
    free_vector(r->exec_array);
    free_vector(r->argv);
    free_vector(r->envp);
    PyMem_Free(r->cwd);
    PyMem_Free(r->groups);
    PyMem_Free(r->keep);
    while (r->nmoved > 0) {
        close(r->moved[--r->nmoved]);
    }
    memset(r, 0, sizeof(*r));
}

/*
 * Every fd the call names is open.  fork_exec()'s child fails with EBADF
 * on one that is not (its dup2(), close() or inheritable flag), so such a
 * call goes to fork_exec(): our pidfd, made next, takes the lowest free
 * number, and the child, which starts from a copy of our table, would
 * find it at a named fd that was not open.
 */
static int
named_fds_open(const spawn_request *r)
{
    const int named[] = { r->p2cread, r->p2cwrite, r->c2pread, r->c2pwrite,
                          r->errread, r->errwrite, r->errpipe_read,
                          r->errpipe_write };
    size_t i;

    for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
        if (named[i] >= 0 && fcntl(named[i], F_GETFD) < 0) {
            return 0;
        }
    }
    for (i = 0; i < (size_t)r->nkeep; i++) {
        if (fcntl(r->keep[i], F_GETFD) < 0) {
            return 0;
        }
    }
    return 1;
}

/*
 * fork_exec()'s child first moves a c2pwrite of 0, and an errwrite of 0
 * or 1, out of the way of its dup2()s onto 0, 1 and 2: with dup(),
 * close-on-exec (bpo-12607, bpo-32270).  The same here, in the caller:
 * the child inherits the copy, dup2()s from it and loses it at its exec,
 * as fork_exec()'s child loses its own; the caller's goes with the
 * request, once the child started.  -1 with errno set: fork_exec() is
 * asked, and its child fails as it would.
 */
static int
move_std_fd(spawn_request *r, int *fd)
{
    int copy = fcntl(*fd, F_DUPFD_CLOEXEC, 3);

    if (copy < 0) {
        return -1;
    }
    r->moved[r->nmoved++] = copy;
    *fd = copy;
    return 0;
}

static int
move_std_fds(spawn_request *r)
{
    if (r->c2pwrite == 0 && move_std_fd(r, &r->c2pwrite) < 0) {
        return -1;
    }
    if ((r->errwrite == 0 || r->errwrite == 1) &&
        move_std_fd(r, &r->errwrite) < 0) {
        return -1;
    }
    return 0;
}

/*
 * The conversions fork_exec() makes in the parent.  0, or -1 with an
 * exception set: fork_exec() itself is asked then, and raises its own.
 */
static int
request_convert(spawn_request *r, PyObject *process_args,
                PyObject *executable_list, PyObject *py_fds_to_keep,
                PyObject *cwd_obj, PyObject *env_list, PyObject *gid_object,
                PyObject *groups_list, PyObject *uid_object)
{
    Py_ssize_t i;
    long prev = -1;

    r->exec_array = to_vector(executable_list, 0, &r->nexec);
    if (r->exec_array == NULL) {
        return -1;
    }
    if (process_args != Py_None &&
        (r->argv = to_vector(process_args, 1, NULL)) == NULL) {
        return -1;
    }
    if (env_list != Py_None &&
        (r->envp = to_vector(env_list, 0, NULL)) == NULL) {
        return -1;
    }
    if (cwd_obj != Py_None) {
        PyObject *b;
        if (!PyUnicode_FSConverter(cwd_obj, &b)) {
            return -1;
        }
        r->cwd = PyMem_Malloc(PyBytes_GET_SIZE(b) + 1);
        if (r->cwd == NULL) {
            Py_DECREF(b);
            PyErr_NoMemory();
            return -1;
        }
        memcpy(r->cwd, PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b) + 1);
        Py_DECREF(b);
    }
    if (groups_list != Py_None) {
        if (!PyList_CheckExact(groups_list)) {
            PyErr_SetString(PyExc_TypeError, "not a list");
            return -1;
        }
        r->ngroups = PyList_GET_SIZE(groups_list);
        if (r->ngroups > MAX_GROUPS) {
            PyErr_SetString(PyExc_ValueError, "too many groups");
            return -1;
        }
        r->groups = PyMem_Malloc((r->ngroups + 1) * sizeof(gid_t));
        if (r->groups == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        for (i = 0; i < r->ngroups; i++) {
            unsigned int g;
            if (to_id(PyList_GET_ITEM(groups_list, i), &g) < 0) {
                return -1;
            }
            r->groups[i] = g;
        }
        r->call_setgroups = 1;
    }
    if (gid_object != Py_None) {
        unsigned int g;
        if (to_id(gid_object, &g) < 0) {
            return -1;
        }
        r->gid = g;
        r->call_setgid = 1;
    }
    if (uid_object != Py_None) {
        unsigned int u;
        if (to_id(uid_object, &u) < 0) {
            return -1;
        }
        r->uid = u;
        r->call_setuid = 1;
    }
    r->nkeep = PyTuple_GET_SIZE(py_fds_to_keep);
    r->keep = PyMem_Malloc((r->nkeep + 1) * sizeof(int));
    if (r->keep == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (i = 0; i < r->nkeep; i++) {
        PyObject *o = PyTuple_GET_ITEM(py_fds_to_keep, i);
        long fd;
        if (!PyLong_Check(o)) {
            PyErr_SetString(PyExc_ValueError, "bad value(s) in fds_to_keep");
            return -1;
        }
        fd = PyLong_AsLong(o);
        if (fd < 0 || fd <= prev || fd > INT_MAX) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "bad value(s) in fds_to_keep");
            return -1;
        }
        r->keep[i] = (int)fd;
        prev = fd;
    }
    return 0;
}

/* Whether the caller has capability @cap in its effective set. */
static int
has_cap(int cap)
{
    struct __user_cap_header_struct hdr = {
        .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
    };
    struct __user_cap_data_struct data[2];

    if (syscall(SYS_capget, &hdr, data)) {
        return 0;
    }
    return (data[cap / 32].effective >> (cap % 32)) & 1;
}

/*
 * The stock child calls setregid(gid, gid) and setreuid(uid, uid), the
 * kernel's setresgid() and setresuid() with the id three times: the same
 * result and errors, but that an unprivileged caller's saved id is
 * accepted by the latter only.  Why not the builder, or NULL.
 */
static const char *
ids_differ(const spawn_request *r)
{
    gid_t rg, eg, sg;
    uid_t ru, eu, su;

    if (r->call_setgid && !has_cap(CAP_SETGID) &&
        (getresgid(&rg, &eg, &sg) || (r->gid != rg && r->gid != eg))) {
        return "setregid";
    }
    if (r->call_setuid && !has_cap(CAP_SETUID) &&
        (getresuid(&ru, &eu, &su) || (r->uid != ru && r->uid != eu))) {
        return "setreuid";
    }
    return NULL;
}

/*
 * PIDSPAWN_TRACE=file: one line a call, as libpidspawn writes its own:
 * "fork_exec FILE: HOW: ERR", FILE the first of executable_list, HOW
 * native, template or why the stock fork_exec() was called, ERR the
 * child's error reported (0 for none; -1 when fork_exec() raised).
 */
static void
trace(const char *file, const char *how, int err)
{
    const char *path = getenv("PIDSPAWN_TRACE");
    char line[512];
    int fd, n;

    if (path == NULL || *path == '\0') {
        return;
    }
    n = snprintf(line, sizeof(line), "fork_exec %s: %s: %d\n",
                 file ? file : "?", how, err);
    if (n < 0 || n >= (int)sizeof(line)) {
        n = sizeof(line) - 1;
    }
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        return;
    }
    if (write(fd, line, n) < 0) {
        n = 0;
    }
    close(fd);
}

/*
 * The path fork_exec()'s child would execute, when a template may stand
 * for it: the first of executable_list that exists, an executable regular
 * file, every one before it missing (ENOENT, ENOTDIR), all absolute, the
 * child keeping our ids.  NULL when in doubt, or with the cache off
 * (PIDSPAWN_TEMPLATES=1 turns it on).
 */
static const char *
template_candidate(const spawn_request *r)
{
    const char *on = getenv("PIDSPAWN_TEMPLATES");
    struct stat st;

    /* The cache's switch, as libpidspawn reads it. */
    if (on == NULL || strcmp(on, "1") != 0) {
        return NULL;
    }
    if (r->call_setuid || r->call_setgid || r->call_setgroups) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < r->nexec; i++) {
        const char *p = r->exec_array[i];
        if (p[0] != '/') {
            return NULL;
        }
        if (stat(p, &st) == 0) {
            return S_ISREG(st.st_mode) &&
                   faccessat(AT_FDCWD, p, X_OK, AT_EACCESS) == 0 ? p : NULL;
        }
        if (errno != ENOENT && errno != ENOTDIR) {
            return NULL;
        }
    }
    return NULL;
}

/* fork_exec()'s child's steps, in its order, on the empty pidfd. */
static int
configure(const spawn_request *r, int pidfd, int templated,
          const sigset_t *mask)
{
    Py_ssize_t i;
    int first;

    if (r->argv && pidspawn_set_argv(pidfd, r->argv)) {
        return -1;
    }
    if (pidspawn_set_envp(pidfd, r->envp ? r->envp : environ)) {
        return -1;
    }
    if (pidspawn_inherit_fds(pidfd)) {
        return -1;
    }
    if (r->restore_signals) {
        /* _Py_RestoreSignals(): SIGPIPE, SIGXFZ (not on Linux), SIGXFSZ. */
        sigset_t dfl;
        sigemptyset(&dfl);
        sigaddset(&dfl, SIGPIPE);
#ifdef SIGXFZ
        sigaddset(&dfl, SIGXFZ);
#endif
        sigaddset(&dfl, SIGXFSZ);
        if (pidspawn_set_sigdefault(pidfd, &dfl)) {
            return -1;
        }
    }
    if (r->call_setsid && pidspawn_setsid(pidfd)) {
        return -1;
    }
    if (r->pgid >= 0 && pidspawn_setpgid(pidfd, r->pgid)) {
        return -1;
    }
    if (r->child_umask >= 0 &&
        pidspawn_set_umask(pidfd, (mode_t)r->child_umask & 0777)) {
        return -1;
    }
    /* The actions, as fork_exec()'s child makes them. */
    for (i = 0; i < r->nkeep; i++) {
        if (r->keep[i] != r->errpipe_write &&
            pidspawn_act_dup2_flags(pidfd, r->keep[i], r->keep[i],
                                    CLEAR_CLOEXEC)) {
            return -1;
        }
    }
    if ((r->p2cwrite != -1 && pidspawn_act_close(pidfd, r->p2cwrite)) ||
        (r->c2pread != -1 && pidspawn_act_close(pidfd, r->c2pread)) ||
        (r->errread != -1 && pidspawn_act_close(pidfd, r->errread)) ||
        pidspawn_act_close(pidfd, r->errpipe_read)) {
        return -1;
    }
    /* dup2() onto itself is no dup2(): the child clears FD_CLOEXEC. */
    if (r->p2cread == 0) {
        if (pidspawn_act_dup2_flags(pidfd, 0, 0, CLEAR_CLOEXEC)) {
            return -1;
        }
    }
    else if (r->p2cread != -1 && pidspawn_act_dup2(pidfd, r->p2cread, 0)) {
        return -1;
    }
    if (r->c2pwrite == 1) {
        if (pidspawn_act_dup2_flags(pidfd, 1, 1, CLEAR_CLOEXEC)) {
            return -1;
        }
    }
    else if (r->c2pwrite != -1 && pidspawn_act_dup2(pidfd, r->c2pwrite, 1)) {
        return -1;
    }
    if (r->errwrite == 2) {
        if (pidspawn_act_dup2_flags(pidfd, 2, 2, CLEAR_CLOEXEC)) {
            return -1;
        }
    }
    else if (r->errwrite != -1 && pidspawn_act_dup2(pidfd, r->errwrite, 2)) {
        return -1;
    }
    if (r->cwd && pidspawn_act_chdir(pidfd, r->cwd)) {
        return -1;
    }
    if (r->close_fds) {
        /* Everything from 3 up but fds_to_keep, as close_range() there. */
        first = 3;
        for (i = 0; i < r->nkeep; i++) {
            if (r->keep[i] < first) {
                continue;
            }
            if (r->keep[i] > first &&
                pidspawn_act_close_range(pidfd, first, r->keep[i] - 1, 0)) {
                return -1;
            }
            first = r->keep[i] + 1;
        }
        if (pidspawn_act_close_range(pidfd, first, ~0U, 0)) {
            return -1;
        }
    }
    if (r->call_setgroups &&
        pidspawn_set_groups(pidfd, r->ngroups, r->groups)) {
        return -1;
    }
    if (r->call_setgid &&
        pidspawn_set_resgid(pidfd, r->gid, r->gid, r->gid)) {
        return -1;
    }
    if (r->call_setuid &&
        pidspawn_set_resuid(pidfd, r->uid, r->uid, r->uid)) {
        return -1;
    }
    if (pidspawn_set_sigmask(pidfd, mask)) {
        return -1;
    }
    if (!templated &&
        pidspawn_set_exec_search(pidfd, (char *const *)r->exec_array)) {
        return -1;
    }
    return 0;
}

/*
 * A failed START, by the kernel's message: what fork_exec()'s child would
 * have written, or STOCK when fork_exec() must be asked (see the top).
 */
static enum outcome
classify(const spawn_request *r, const char *msg, int err, int *noexec)
{
    unsigned int tried, of;

    *noexec = 1;
    if (strncmp(msg, "START: action ", 14) == 0 ||
        strncmp(msg, "START: setsid: ", 15) == 0 ||
        strncmp(msg, "START: setgroups(): ", 20) == 0 ||
        strncmp(msg, "START: setresgid(", 17) == 0 ||
        strncmp(msg, "START: setresuid(", 17) == 0) {
        return CHILD_FAILED;
    }
    *noexec = 0;
    if (strncmp(msg, "START: execve of \"", 18) == 0 && r->nexec == 1) {
        return CHILD_FAILED;
    }
    /*
     * execvp() stops at an error it does not pass over, fork_exec() goes
     * on; it reports the first error but ENOENT and ENOTDIR, execvp()
     * EACCES if it met one, else the last.  Equal when every path was
     * tried and the error is one of those three.
     */
    if (sscanf(msg, "START: execve of %u of %u paths", &tried, &of) == 2 &&
        tried == of && of == (unsigned int)r->nexec &&
        (err == ENOENT || err == ENOTDIR || err == EACCES)) {
        return CHILD_FAILED;
    }
    return STOCK;
}

/* Whether fork_exec()'s child keeps @fd open across close_fds. */
static int
kept(const spawn_request *r, int fd)
{
    Py_ssize_t i;

    if (!r->close_fds || fd < 3) {
        return 1;
    }
    for (i = 0; i < r->nkeep; i++) {
        if (r->keep[i] == fd) {
            return 1;
        }
    }
    return 0;
}

/*
 * What fork_exec()'s child writes before its _exit(255).  Its close_fds
 * comes after every step but the exec: an errpipe_write not in
 * fds_to_keep (multiprocessing's call) is closed by then, so an exec
 * error goes unreported.
 */
static void
report(const spawn_request *r, int err, int noexec)
{
    char buf[64];
    int n = snprintf(buf, sizeof(buf), "OSError:%x:%s", err,
                     noexec ? "noexec" : "");
    const char *p = buf;

    if (!noexec && !kept(r, r->errpipe_write)) {
        return;
    }
    while (n > 0) {
        ssize_t w = write(r->errpipe_write, p, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            break;
        }
        p += w;
        n -= w;
    }
}

/*
 * The child that failed, for Popen to reap: one that exits 255 at once.
 * vfork() with all signals blocked runs nothing of ours in the child.
 */
static pid_t
failed_child(void)
{
    pid_t pid = vfork();

    if (pid == 0) {
        _exit(255);
    }
    return pid;
}

/*
 * The native spawn: SPAWNED with *pid (and *pidfd if asked), CHILD_FAILED
 * with *pid of the stand-in child once the pipe has its report, or STOCK
 * with *why.  With the GIL held; released around START.
 */
static enum outcome
spawn_native(const spawn_request *r, struct pidspawn_template *tmpl,
             pid_t *pid, int *pidfd_out, const char **why, int *err_out)
{
    const char *candidate = NULL;
    sigset_t all, old;
    char msg[512];
    int pidfd, templated, err, noexec;
    int by_path = 0;
    enum outcome how;

    *err_out = 0;
    *why = NULL;
    if (tmpl == NULL) {
        candidate = template_candidate(r);
    }
    /* As fork_exec() and posix_spawn(): no handler runs meanwhile. */
    sigfillset(&all);
    if (pthread_sigmask(SIG_BLOCK, &all, &old)) {
        *why = "signal mask";
        return STOCK;
    }
again:
    pidfd = -1;
    if (!by_path && (tmpl || candidate)) {
        pidfd = pidspawn_template_builder(tmpl, candidate, 0);
    }
    templated = pidfd >= 0;
    if (!templated) {
        pidfd = pidspawn_create(0);
    }
    if (pidfd < 0) {
        *why = "no empty pidfd";
        how = STOCK;
        goto out;
    }
    if (configure(r, pidfd, templated, &old)) {
        close(pidfd);
        *why = "configuration refused";
        how = STOCK;
        goto out;
    }
    Py_BEGIN_ALLOW_THREADS
    *pid = pidspawn_start(pidfd);
    err = *pid < 0 ? errno : 0;
    Py_END_ALLOW_THREADS
    if (*pid > 0) {
        if (pidfd_out) {
            *pidfd_out = pidfd;
        }
        else {
            close(pidfd);
        }
        *why = templated ? "template" : "native";
        how = SPAWNED;
        goto out;
    }
    if (pidspawn_error(pidfd, msg, sizeof(msg)) < 0) {
        msg[0] = '\0';
    }
    close(pidfd);
    /* Its failure left nothing: by path, as the stock child would go. */
    if (templated) {
        by_path = 1;
        goto again;
    }
    how = classify(r, msg, err, &noexec);
    if (how == STOCK) {
        *why = "failure told by fork_exec";
        goto out;
    }
    report(r, err, noexec);
    *pid = failed_child();
    if (*pid < 0) {
        /* As fork_exec() when it cannot fork. */
        *err_out = errno;
        how = STOCK;
        *why = NULL;
        goto out;
    }
    *why = "native";
    *err_out = err;
out:
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return how;
}

/* The stock fork_exec() with the same arguments, traced. */
static PyObject *
call_stock(PyObject *module, PyObject *args, PyObject *executable_list,
           const char *why)
{
    PyObject *stock = get_state(module)->stock, *res, *first = NULL;
    PyObject *exc, *val, *tb;

    if (stock == NULL) {
        PyErr_SetString(PyExc_RuntimeError,
                        "_posixsubprocess.fork_exec not found");
        return NULL;
    }
    res = PyObject_Call(stock, args, NULL);
    if (getenv("PIDSPAWN_TRACE") == NULL) {
        return res;
    }
    PyErr_Fetch(&exc, &val, &tb);
    if ((PyTuple_Check(executable_list) || PyList_Check(executable_list)) &&
        PySequence_Size(executable_list) > 0) {
        first = PySequence_GetItem(executable_list, 0);
    }
    PyErr_Clear();
    trace(first && PyBytes_Check(first) ? PyBytes_AS_STRING(first) : NULL,
          why, res ? 0 : -1);
    Py_XDECREF(first);
    PyErr_Restore(exc, val, tb);
    return res;
}

/*
 * fork_exec() itself; @tmpl, @tmpl_path, @pidfd_out: a Template's spawn.  Returns the
 * pid (new reference) or NULL with an exception.
 */
static PyObject *
do_fork_exec(PyObject *module, PyObject *args,
             struct pidspawn_template *tmpl, const char *tmpl_path,
             int *pidfd_out)
{
    PyObject *executable_list, *py_fds_to_keep, *env_list, *preexec_fn;
    PyObject *process_args, *groups_list, *uid_object, *gid_object;
    PyObject *cwd_obj;
    spawn_request r = {0};
    int allow_vfork, err;
    const char *why;
    pid_t pid = -1;
    enum outcome how;

    if (!PyArg_ParseTuple(
            args, "OOpO!OOiiiiiiiiii" _Py_PARSE_PID "OOOiOp:fork_exec",
            &process_args, &executable_list,
            &r.close_fds, &PyTuple_Type, &py_fds_to_keep,
            &cwd_obj, &env_list,
            &r.p2cread, &r.p2cwrite, &r.c2pread, &r.c2pwrite,
            &r.errread, &r.errwrite, &r.errpipe_read, &r.errpipe_write,
            &r.restore_signals, &r.call_setsid, &r.pgid,
            &gid_object, &groups_list, &uid_object, &r.child_umask,
            &preexec_fn, &allow_vfork)) {
        return NULL;
    }
    (void)allow_vfork;
    if (preexec_fn != Py_None) {
        why = "preexec_fn";
    }
    else if (PyInterpreterState_Get() != PyInterpreterState_Main()) {
        why = "subinterpreter";
    }
    else if (r.close_fds && r.errpipe_write < 3) {
        why = "arguments";      /* its ValueError */
    }
    else if (pidspawn_backend() != PIDSPAWN_NATIVE) {
        why = "fallback backend";
    }
    else if (r.errpipe_read < 0) {
        why = "arguments";
    }
    else if (request_convert(&r, process_args, executable_list,
                             py_fds_to_keep, cwd_obj, env_list, gid_object,
                             groups_list, uid_object) < 0) {
        PyErr_Clear();
        why = "arguments";
    }
    else if (r.nexec == 0) {
        why = "arguments";
    }
    else if (!named_fds_open(&r)) {
        why = "fd not open";
    }
    else if (move_std_fds(&r) < 0) {
        why = "standard fd not moved";
    }
    else {
        why = ids_differ(&r);
    }
    if (why) {
        request_clear(&r);
        return call_stock(module, args, executable_list, why);
    }

    /* A Template's executable, or any other: then as fork_exec(). */
    if (tmpl && (r.nexec != 1 || strcmp(r.exec_array[0], tmpl_path))) {
        tmpl = NULL;
    }
    how = spawn_native(&r, tmpl, &pid, pidfd_out, &why, &err);
    if (how == STOCK && why == NULL) {
        /* No child: fork_exec() raises as when it cannot fork. */
        trace(r.exec_array[0], "native", -1);
        request_clear(&r);
        errno = err;
        return PyErr_SetFromErrno(PyExc_OSError);
    }
    if (how == STOCK) {
        request_clear(&r);
        return call_stock(module, args, executable_list, why);
    }
    trace(r.exec_array[0], why, how == CHILD_FAILED ? err : 0);
    request_clear(&r);
    return PyLong_FromPid(pid);
}

PyDoc_STRVAR(pidspawn_fork_exec_doc,
"fork_exec(args, executable_list, close_fds, pass_fds, cwd, env,\n\
          p2cread, p2cwrite, c2pread, c2pwrite,\n\
          errread, errwrite, errpipe_read, errpipe_write,\n\
          restore_signals, call_setsid, pgid_to_set,\n\
          gid, extra_groups, uid, child_umask,\n\
          preexec_fn, allow_vfork)\n\
\n\
_posixsubprocess.fork_exec() of CPython 3.11, on libpidspawn's builder:\n\
the child is an empty process configured to do what the forked child\n\
would, then started, without fork() or vfork().\n\
\n\
Same arguments, same results: the child's pid; errors of the parent\n\
raised; the child's failure written to errpipe_write as the forked\n\
child writes it, with a stand-in child that exited 255 for Popen to\n\
reap.  What the builder cannot express exactly (preexec_fn, a kernel\n\
without pidfd_config(), ...) goes to _posixsubprocess.fork_exec.\n\
PIDSPAWN_TRACE=file appends one line a call saying which way it went.");

static PyObject *
pidspawn_fork_exec(PyObject *module, PyObject *args)
{
    return do_fork_exec(module, args, NULL, NULL, NULL);
}

PyDoc_STRVAR(pidspawn_backend_doc,
"backend()\n\
\n\
'native' when spawns go through pidfd_config(), 'fallback' when the\n\
kernel lacks it (PIDSPAWN_BACKEND=native|fallback forces the choice).");

static PyObject *
pidspawn_backend_impl(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(ignored))
{
    return PyUnicode_FromString(pidspawn_backend() == PIDSPAWN_NATIVE ?
                                "native" : "fallback");
}

/* Template objects *********************************************************/

static struct PyModuleDef pidspawnmodule;

typedef struct {
    PyObject_HEAD
    struct pidspawn_template *tmpl;
    PyObject *path;             /* str or bytes, as given */
    PyObject *bytes;            /* its file system encoding */
    PyObject *module;
} TemplateObject;

static PyObject *
template_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"path", NULL};
    PyObject *path, *bytes;
    TemplateObject *self;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:Template", kwlist,
                                     &path)) {
        return NULL;
    }
    if (!PyUnicode_FSConverter(path, &bytes)) {
        return NULL;
    }
    self = (TemplateObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        Py_DECREF(bytes);
        return NULL;
    }
    self->tmpl = pidspawn_template_create(PyBytes_AS_STRING(bytes), 0);
    if (self->tmpl == NULL) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
        Py_DECREF(bytes);
        Py_DECREF(self);
        return NULL;
    }
    self->bytes = bytes;
    self->path = PyOS_FSPath(path);
    if (self->path == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    /* Our module, for a subclass (pidspawn.Template) too. */
    self->module = PyType_GetModuleByDef(type, &pidspawnmodule);
    if (self->module == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    Py_INCREF(self->module);
    return (PyObject *)self;
}

static int
template_traverse(TemplateObject *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->module);
    return 0;
}

static void
template_dealloc(TemplateObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);

    PyObject_GC_UnTrack(self);
    pidspawn_template_free(self->tmpl);
    Py_XDECREF(self->path);
    Py_XDECREF(self->bytes);
    Py_XDECREF(self->module);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp);
}

PyDoc_STRVAR(template_spawn_doc,
"spawn(*fork_exec_args)\n\
\n\
fork_exec() with the template's executable: (pid, pidfd).  pidfd is the\n\
child's pidfd, close-on-exec, owned by the caller, or -1 when the spawn\n\
went another way (the stock fork_exec(), a failed child).  The\n\
executable_list must be the template's path alone.");

static PyObject *
template_spawn(TemplateObject *self, PyObject *args)
{
    PyObject *pid, *res;
    int pidfd = -1;

    if (self->module == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "no module");
        return NULL;
    }
    pid = do_fork_exec(self->module, args, self->tmpl,
                       PyBytes_AS_STRING(self->bytes), &pidfd);
    if (pid == NULL) {
        return NULL;
    }
    res = Py_BuildValue("(Ni)", pid, pidfd);
    if (res == NULL && pidfd >= 0) {
        close(pidfd);
    }
    return res;
}

PyDoc_STRVAR(template_fd_doc,
"fd()\n\
\n\
The kernel template's fd now, -1 when there is none (the fallback\n\
backend, a script, a kernel without templates).");

static PyObject *
template_fd(TemplateObject *self, PyObject *Py_UNUSED(ignored))
{
    return PyLong_FromLong(pidspawn_template_fd(self->tmpl));
}

static PyMethodDef template_methods[] = {
    {"spawn", (PyCFunction)template_spawn, METH_VARARGS, template_spawn_doc},
    {"fd", (PyCFunction)template_fd, METH_NOARGS, template_fd_doc},
    {NULL, NULL, 0, NULL}
};

static PyMemberDef template_members[] = {
    {"path", T_OBJECT, offsetof(TemplateObject, path), READONLY,
     "The executable's absolute path."},
    {NULL}
};

PyDoc_STRVAR(template_doc,
"Template(path)\n\
\n\
A spawn template of the executable at the absolute path: where the\n\
kernel has templates its file is opened, pinned and its ELF headers read\n\
once (libpidspawn's pidspawn_template_create(3)), and each spawn() takes\n\
a new empty process from it.  Elsewhere spawns go by path.");

static PyType_Slot template_slots[] = {
    {Py_tp_doc, (void *)template_doc},
    {Py_tp_new, template_new},
    {Py_tp_dealloc, template_dealloc},
    {Py_tp_traverse, template_traverse},
    {Py_tp_methods, template_methods},
    {Py_tp_members, template_members},
    {0, NULL}
};

static PyType_Spec template_spec = {
    .name = "pidspawn._pidspawn.Template",
    .basicsize = sizeof(TemplateObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC |
             Py_TPFLAGS_IMMUTABLETYPE,
    .slots = template_slots,
};

/* module level code ********************************************************/

static PyMethodDef module_methods[] = {
    {"fork_exec", pidspawn_fork_exec, METH_VARARGS, pidspawn_fork_exec_doc},
    {"backend", pidspawn_backend_impl, METH_NOARGS, pidspawn_backend_doc},
    {NULL, NULL, 0, NULL}
};

/*
 * The stock fork_exec(), even if ours replaced it already (a second
 * interpreter's import): then the one our first module found.
 */
static int
module_exec(PyObject *module)
{
    pidspawn_state *state = get_state(module);
    PyObject *ps, *f;

    ps = PyImport_ImportModule("_posixsubprocess");
    if (ps == NULL) {
        return -1;
    }
    f = PyObject_GetAttrString(ps, "fork_exec");
    Py_DECREF(ps);
    if (f == NULL) {
        return -1;
    }
    if (PyCFunction_Check(f) &&
        PyCFunction_GET_FUNCTION(f) == (PyCFunction)pidspawn_fork_exec) {
        PyObject *other = PyCFunction_GET_SELF(f);
        PyObject *stock = other ? get_state(other)->stock : NULL;
        Py_XINCREF(stock);
        Py_DECREF(f);
        f = stock;
    }
    state->stock = f;
    state->template_type = (PyTypeObject *)PyType_FromModuleAndSpec(
        module, &template_spec, NULL);
    if (state->template_type == NULL) {
        return -1;
    }
    if (PyModule_AddType(module, state->template_type) < 0) {
        return -1;
    }
    return 0;
}

static int
module_traverse(PyObject *module, visitproc visit, void *arg)
{
    pidspawn_state *state = get_state(module);
    Py_VISIT(state->stock);
    Py_VISIT(state->template_type);
    return 0;
}

static int
module_clear(PyObject *module)
{
    pidspawn_state *state = get_state(module);
    Py_CLEAR(state->stock);
    Py_CLEAR(state->template_type);
    return 0;
}

static void
module_free(void *module)
{
    module_clear((PyObject *)module);
}

PyDoc_STRVAR(module_doc,
"subprocess's fork_exec() on libpidspawn: children made without fork().");

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
    {0, NULL}
};

static struct PyModuleDef pidspawnmodule = {
    PyModuleDef_HEAD_INIT,
    .m_name = "pidspawn._pidspawn",
    .m_doc = module_doc,
    .m_size = sizeof(pidspawn_state),
    .m_methods = module_methods,
    .m_slots = module_slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC
PyInit__pidspawn(void)
{
    return PyModuleDef_Init(&pidspawnmodule);
}

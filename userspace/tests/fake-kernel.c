// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A test double of the kernel contract, for hosts without pidfd_config():
 * LD_PRELOADed under the tests, it answers pidfd_open(0, PIDFD_EMPTY) and
 * system call 500 in userspace (a fork()ed child runs the steps at START)
 * so that the library's native path runs on the host.  It checks the
 * library's side only: what it sends and in which order.  The real kernel
 * is tested in the guest.
 *
 * Intercepts syscall() (the library's only way in), read() and close()
 * (the failure messages and the end of an emulated pidfd).  The forked
 * child must not take the lock it may have inherited held: it calls the
 * real close() only.  The lock is let go around that fork() and taken by
 * pthread_atfork(), so that the caller's own fork handlers may close
 * emulated fds in the child.
 *
 * The failure messages follow the kernel's for the steps fork_exec() of
 * the Python module tells apart ("START: action N, ...", "START: execve
 * of ...", "START: setpgid to N: ..."); the umask, the groups and the
 * real, effective and saved ids are set in the contract's order.
 *
 * Spawn templates are emulated too (PIDSPAWN_FAKE_NO_TEMPLATES=1: answered
 * EOPNOTSUPP, as a kernel without them): MAKE_TEMPLATE takes an absolute
 * path or an fd and an ELF file (ENOEXEC otherwise); NEW_EMPTY checks the
 * process and its uids and gids (EACCES) and gives a pidfd with the
 * template's executable only (the library puts nothing else in one);
 * START from it fails with ESTALE after the actions when the path leads to
 * another file.  A template fd shares its entry with its F_DUPFD copies
 * made through syscall().  Writers of the executable are not refused.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <sys/stat.h>
/* <linux/pidfd.h> wants <linux/fcntl.h>, which clashes with <fcntl.h>. */
#define _LINUX_FCNTL_H
#include <linux/openat2.h>
#include <linux/pidfd.h>
#include <linux/sched/types.h>

#ifndef __NR_pidfd_config
#define __NR_pidfd_config 500
#endif
#define MAXFD		65536
#define INTERNAL_FD	1000	/* the child's own fds live from here */

struct act {
	unsigned int cmd;
	char *path;
	int fd, newfd, aux;
	unsigned int flags;	/* ACT_DUP2's */
	struct open_how how;
};

struct empty {
	int state;		/* 0 configuring, 1 started, 2 failed */
	int exec_fd, cwd_fd, cgroup_fd, inherit;
	char *cwd_path;		/* SET_CWD's path: looked up by the child */
	char exec_path[4096];	/* what exec_fd is, for scripts */
	char **argv, **envp;
	char **search;		/* SET_EXEC_SEARCH, instead of exec_fd */
	int has_mask, has_def, setsid, setpgid, pgid, resetids, has_sched;
	int has_umask, umask, has_groups, ngroups, has_resuid, has_resgid;
	gid_t *groups;
	struct pidfd_resid resuid, resgid;
	struct sched_attr sched;
	unsigned long mask, def;
	struct act *acts;
	int nacts;
	char msg[512];
	/* templates */
	char key[4096];		/* SET_EXEC_PATH's path, absolute or not */
	int by_path, is_tmpl, refs, from_tmpl;
	dev_t tdev;		/* the template's file, for ESTALE */
	ino_t tino;
	pid_t towner;
	uid_t tuid, teuid;
	gid_t tgid, tegid;
};

static struct empty *table[MAXFD];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static long (*real_syscall)(long, ...);
static ssize_t (*real_read)(int, void *, size_t);
static int (*real_close)(int);

static void init(void)
{
	if (!real_syscall) {
		real_read = dlsym(RTLD_NEXT, "read");
		real_close = dlsym(RTLD_NEXT, "close");
		real_syscall = dlsym(RTLD_NEXT, "syscall");
	}
}

static void lock_all(void)
{
	pthread_mutex_lock(&lock);
}

static void unlock_all(void)
{
	pthread_mutex_unlock(&lock);
}

/* First of the fork handlers: the others find the lock free. */
__attribute__((constructor)) static void setup(void)
{
	init();
	pthread_atfork(lock_all, unlock_all, unlock_all);
}

static long fail(int err)
{
	errno = err;
	return -1;
}

static char **copy_vec(char *const *v)
{
	int n = 0;
	char **c;

	while (v[n])
		n++;
	c = calloc(n + 1, sizeof(*c));
	for (int i = 0; i < n; i++)
		c[i] = strdup(v[i]);
	return c;
}

static void drop(int fd)
{
	struct empty *e = table[fd];

	if (!e)
		return;
	table[fd] = NULL;
	if (e->is_tmpl && --e->refs > 0)
		return;
	for (int i = 0; i < e->nacts; i++)
		free(e->acts[i].path);
	free(e->acts);
	if (e->exec_fd >= 0)
		real_close(e->exec_fd);
	if (e->cwd_fd >= 0)
		real_close(e->cwd_fd);
	free(e->cwd_path);
	if (e->cgroup_fd >= 0)
		real_close(e->cgroup_fd);
	free(e->groups);
	free(e);
}

static int is_internal(int fd)
{
	return fd >= INTERNAL_FD;
}

static void child_close(int fd)
{
	if (!is_internal(fd))
		real_close(fd);
}

/*
 * The steps at START, in the contract's order; returns errno and, in
 * what, the kernel's message for the step but its error.
 */
#define WHAT(...) snprintf(what, WHAT_SIZE, __VA_ARGS__)
#define WHAT_SIZE 256
static int child_steps(struct empty *e, char *what)
{
	int fd, fl;

	/* The kernel creates the child there; joining first is as good. */
	WHAT("cgroup");
	if (e->cgroup_fd >= 0) {
		fd = openat(e->cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "0", 1) != 1)
			return errno;
		real_close(fd);
	}
	WHAT("sigdefault");
	for (int sig = 1; e->has_def && sig <= 64; sig++)
		if (e->def >> (sig - 1) & 1 && sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	WHAT("setting the scheduler");
	if (e->has_sched && syscall(SYS_sched_setattr, 0, &e->sched, 0))
		return errno;
	WHAT("setsid");
	if (e->setsid && setsid() < 0)
		return errno;
	WHAT("setpgid to %d", e->pgid);
	if (e->setpgid && setpgid(0, e->pgid))
		return errno;
	WHAT("resetting the effective ids");
	if (e->resetids && (setresuid(-1, getuid(), -1) ||
			    setresgid(-1, getgid(), -1)))
		return errno;
	if (e->has_umask)
		umask(e->umask);
	if (!e->inherit)
		for (fd = 3; fd < INTERNAL_FD; fd++)
			real_close(fd);
	WHAT("changing to the working directory");
	if (e->cwd_fd >= 0 && fchdir(e->cwd_fd))
		return errno;
	if (e->cwd_path && chdir(e->cwd_path))
		return errno;
	for (int i = 0; i < e->nacts; i++) {
		struct act *a = &e->acts[i];

		WHAT("action %d, %.150s", i, a->path ? a->path : "");
		switch (a->cmd) {
		case PIDFD_CONFIG_ACT_DUP2:
			if (is_internal(a->fd) || fcntl(a->fd, F_GETFD) < 0)
				return EBADF;
			/* Onto itself: dup2()'s no-op, unless told to clear. */
			if (a->fd == a->newfd) {
				fl = fcntl(a->fd, F_GETFD);
				if (a->flags & PIDFD_FD_CLEAR_CLOEXEC)
					fcntl(a->fd, F_SETFD, fl & ~FD_CLOEXEC);
			} else if (dup2(a->fd, a->newfd) < 0) {
				return errno;
			}
			break;
		case PIDFD_CONFIG_ACT_CLOSE:
			/* A plain close(): not open is EBADF. */
			if (is_internal(a->aux) || real_close(a->aux))
				return EBADF;
			break;
		case PIDFD_CONFIG_ACT_OPEN:
			/* Closed, opened lowest, moved as by dup2(). */
			child_close(a->aux);
			fd = syscall(SYS_openat2, AT_FDCWD, a->path, &a->how,
				     sizeof(a->how));
			if (fd < 0)
				return errno;
			if (fd != a->aux) {
				if (dup2(fd, a->aux) < 0)
					return errno;
				real_close(fd);
			}
			break;
		case PIDFD_CONFIG_ACT_CLOSE_RANGE:
			for (fd = a->fd; fd < INTERNAL_FD &&
			     (a->newfd < 0 || fd <= a->newfd); fd++)
				if (a->aux)
					fcntl(fd, F_SETFD, FD_CLOEXEC);
				else
					real_close(fd);
			break;
		case PIDFD_CONFIG_ACT_GIVE_FD:
			if (dup2(a->fd, a->newfd) < 0)
				return errno;
			break;
		case PIDFD_CONFIG_ACT_CHDIR:
			if (chdir(a->path))
				return errno;
			break;
		case PIDFD_CONFIG_ACT_FCHDIR:
			if (is_internal(a->aux))
				return EBADF;
			if (fchdir(a->aux))
				return errno;
			break;
		case PIDFD_CONFIG_ACT_TCSETPGRP: {
			pid_t pgrp = getpgid(0);

			if (is_internal(a->aux))
				return EBADF;
			if (ioctl(a->aux, TIOCSPGRP, &pgrp))
				return errno;
			break;
		}
		}
	}
	/* The identity: groups, gids, uids, each as its system call. */
	WHAT("setgroups()");
	if (e->has_groups && syscall(SYS_setgroups, e->ngroups, e->groups))
		return errno;
	WHAT("setresgid(%d, %d, %d)", (int)e->resgid.real,
	     (int)e->resgid.effective, (int)e->resgid.saved);
	if (e->has_resgid && syscall(SYS_setresgid, e->resgid.real,
				     e->resgid.effective, e->resgid.saved))
		return errno;
	WHAT("setresuid(%d, %d, %d)", (int)e->resuid.real,
	     (int)e->resuid.effective, (int)e->resuid.saved);
	if (e->has_resuid && syscall(SYS_setresuid, e->resuid.real,
				     e->resuid.effective, e->resuid.saved))
		return errno;
	/* The kernel looks the template's path up again before the exec. */
	WHAT("opening \"%.150s\" to execute it", e->key);
	if (e->from_tmpl) {
		struct stat st;

		if (stat(e->key, &st))
			return errno;
		if (st.st_dev != e->tdev || st.st_ino != e->tino)
			return ESTALE;
	}
	WHAT("sigmask");
	if (e->has_mask)
		syscall(SYS_rt_sigprocmask, SIG_SETMASK, &e->mask, NULL, 8);
	/* By path: a script's interpreter could not open a close-on-exec fd. */
	char *none[] = { NULL };
	if (!e->search) {
		WHAT("execve of \"%.150s\"", e->exec_path);
		execve(e->exec_path, e->argv ? e->argv : none,
		       e->envp ? e->envp : none);
		return errno;
	}
	/* As execvp() goes through PATH; the kernel's message. */
	int eacces = 0, n = 0, i;
	while (e->search[n])
		n++;
	for (i = 0; i < n; i++) {
		execve(e->search[i], e->argv ? e->argv : none,
		       e->envp ? e->envp : none);
		if (errno != EACCES && errno != ENOENT && errno != ESTALE &&
		    errno != ENOTDIR && errno != ENODEV && errno != ETIMEDOUT)
			break;
		eacces |= errno == EACCES;
	}
	fl = eacces && i == n ? EACCES : errno;
	if (n == 1)
		WHAT("execve of \"%.150s\"", e->search[0]);
	else
		WHAT("execve of %d of %d paths, the last \"%.150s\"",
		     i + 1 < n ? i + 1 : n, n, e->search[i < n ? i : n - 1]);
	return fl;
}

static long start(int pidfd, struct empty *e)
{
	int pipefd[2], err = 0, st, pfd;
	struct { int err; char what[WHAT_SIZE]; } rep = { 0 };
	pid_t pid;

	if (e->exec_fd < 0 && !e->search)
		return fail(EINVAL);
	if (pipe2(pipefd, O_CLOEXEC))
		return -1;
	pthread_mutex_unlock(&lock);
	pid = fork();
	if (pid)
		pthread_mutex_lock(&lock);
	if (pid == 0) {
		struct rlimit nofile, raised;
		int w;

		/* Room for the double's own fds above a lowered limit. */
		getrlimit(RLIMIT_NOFILE, &nofile);
		raised = nofile;
		raised.rlim_cur = raised.rlim_max;
		setrlimit(RLIMIT_NOFILE, &raised);
		w = fcntl(pipefd[1], F_DUPFD_CLOEXEC, INTERNAL_FD + 10);

		real_close(pipefd[0]);
		real_close(pipefd[1]);
		if (e->exec_fd >= 0)
			e->exec_fd = fcntl(e->exec_fd, F_DUPFD_CLOEXEC, INTERNAL_FD + 20);
		if (e->cgroup_fd >= 0)
			e->cgroup_fd = fcntl(e->cgroup_fd, F_DUPFD_CLOEXEC, INTERNAL_FD + 25);
		if (e->cwd_fd >= 0)
			e->cwd_fd = fcntl(e->cwd_fd, F_DUPFD_CLOEXEC, INTERNAL_FD + 30);
		for (int i = 0; i < e->nacts; i++)
			if (e->acts[i].cmd == PIDFD_CONFIG_ACT_GIVE_FD)
				e->acts[i].fd = fcntl(e->acts[i].fd, F_DUPFD_CLOEXEC,
						      INTERNAL_FD + 40 + i);
		setrlimit(RLIMIT_NOFILE, &nofile);
		rep.err = child_steps(e, rep.what);
		if (write(w, &rep, sizeof(rep)) < 0)
			_exit(126);
		_exit(127);
	}
	real_close(pipefd[1]);
	if (pid < 0) {
		err = errno;
		real_close(pipefd[0]);
		return fail(err);
	}
	if (real_read(pipefd[0], &rep, sizeof(rep)) == sizeof(rep)) {
		waitpid(pid, &st, 0);
		real_close(pipefd[0]);
		e->state = 2;
		snprintf(e->msg, sizeof(e->msg), "e START: %s: %s\n", rep.what,
			 strerror(rep.err));
		return fail(rep.err);
	}
	real_close(pipefd[0]);
	/* From now on the fd is a real pidfd for the child (still EBUSY). */
	pfd = real_syscall(SYS_pidfd_open, pid, 0);
	dup3(pfd, pidfd, O_CLOEXEC);
	real_close(pfd);
	e->state = 1;
	return pid;
}

/* The executable's path now, to exec it by. */
static int pin(struct empty *e)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", e->exec_fd);
	n = readlink(link, e->exec_path, sizeof(e->exec_path) - 1);
	if (n < 0)
		return -1;
	e->exec_path[n] = '\0';
	return 0;
}

static int no_templates(void)
{
	const char *v = getenv("PIDSPAWN_FAKE_NO_TEMPLATES");

	return v && *v && strcmp(v, "0");
}

/* A new emulated empty pidfd, @e or a fresh one. */
static int new_pidfd(struct empty *e, int flags)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC | flags);

	if (fd < 0)
		return -1;
	if (!e) {
		e = calloc(1, sizeof(*e));
		e->exec_fd = e->cwd_fd = e->cgroup_fd = -1;
	}
	drop(fd);
	table[fd] = e;
	return fd;
}

/*
 * Where the emulated template keeps its executable open, which the kernel
 * holds without an fd: among the library's template fds (above 7/8 of
 * RLIMIT_NOFILE, at most 1024), not in the program's range.
 */
static int high_fd(void)
{
	struct rlimit rl;
	rlim_t lim = getrlimit(RLIMIT_NOFILE, &rl) ? 0 : rl.rlim_cur;

	if (lim > 1024)
		lim = 1024;
	return (int)(lim - lim / 16);
}

static long make_template(struct empty *e, int aux)
{
	struct empty *t;
	char magic[4];
	struct stat st;
	int fd, x;

	if (aux || e->search || e->exec_fd < 0 ||
	    e->by_path < 0)
		return fail(EINVAL);
	x = open(e->exec_path, O_RDONLY | O_CLOEXEC);
	if (x < 0)
		return -1;
	if (real_read(x, magic, 4) != 4 || memcmp(magic, "\177ELF", 4)) {
		real_close(x);
		return fail(ENOEXEC);
	}
	real_close(x);
	t = calloc(1, sizeof(*t));
	*t = *e;
	t->acts = NULL;
	t->nacts = 0;
	t->cwd_fd = t->cgroup_fd = -1;
	t->cwd_path = NULL;
	/* Its processes take nothing but the executable from it here. */
	t->groups = NULL;
	t->has_groups = 0;
	t->exec_fd = fcntl(e->exec_fd, F_DUPFD_CLOEXEC, high_fd());
	fstat(t->exec_fd, &st);
	t->tdev = st.st_dev;
	t->tino = st.st_ino;
	t->towner = getpid();
	t->tuid = getuid();
	t->teuid = geteuid();
	t->tgid = getgid();
	t->tegid = getegid();
	t->is_tmpl = t->refs = 1;
	/* Close-on-exec, as the kernel makes a template. */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		real_close(t->exec_fd);
		free(t);
		return -1;
	}
	drop(fd);
	table[fd] = t;
	e->state = 3;		/* EBUSY from now on */
	return fd;
}

static long template_cmd(struct empty *t, unsigned int cmd, const char *key,
			 const void *value, int aux)
{
	struct empty *e;

	if (getpid() != t->towner || getuid() != t->tuid ||
	    geteuid() != t->teuid || getgid() != t->tgid ||
	    getegid() != t->tegid)
		return fail(EACCES);
	if (cmd != PIDFD_CONFIG_NEW_EMPTY || key || value ||
	    aux & ~PIDFD_NONBLOCK)
		return fail(EINVAL);
	e = calloc(1, sizeof(*e));
	e->cwd_fd = e->cgroup_fd = -1;
	e->exec_fd = fcntl(t->exec_fd, F_DUPFD_CLOEXEC, 3);
	memcpy(e->exec_path, t->exec_path, sizeof(e->exec_path));
	memcpy(e->key, t->key, sizeof(e->key));
	e->by_path = t->by_path;
	e->tdev = t->tdev;
	e->tino = t->tino;
	e->from_tmpl = 1;
	return new_pidfd(e, aux & PIDFD_NONBLOCK);
}

/*
 * The commands emulated: the ranges of the control commands, the program,
 * files and posix_spawn()'s attributes, and of the later ones those the
 * Python module sends.
 */
static int emulated(unsigned int cmd)
{
	return (cmd >= PIDFD_CONFIG_START && cmd <= PIDFD_CONFIG_NEW_EMPTY) ||
	       (cmd >= PIDFD_CONFIG_SET_EXEC_FD && cmd <= PIDFD_CONFIG_SET_ENVP) ||
	       (cmd >= PIDFD_CONFIG_SET_CWD && cmd <= PIDFD_CONFIG_ACT_TCSETPGRP) ||
	       (cmd >= PIDFD_CONFIG_SET_SIGMASK && cmd <= PIDFD_CONFIG_SET_CGROUP) ||
	       cmd == PIDFD_CONFIG_SET_UMASK || cmd == PIDFD_CONFIG_SET_GROUPS ||
	       cmd == PIDFD_CONFIG_SET_RESUID || cmd == PIDFD_CONFIG_SET_RESGID;
}

static long config(int fd, unsigned int cmd, const char *key,
		   const void *value, int aux)
{
	struct empty *e = fd >= 0 && fd < MAXFD ? table[fd] : NULL;
	static const unsigned int struct_size[] = {
		[PIDFD_CONFIG_ACT_DUP2] = sizeof(struct pidfd_fd_pair),
		[PIDFD_CONFIG_ACT_GIVE_FD] = sizeof(struct pidfd_fd_pair),
		[PIDFD_CONFIG_ACT_OPEN] = sizeof(struct pidfd_open_action),
		[PIDFD_CONFIG_ACT_CLOSE_RANGE] = sizeof(struct pidfd_fd_range),
		[PIDFD_CONFIG_SET_SCHEDULER] = sizeof(struct sched_attr),
		[PIDFD_CONFIG_SET_RESUID] = sizeof(struct pidfd_resid),
		[PIDFD_CONFIG_SET_RESGID] = sizeof(struct pidfd_resid),
	};
	struct pidfd_fd_pair pair = { 0 };
	struct act a = { .cmd = cmd };
	int takes_key = 0, takes_value = 0, takes_aux = 0;

	if (!e)
		return fail(fd >= 0 && fd < MAXFD && fcntl(fd, F_GETFD) >= 0 ?
			    EINVAL : EBADF);
	if (!emulated(cmd) || ((cmd == PIDFD_CONFIG_MAKE_TEMPLATE ||
				cmd == PIDFD_CONFIG_NEW_EMPTY) && no_templates()))
		return fail(EOPNOTSUPP);
	if (e->is_tmpl)
		return template_cmd(e, cmd, key, value, aux);
	if (cmd == PIDFD_CONFIG_NEW_EMPTY)
		return fail(EINVAL);
	if (e->state)
		return fail(EBUSY);
	if (e->from_tmpl && (cmd == PIDFD_CONFIG_SET_EXEC_FD ||
			     cmd == PIDFD_CONFIG_SET_EXEC_PATH ||
			     cmd == PIDFD_CONFIG_SET_EXEC_SEARCH ||
			     cmd == PIDFD_CONFIG_MAKE_TEMPLATE))
		return fail(EINVAL);
	switch (cmd) {
	case PIDFD_CONFIG_SET_EXEC_PATH: case PIDFD_CONFIG_SET_CWD:
	case PIDFD_CONFIG_ACT_OPEN:
		takes_key = takes_aux = 1;
		takes_value = cmd == PIDFD_CONFIG_ACT_OPEN;
		break;
	case PIDFD_CONFIG_ACT_CHDIR:
		takes_key = 1;
		break;
	case PIDFD_CONFIG_SET_ARGV: case PIDFD_CONFIG_SET_ENVP:
	case PIDFD_CONFIG_SET_EXEC_SEARCH:
		takes_value = 1;
		break;
	case PIDFD_CONFIG_ACT_DUP2: case PIDFD_CONFIG_ACT_GIVE_FD:
	case PIDFD_CONFIG_ACT_CLOSE_RANGE: case PIDFD_CONFIG_SET_SIGMASK:
	case PIDFD_CONFIG_SET_SIGDEFAULT: case PIDFD_CONFIG_SET_SCHEDULER:
		takes_value = takes_aux = 1;
		break;
	case PIDFD_CONFIG_SET_EXEC_FD: case PIDFD_CONFIG_ACT_CLOSE:
	case PIDFD_CONFIG_ACT_FCHDIR: case PIDFD_CONFIG_SETPGID:
	case PIDFD_CONFIG_ACT_TCSETPGRP:
	case PIDFD_CONFIG_SET_CGROUP: case PIDFD_CONFIG_SET_UMASK:
		takes_aux = 1;
		break;
	case PIDFD_CONFIG_SET_GROUPS: case PIDFD_CONFIG_SET_RESUID:
	case PIDFD_CONFIG_SET_RESGID:
		takes_value = takes_aux = 1;
		break;
	}
	if ((key && !takes_key) || (value && !takes_value) || (aux && !takes_aux))
		return fail(EINVAL);
	/* Sized structures: the library sends the size of its header's. */
	if (cmd < sizeof(struct_size) / sizeof(struct_size[0]) &&
	    struct_size[cmd] && (!value || aux != (int)struct_size[cmd]))
		return fail(EINVAL);
	switch (cmd) {
	case PIDFD_CONFIG_MAKE_TEMPLATE:
		return make_template(e, aux);
	case PIDFD_CONFIG_SET_EXEC_FD:
		e->by_path = 0;
		e->search = NULL;
		if (e->exec_fd >= 0)
			real_close(e->exec_fd);
		e->exec_fd = fcntl(aux, F_DUPFD_CLOEXEC, 3);
		return e->exec_fd < 0 ? -1 : pin(e);
	case PIDFD_CONFIG_SET_EXEC_PATH: {
		struct stat st;
		int x = openat(aux, key, O_PATH | O_CLOEXEC);

		if (x < 0)
			return -1;
		if (fstat(x, &st) || !S_ISREG(st.st_mode) ||
		    faccessat(aux, key, X_OK, AT_EACCESS)) {
			real_close(x);
			return fail(EACCES);
		}
		if (e->exec_fd >= 0)
			real_close(e->exec_fd);
		e->exec_fd = x;
		e->search = NULL;
		e->by_path = key[0] == '/' ? 1 : -1;
		snprintf(e->key, sizeof(e->key), "%s", key);
		return pin(e);
	}
	case PIDFD_CONFIG_SET_ARGV:
		e->argv = copy_vec(value);	/* leaks: a test double */
		return 0;
	case PIDFD_CONFIG_SET_EXEC_SEARCH:
		if (!value || !*(char *const *)value)
			return fail(EINVAL);
		if (e->exec_fd >= 0)
			real_close(e->exec_fd);
		e->exec_fd = -1;
		e->search = copy_vec(value);
		return 0;
	case PIDFD_CONFIG_SET_ENVP:
		e->envp = copy_vec(value);
		return 0;
	case PIDFD_CONFIG_SET_CWD:
		/*
		 * A descriptor is taken now; a path is the child's chdir(),
		 * from the descriptor it is relative to.
		 */
		if (e->cwd_fd >= 0)
			real_close(e->cwd_fd);
		free(e->cwd_path);
		e->cwd_path = NULL;
		e->cwd_fd = -1;
		if (!key || (key[0] != '/' && aux != AT_FDCWD)) {
			e->cwd_fd = openat(aux, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (e->cwd_fd < 0)
				return -1;
		}
		if (key)
			e->cwd_path = strdup(key);
		return 0;
	case PIDFD_CONFIG_INHERIT_FDS:
		e->inherit = 1;
		return 0;
	case PIDFD_CONFIG_SET_SIGMASK:
	case PIDFD_CONFIG_SET_SIGDEFAULT:
		if (aux != 8)
			return fail(EINVAL);
		*(cmd == PIDFD_CONFIG_SET_SIGMASK ? &e->mask : &e->def) =
			*(const unsigned long *)value;
		*(cmd == PIDFD_CONFIG_SET_SIGMASK ? &e->has_mask : &e->has_def) = 1;
		return 0;
	case PIDFD_CONFIG_SETSID:
		e->setsid = 1;
		return 0;
	case PIDFD_CONFIG_SETPGID:
		e->setpgid = 1;
		e->pgid = aux;
		return 0;
	case PIDFD_CONFIG_RESETIDS:
		e->resetids = 1;
		return 0;
	case PIDFD_CONFIG_SET_SCHEDULER:
		e->has_sched = 1;
		e->sched = *(const struct sched_attr *)value;
		return 0;
	case PIDFD_CONFIG_SET_CGROUP:
		/* As clone3(): EINVAL for a negative fd. */
		if (aux < 0)
			return fail(EINVAL);
		if (e->cgroup_fd >= 0)
			real_close(e->cgroup_fd);
		e->cgroup_fd = fcntl(aux, F_DUPFD_CLOEXEC, 3);
		return e->cgroup_fd < 0 ? -1 : 0;
	case PIDFD_CONFIG_SET_UMASK:
		/* Other bits fail, where umask() would drop them. */
		if (aux & ~0777)
			return fail(EINVAL);
		e->has_umask = 1;
		e->umask = aux;
		return 0;
	case PIDFD_CONFIG_SET_GROUPS:
		if (aux < 0 || aux > 65536 || (aux && !value))
			return fail(EINVAL);
		free(e->groups);
		e->groups = calloc(aux ? aux : 1, sizeof(gid_t));
		if (aux)
			memcpy(e->groups, value, aux * sizeof(gid_t));
		e->ngroups = aux;
		e->has_groups = 1;
		return 0;
	case PIDFD_CONFIG_SET_RESUID:
	case PIDFD_CONFIG_SET_RESGID:
		if (((const struct pidfd_resid *)value)->__reserved)
			return fail(EINVAL);
		*(cmd == PIDFD_CONFIG_SET_RESUID ? &e->resuid : &e->resgid) =
			*(const struct pidfd_resid *)value;
		*(cmd == PIDFD_CONFIG_SET_RESUID ? &e->has_resuid : &e->has_resgid) = 1;
		return 0;
	case PIDFD_CONFIG_START:
		return start(fd, e);
	}
	/* The actions, in the shape the child replays them. */
	a.aux = aux;
	if (cmd == PIDFD_CONFIG_ACT_DUP2 || cmd == PIDFD_CONFIG_ACT_GIVE_FD) {
		memcpy(&pair, value, aux);
		/* DUP2 knows PIDFD_FD_CLEAR_CLOEXEC, GIVE_FD no flag. */
		if (pair.__reserved || pair.flags & ~(cmd == PIDFD_CONFIG_ACT_DUP2 ?
						      PIDFD_FD_CLEAR_CLOEXEC : 0))
			return fail(EINVAL);
		a.fd = pair.fd;
		a.newfd = pair.newfd;
		a.flags = pair.flags;
	} else if (cmd == PIDFD_CONFIG_ACT_CLOSE_RANGE) {
		const struct pidfd_fd_range *r = value;

		if (r->__reserved)
			return fail(EINVAL);
		a.fd = r->first;
		a.newfd = r->last == ~0U ? -1 : (int)r->last;
		a.aux = r->flags;
	} else if (cmd == PIDFD_CONFIG_ACT_OPEN) {
		const struct pidfd_open_action *o = value;

		a.how = (struct open_how){ .flags = o->flags, .mode = o->mode,
					   .resolve = o->resolve };
		a.aux = o->fd;
	}
	if (key)
		a.path = strdup(key);
	if (cmd == PIDFD_CONFIG_ACT_OPEN && (a.how.mode & ~07777 ||
	    (a.how.mode && !(a.how.flags & (O_CREAT | __O_TMPFILE))))) {
		free(a.path);
		return fail(EINVAL);	/* as openat2() */
	}
	/* The number is looked up at START; open now, or EBADF. */
	if (cmd == PIDFD_CONFIG_ACT_GIVE_FD && fcntl(pair.fd, F_GETFD) < 0) {
		free(a.path);
		return -1;
	}
	e->acts = realloc(e->acts, (e->nacts + 1) * sizeof(*e->acts));
	e->acts[e->nacts++] = a;
	return 0;
}

long syscall(long nr, ...)
{
	long a[6];
	va_list ap;
	long ret;

	init();
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_pidfd_open && a[0] == 0 && (a[1] & PIDFD_EMPTY)) {
		pthread_mutex_lock(&lock);
		ret = new_pidfd(NULL, 0);
		pthread_mutex_unlock(&lock);
		return ret;
	}
	/* A copy of a template is the same template. */
	if (nr == SYS_fcntl && (a[1] == F_DUPFD || a[1] == F_DUPFD_CLOEXEC) &&
	    a[0] >= 0 && a[0] < MAXFD) {
		pthread_mutex_lock(&lock);
		ret = real_syscall(nr, a[0], a[1], a[2]);
		if (ret >= 0 && ret < MAXFD && table[a[0]] &&
		    table[a[0]]->is_tmpl) {
			drop(ret);
			table[ret] = table[a[0]];
			table[ret]->refs++;
		}
		pthread_mutex_unlock(&lock);
		return ret;
	}
	if (nr == __NR_pidfd_config) {
		pthread_mutex_lock(&lock);
		ret = config(a[0], a[1], (const char *)a[2], (const void *)a[3],
			     a[4]);
		pthread_mutex_unlock(&lock);
		return ret;
	}
	if (nr == SYS_close && a[0] >= 0 && a[0] < MAXFD) {
		pthread_mutex_lock(&lock);
		drop(a[0]);
		pthread_mutex_unlock(&lock);
	}
	return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int close(int fd)
{
	init();
	if (fd >= 0 && fd < MAXFD) {
		pthread_mutex_lock(&lock);
		drop(fd);
		pthread_mutex_unlock(&lock);
	}
	return real_close(fd);
}

ssize_t read(int fd, void *buf, size_t n)
{
	struct empty *e;
	size_t len;

	init();
	e = fd >= 0 && fd < MAXFD ? table[fd] : NULL;
	if (!e || e->state == 1)
		return real_read(fd, buf, n);
	if (!e->msg[0])
		return fail(ENODATA);
	len = strlen(e->msg);
	len = len < n ? len : n;
	memcpy(buf, e->msg, len);
	e->msg[0] = '\0';
	return len;
}

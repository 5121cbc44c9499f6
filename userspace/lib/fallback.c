// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fallback: glibc's way.  A child sharing our memory (CLONE_VM |
 * CLONE_VFORK) on its own stack does the attributes and file actions and
 * execs; we sleep until it has exec'd or exited.  All signals are blocked
 * around it so no handler of ours runs on the child's side; it reports a
 * failure by writing errno into our memory and exiting with 127, and we
 * reap it.  The child uses raw system calls only: no locks, no
 * cancellation points, no setxid broadcast to our threads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/sched.h>
#include "pidspawn.h"
#include "internal.h"

#define SPAWN_ERROR	127

long spawn_clone3(struct clone_args *args, size_t size, int (*fn)(void *),
		  void *arg) HIDDEN;

struct child {
	const struct spawn *s;
	const posix_spawnattr_t *attr;
	struct search st;
	unsigned long oldmask;
	int err;
};

/* The kernel's struct sigaction, for rt_sigaction() without glibc. */
struct ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

static int member(const sigset_t *set, int sig)
{
	const unsigned long *w = (const unsigned long *)set;

	return (w[(sig - 1) / (8 * sizeof(*w))] >>
		((sig - 1) % (8 * sizeof(*w)))) & 1;
}

/*
 * As glibc 2.36: POSIX_SPAWN_SETSIGDEF's signals to SIG_DFL, every
 * handler to SIG_DFL (none may run in our memory), ignored signals stay
 * ignored, and glibc's two internal signals become SIG_IGN.
 */
static void child_signals(const posix_spawnattr_t *attr)
{
	for (int sig = 1; sig < _NSIG; sig++) {
		struct ksigaction sa = { .handler = SIG_DFL }, old;

		if ((attr->__flags & POSIX_SPAWN_SETSIGDEF) &&
		    member(&attr->__sd, sig))
			;
		else if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		else if (GLIBC_SIGNALS >> (sig - 1) & 1)
			sa.handler = SIG_IGN;
		else if (syscall(SYS_rt_sigaction, sig, NULL, &old,
				 KSIGSET_SIZE) ||
			 old.handler == SIG_IGN || old.handler == SIG_DFL)
			continue;
		syscall(SYS_rt_sigaction, sig, &sa, NULL, KSIGSET_SIZE);
	}
}

static int child_action(const struct action *a)
{
	struct rlimit rl;
	int fd, flags;
	pid_t pgrp;

	switch (a->tag) {
	case ACT_CLOSE:
		/* Not open is no error, unless out of range. */
		if (!syscall(SYS_close, a->fd))
			return 0;
		getrlimit(RLIMIT_NOFILE, &rl);
		return a->fd < 0 || (rlim_t)a->fd >= rl.rlim_cur ? -1 : 0;
	case ACT_OPEN:
		/* POSIX: an open fd is closed first. */
		syscall(SYS_close, a->fd);
		fd = syscall(SYS_openat, AT_FDCWD, a->path, a->oflag, a->mode);
		if (fd < 0)
			return -1;
		if (fd != a->fd &&
		    (syscall(SYS_dup3, fd, a->fd, 0) < 0 ||
		     syscall(SYS_close, fd)))
			return -1;
		return 0;
	case ACT_DUP2:
		/* POSIX: dup2 of an fd onto itself clears FD_CLOEXEC. */
		if (a->fd != a->newfd)
			return syscall(SYS_dup3, a->fd, a->newfd, 0) < 0 ? -1 : 0;
		flags = syscall(SYS_fcntl, a->fd, F_GETFD);
		if (flags < 0)
			return -1;
		return syscall(SYS_fcntl, a->fd, F_SETFD, flags & ~FD_CLOEXEC);
	case ACT_CHDIR:
		return syscall(SYS_chdir, a->path);
	case ACT_FCHDIR:
		return syscall(SYS_fchdir, a->fd);
	case ACT_CLOSEFROM:
		return syscall(SYS_close_range, a->fd, ~0U, 0);
	case ACT_TCSETPGRP:
		pgrp = syscall(SYS_getpgid, 0);
		return syscall(SYS_ioctl, a->fd, TIOCSPGRP, &pgrp);
	}
	errno = EINVAL;
	return -1;
}

/* Attributes and file actions in glibc's order; -1 with errno on failure. */
static int child_setup(struct child *c)
{
	const struct spawn *s = c->s;
	const posix_spawnattr_t *attr = c->attr;
	const struct action *a = s->fa ? ACTIONS(s->fa) : NULL;
	int n = s->fa ? s->fa->__used : 0, fl = attr->__flags;
	unsigned long mask;

	child_signals(attr);
	if ((fl & (POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER)) ==
	    POSIX_SPAWN_SETSCHEDPARAM) {
		if (syscall(SYS_sched_setparam, 0, &attr->__sp))
			return -1;
	} else if ((fl & POSIX_SPAWN_SETSCHEDULER) &&
		   syscall(SYS_sched_setscheduler, 0, attr->__policy,
			   &attr->__sp)) {
		return -1;
	}
	if ((fl & POSIX_SPAWN_SETSID) && syscall(SYS_setsid) < 0)
		return -1;
	if ((fl & POSIX_SPAWN_SETPGROUP) &&
	    syscall(SYS_setpgid, 0, attr->__pgrp))
		return -1;
	/* glibc's order: effective uid first, then gid. */
	if ((fl & POSIX_SPAWN_RESETIDS) &&
	    (syscall(SYS_setresuid, -1, syscall(SYS_getuid), -1) ||
	     syscall(SYS_setresgid, -1, syscall(SYS_getgid), -1)))
		return -1;
	for (int i = 0; i < n; i++)
		if (child_action(&a[i]))
			return -1;

	mask = fl & POSIX_SPAWN_SETSIGMASK ? *(unsigned long *)&attr->__ss :
	       c->oldmask;
	mask &= ~GLIBC_SIGNALS;
	return syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, NULL,
		       KSIGSET_SIZE);
}

/* execve(), or posix_spawnp's search; returns with errno set. */
static void child_exec(struct child *c)
{
	const struct spawn *s = c->s;
	int eacces = 0;

	if (!c->st.file) {
		syscall(SYS_execve, s->file, s->argv, s->envp);
		return;
	}
	char buf[c->st.plen + c->st.flen + 1];
	while (search_next(&c->st, buf)) {
		syscall(SYS_execve, buf, s->argv, s->envp);
		if (!search_goes_on(errno))
			return;
		eacces |= errno == EACCES;
	}
	if (eacces)
		errno = EACCES;
}

static int child(void *arg)
{
	struct child *c = arg;

	if (!child_setup(c))
		child_exec(c);
	c->err = errno ? errno : ECHILD;
	syscall(SYS_exit_group, SPAWN_ERROR);
	return SPAWN_ERROR;
}

int spawn_fallback(struct spawn *s)
{
	static const posix_spawnattr_t none;
	struct child c = { .s = s, .attr = s->attr ? s->attr : &none };
	int cgroup = c.attr->__flags & POSIX_SPAWN_SETCGROUP, pidfd = -1, err;
	unsigned long all = ~0UL;
	size_t size = 32 * 1024;
	char *stack;
	long pid;

	if (s->search && !strchr(s->file, '/')) {
		if (!*s->file)
			return ENOENT;
		err = search_init(&c.st, s->file);
		if (err)
			return err;
		size += c.st.plen + c.st.flen + 1;
	}
	size = (size + 4095) & ~4095UL;
	stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return errno;

	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &c.oldmask, KSIGSET_SIZE);
#ifdef __x86_64__
	struct clone_args ca = {
		.flags = CLONE_VM | CLONE_VFORK |
			 (s->want_pidfd ? CLONE_PIDFD : 0) |
			 (cgroup ? CLONE_INTO_CGROUP : 0),
		.pidfd = (uintptr_t)&pidfd,
		.exit_signal = SIGCHLD,
		.stack = (uintptr_t)stack,
		.stack_size = size,
		.cgroup = cgroup ? (unsigned int)ATTR_CGROUP(c.attr) : 0,
	};
	pid = spawn_clone3(&ca, sizeof(ca), child, &c);
#else
	pid = -ENOSYS;
#endif
	/* No clone3() (old kernel, seccomp): clone() does all but cgroups. */
	if (pid == -ENOSYS && cgroup)
		pid = -ENOTSUP;
	else if (pid == -ENOSYS &&
		 (pid = clone(child, stack + size, CLONE_VM | CLONE_VFORK |
			      SIGCHLD | (s->want_pidfd ? CLONE_PIDFD : 0),
			      &c, &pidfd)) < 0)
		pid = -errno;
	if (pid > 0) {
		err = c.err;
		if (err) {
			syscall(SYS_wait4, pid, NULL, 0, NULL);
			if (pidfd >= 0)
				syscall(SYS_close, pidfd);
		}
	} else {
		err = -pid;
	}
	munmap(stack, size);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &c.oldmask, NULL, KSIGSET_SIZE);
	if (!err) {
		s->pid = pid;
		s->pidfd = pidfd;
	}
	return err;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix_spawn(), posix_spawnp(), pidfd_spawn(), pidfd_spawnp() and
 * pidspawn_template_spawn(): on a kernel with pidfd_config() one empty
 * pidfd (from a template when there is one, template.c) configured to do
 * what glibc's child would do, in glibc's order (the kernel runs the
 * steps in that order); else, and for the cases the kernel cannot
 * express exactly (configure() below), the clone() fallback (fallback.c).
 * This file asks the others; none of them calls back into it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include "pidspawn.h"
#include "internal.h"

/* PIDSPAWN_TRACE=file: one line per call, how it was done (for tests). */
static void trace(const struct spawn *s, const char *how, int err)
{
	const char *path = getenv("PIDSPAWN_TRACE");
	char line[512];
	int fd, n;

	if (!path || !*path)
		return;
	n = snprintf(line, sizeof(line), "%s %s: %s: %d\n", s->name, s->file,
		     how, err);
	if (n < 0 || n >= (int)sizeof(line))
		n = sizeof(line) - 1;
	fd = syscall(SYS_openat, AT_FDCWD, path,
		     O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (syscall(SYS_write, fd, line, n) < 0)
		n = 0;
	syscall(SYS_close, fd);
}

/* open(2)'s view of flags and mode; the kernel takes them as openat2(2)
 * does, which rejects unknown flags and a mode without O_CREAT/O_TMPFILE. */
static void open_how_of(const struct action *a, int *flags, mode_t *mode)
{
	const int known = O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC |
			  O_APPEND | O_NONBLOCK | O_SYNC | O_DSYNC | O_ASYNC |
			  O_DIRECT | O_DIRECTORY | O_NOFOLLOW | O_NOATIME |
			  O_CLOEXEC | O_PATH | O_TMPFILE;

	*flags = a->oflag & known;
	if (*flags & O_PATH)
		*flags &= O_DIRECTORY | O_NOFOLLOW | O_PATH | O_CLOEXEC;
	*mode = (*flags & O_CREAT) || (*flags & O_TMPFILE) == O_TMPFILE ?
		a->mode & 07777 : 0;
}

/* RLIMIT_NOFILE's soft limit, which the child inherits. */
static rlim_t nofile_limit(void)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_NOFILE, &rl) ? RLIM_INFINITY : rl.rlim_cur;
}

/* The attributes whose step in glibc's child can fail, before the actions. */
#define FALLIBLE_ATTRS	(POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER | \
			 POSIX_SPAWN_SETSID | POSIX_SPAWN_SETPGROUP | \
			 POSIX_SPAWN_RESETIDS | POSIX_SPAWN_SETCGROUP)

/*
 * Everything but the executable, in glibc's order.  0; an error number
 * where the kernel refuses a setting whose failure is the first glibc's
 * call could meet (its clone3() for the cgroup, the child's first step for
 * the scheduler, the execve() after no fallible step for argv and envp);
 * -1 on any other error: glibc might fail elsewhere first.
 */
static int configure(const struct spawn *s, int pidfd, unsigned long caller_mask)
{
	static const posix_spawnattr_t none;
	const posix_spawnattr_t *at = s->attr ? s->attr : &none;
	const struct action *a = s->fa ? ACTIONS(s->fa) : NULL;
	int n = s->fa ? s->fa->__used : 0, fl = at->__flags, err = 0;
	int have_nofile = 0;	/* looked up at the first close only */
	rlim_t nofile = 0;
	struct sched_param sp = at->__sp;

	/* A kernel without the command (EOPNOTSUPP): the fallback does it. */
	if ((fl & POSIX_SPAWN_SETCGROUP) &&
	    pidspawn_set_cgroup(pidfd, ATTR_CGROUP(at)))
		return errno == EOPNOTSUPP ? -1 : errno;
	if ((fl & (POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER)) ==
	    POSIX_SPAWN_SETSCHEDPARAM)
		err = pidspawn_set_scheduler(pidfd, -1, &sp);
	else if (fl & POSIX_SPAWN_SETSCHEDULER)
		err = pidspawn_set_scheduler(pidfd, at->__policy, &sp);
	if (err)
		return fl & POSIX_SPAWN_SETCGROUP || errno == EOPNOTSUPP ? -1 : errno;
	/* Unset argv is empty and unset envp empty, as execve() takes NULL. */
	if ((s->argv && pidspawn_set_argv(pidfd, s->argv)) ||
	    (s->envp && pidspawn_set_envp(pidfd, s->envp)))
		return errno == E2BIG && !n && !(fl & FALLIBLE_ATTRS) ? E2BIG : -1;

	err |= pidspawn_inherit_fds(pidfd);
	if (fl & POSIX_SPAWN_SETSIGDEF)
		err |= pidspawn_set_sigdefault(pidfd, &at->__sd);
	if (fl & POSIX_SPAWN_SETSID)
		err |= pidspawn_setsid(pidfd);
	if (fl & POSIX_SPAWN_SETPGROUP)
		err |= pidspawn_setpgid(pidfd, at->__pgrp);
	if (fl & POSIX_SPAWN_RESETIDS)
		err |= pidspawn_resetids(pidfd);
	/*
	 * Our pidfd is in the child's copy of our table, at the number
	 * glibc's child has free: the lowest, where an open lands.  Its
	 * actions must find that number free, as glibc's would.  A plain
	 * close: the fd is open there.
	 */
	if (n)
		err |= pidspawn_act_close(pidfd, pidfd);
	for (int i = 0; i < n && !err; i++) {
		int flags;
		mode_t mode;

		switch (a[i].tag) {
		case ACT_CLOSE:
			/*
			 * glibc's child ignores a failed close() below
			 * RLIMIT_NOFILE (the child has ours) and fails with
			 * EBADF from it up; the kernel's ACT_CLOSE fails on
			 * a closed fd, close_range() of the one fd does not.
			 * The child's seccomp filter then sees close_range().
			 */
			if (!have_nofile) {
				nofile = nofile_limit();
				have_nofile = 1;
			}
			err = (rlim_t)a[i].fd < nofile ?
			      pidspawn_act_close_range(pidfd, a[i].fd, a[i].fd, 0) :
			      pidspawn_act_close(pidfd, a[i].fd);
			break;
		case ACT_OPEN:
			open_how_of(&a[i], &flags, &mode);
			err = pidspawn_act_open(pidfd, a[i].fd, a[i].path,
						flags, mode);
			break;
		case ACT_DUP2:
			/* POSIX: onto itself, it clears FD_CLOEXEC. */
			err = pidspawn_act_dup2_flags(pidfd, a[i].fd, a[i].newfd,
						      a[i].fd == a[i].newfd ?
						      CLEAR_CLOEXEC : 0);
			break;
		case ACT_CHDIR:
			err = pidspawn_act_chdir(pidfd, a[i].path);
			break;
		case ACT_FCHDIR:
			/*
			 * glibc takes any fd here and its child's fchdir()
			 * fails with EBADF; the kernel refuses a negative one
			 * up front, so ask for one that cannot be open.
			 */
			err = pidspawn_act_fchdir(pidfd, a[i].fd < 0 ? INT_MAX :
						  a[i].fd);
			break;
		case ACT_CLOSEFROM:
			err = pidspawn_act_close_range(pidfd, a[i].fd, ~0U, 0);
			break;
		case ACT_TCSETPGRP:
			err = pidspawn_act_tcsetpgrp(pidfd, a[i].fd);
			break;
		default:
			err = -1;
			break;
		}
	}
	/*
	 * Always given, as glibc's child sets it: the attribute's, else the
	 * caller's from before spawn_native() blocked all signals.  glibc
	 * unblocks its own signals whatever the set says.
	 */
	sigset_t mask = at->__ss;

	if (!(fl & POSIX_SPAWN_SETSIGMASK)) {
		sigemptyset(&mask);
		((unsigned long *)&mask)[0] = caller_mask;
	}
	((unsigned long *)&mask)[0] &= ~GLIBC_SIGNALS;
	err |= pidspawn_set_sigmask(pidfd, &mask);
	return err ? -1 : 0;
}

/*
 * The executable, resolved by the child after its actions, as glibc's
 * child resolves it: the path given, or for a PATH search each name
 * glibc's search would try (see search_next()), tried by the kernel as
 * execvp() tries them.
 */
static const char *set_exec(const struct spawn *s, int pidfd)
{
	const char *one[] = { s->file, NULL };
	struct search st, first;
	size_t n = 0, size = 0;
	char **v, *p;
	int err;

	/* "" and a name beyond NAME_MAX fail in the child, as in glibc's. */
	if (!s->search || strchr(s->file, '/') || !*s->file ||
	    search_init(&st, s->file))
		return pidspawn_set_exec_search(pidfd, (char *const *)one) ?
		       "executable not set" : NULL;

	char buf[st.plen + st.flen + 1];

	first = st;
	while (search_next(&st, buf)) {
		n++;
		size += strlen(buf) + 1;
	}
	v = malloc((n + 1) * sizeof(*v) + size);
	if (!v)
		return "no memory for the search";
	p = (char *)(v + n + 1);
	st = first;
	for (n = 0; search_next(&st, buf); n++) {
		v[n] = p;
		p = stpcpy(p, buf) + 1;
	}
	v[n] = NULL;
	err = pidspawn_set_exec_search(pidfd, v);
	free(v);
	return err ? "search not set" : NULL;
}

/*
 * Whether a START from a template that failed with @err is tried again:
 * ESTALE (the path now leads to another file: the template is made again,
 * or the spawn goes by path); EACCES (also the kernel's answer once our
 * root directory changed since the template was made: by path then, as
 * an execve() of that path could still succeed); and for a PATH search
 * any error on which the search goes on (by path then: the child searches
 * as glibc's would).  Only a spawn whose first child left nothing behind:
 * the cache takes no other; pidspawn_template_spawn() returns ESTALE for
 * the others.
 */
static int start_again(const struct spawn *s, int err)
{
	return (err == ESTALE || err == EACCES ||
		(s->search && search_goes_on(err))) && template_repeatable(s);
}

static int spawn_native_blocked(struct spawn *s, const char **why,
				unsigned long caller_mask)
{
	int pidfd, pid, err, tries = 0, by_path = 0;

again:
	*why = NULL;
	pidfd = by_path ? -1 : template_empty(s);
	s->templated = pidfd >= 0;
	if (pidfd < 0)
		pidfd = pidspawn_create(0);
	if (pidfd < 0) {
		*why = "no empty pidfd";	/* EMFILE: no free fd */
		return -1;
	}
	err = configure(s, pidfd, caller_mask);
	if (err > 0) {
		/* Where glibc's call would fail first, with that error. */
		syscall(SYS_close, pidfd);
		return err;
	}
	/* A template's executable is set: it is the file s->file leads to. */
	*why = err ? "configuration failed" :
	       s->templated ? NULL : set_exec(s, pidfd);
	if (*why) {
		syscall(SYS_close, pidfd);
		return -1;
	}
	pid = pidspawn_start(pidfd);
	err = pid < 0 ? errno : 0;
	if (err || !s->want_pidfd)
		syscall(SYS_close, pidfd);
	if (err && s->templated && !tries++ && start_again(s, err)) {
		/* ESTALE: template_empty() sees the new file and remakes. */
		by_path = err != ESTALE;
		goto again;
	}
	if (!err) {
		s->pid = pid;
		s->pidfd = pidfd;
	}
	return err;
}

/*
 * 0 or an error number, or -1 with *why: take the fallback.  As glibc
 * does for the whole call, all signals are blocked from the first
 * setting to the start's return: no handler of ours runs while the start
 * waits for the exec, it cannot fail with EINTR, and the mask the child
 * gets is the one the caller had (one call reads and blocks).
 */
static int spawn_native(struct spawn *s, const char **why)
{
	unsigned long all = ~0UL, old;
	int ret;

	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &old, KSIGSET_SIZE);
	ret = spawn_native_blocked(s, why, old);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, KSIGSET_SIZE);
	return ret;
}

static int spawn_run(struct spawn *s)
{
	const char *why = "fallback backend";
	int err = -1;

	if (pidspawn_backend() == PIDSPAWN_NATIVE)
		err = spawn_native(s, &why);
	if (err < 0) {
		s->templated = 0;
		err = spawn_fallback(s);
	}
	trace(s, err >= 0 && !why ? (s->templated ? "template" : "native") :
	      why, err);
	return err;
}

static int spawn_call(const char *name, int search, int want_pidfd, int *out,
		      const char *file, const posix_spawn_file_actions_t *fa,
		      const posix_spawnattr_t *attr, char *const argv[],
		      char *const envp[])
{
	struct spawn s = { .name = name, .file = file, .search = search,
			   .want_pidfd = want_pidfd, .fa = fa, .attr = attr,
			   .argv = argv, .envp = envp };
	char **child_envp = shim_child_envp ? shim_child_envp(envp) : NULL;
	int err;

	if (child_envp)
		s.envp = child_envp;
	err = spawn_run(&s);
	free(child_envp);
	if (!err && out)
		*out = want_pidfd ? s.pidfd : s.pid;
	return err;
}

int posix_spawn(pid_t *__restrict pid, const char *__restrict path,
		const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *__restrict attr, char *const argv[],
		char *const envp[])
{
	return spawn_call("posix_spawn", 0, 0, pid, path, fa, attr, argv, envp);
}

int posix_spawnp(pid_t *__restrict pid, const char *__restrict file,
		 const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *__restrict attr, char *const argv[],
		 char *const envp[])
{
	return spawn_call("posix_spawnp", 1, 0, pid, file, fa, attr, argv,
			  envp);
}

int pidfd_spawn(int *__restrict pidfd, const char *__restrict path,
		const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *__restrict attr, char *const argv[],
		char *const envp[])
{
	return spawn_call("pidfd_spawn", 0, 1, pidfd, path, fa, attr, argv,
			  envp);
}

int pidfd_spawnp(int *__restrict pidfd, const char *__restrict file,
		 const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *__restrict attr, char *const argv[],
		 char *const envp[])
{
	return spawn_call("pidfd_spawnp", 1, 1, pidfd, file, fa, attr, argv,
			  envp);
}

/* The template's executable, from its template when it has one. */
int pidspawn_template_spawn(struct pidspawn_template *tmpl, pid_t *pid,
			    int *pidfd, const posix_spawn_file_actions_t *fa,
			    const posix_spawnattr_t *attr, char *const argv[],
			    char *const envp[])
{
	struct spawn s = { .name = "pidspawn_template_spawn",
			   .file = template_path(tmpl),
			   .want_pidfd = pidfd != NULL, .fa = fa, .attr = attr,
			   .argv = argv, .envp = envp, .tmpl = tmpl };
	int err = spawn_run(&s);

	if (!err && pid)
		*pid = s.pid;
	if (!err && pidfd)
		*pidfd = s.pidfd;
	return err;
}

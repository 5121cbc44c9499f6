// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The raw layer and the builder: each function is one system call.  This
 * is the only file that includes the kernel's <linux/pidfd.h> (it cannot
 * meet the C library's <fcntl.h>, see pidspawn.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/pidfd.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include "pidspawn.h"
#include "internal.h"

#ifndef __NR_pidfd_config
#define __NR_pidfd_config 500
#endif

int pidspawn_create(unsigned int flags)
{
	return syscall(__NR_pidfd_open, 0, PIDFD_EMPTY | flags);
}

int pidspawn_config(int pidfd, unsigned int cmd, const char *key,
		    const void *value, int aux)
{
	return syscall(__NR_pidfd_config, pidfd, cmd, key, value, aux);
}

int pidspawn_set_exec_fd(int pidfd, int fd)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_EXEC_FD, NULL, NULL, fd);
}

int pidspawn_set_exec_path(int pidfd, int dirfd, const char *path)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_EXEC_PATH, path, NULL,
			       dirfd);
}

int pidspawn_set_exec_search(int pidfd, char *const paths[])
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_EXEC_SEARCH, NULL, paths,
			       0);
}

int pidspawn_set_argv(int pidfd, char *const argv[])
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_ARGV, NULL, argv, 0);
}

int pidspawn_set_envp(int pidfd, char *const envp[])
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_ENVP, NULL, envp, 0);
}

int pidspawn_set_cwd(int pidfd, int dirfd, const char *path)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_CWD, path, NULL, dirfd);
}

int pidspawn_inherit_fds(int pidfd)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_INHERIT_FDS, NULL, NULL, 0);
}

/* The commands that take a structure take its size in aux. */
static int act_pair(int pidfd, unsigned int cmd, int fd, int newfd,
		    unsigned int flags)
{
	struct pidfd_fd_pair pair = { .fd = fd, .newfd = newfd,
				      .flags = flags };

	return pidspawn_config(pidfd, cmd, NULL, &pair, sizeof(pair));
}

_Static_assert(CLEAR_CLOEXEC == PIDFD_FD_CLEAR_CLOEXEC, "uapi flag");

int pidspawn_act_dup2(int pidfd, int fd, int newfd)
{
	return act_pair(pidfd, PIDFD_CONFIG_ACT_DUP2, fd, newfd, 0);
}

int pidspawn_act_dup2_flags(int pidfd, int fd, int newfd, unsigned int flags)
{
	return act_pair(pidfd, PIDFD_CONFIG_ACT_DUP2, fd, newfd, flags);
}

int pidspawn_act_close(int pidfd, int fd)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_ACT_CLOSE, NULL, NULL, fd);
}

int pidspawn_act_open(int pidfd, int fd, const char *path, int flags,
		      mode_t mode)
{
	struct pidfd_open_action act = { .flags = (unsigned int)flags,
					 .mode = mode, .fd = fd };

	return pidspawn_config(pidfd, PIDFD_CONFIG_ACT_OPEN, path, &act,
			       sizeof(act));
}

int pidspawn_act_close_range(int pidfd, unsigned int first, unsigned int last,
			     unsigned int flags)
{
	struct pidfd_fd_range range = { .first = first, .last = last,
					.flags = flags };

	return pidspawn_config(pidfd, PIDFD_CONFIG_ACT_CLOSE_RANGE, NULL,
			       &range, sizeof(range));
}

int pidspawn_act_give_fd(int pidfd, int fd, int newfd)
{
	return act_pair(pidfd, PIDFD_CONFIG_ACT_GIVE_FD, fd, newfd, 0);
}

int pidspawn_act_chdir(int pidfd, const char *path)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_ACT_CHDIR, path, NULL, 0);
}

int pidspawn_act_fchdir(int pidfd, int fd)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_ACT_FCHDIR, NULL, NULL, fd);
}

int pidspawn_act_tcsetpgrp(int pidfd, int fd)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_ACT_TCSETPGRP, NULL, NULL,
			       fd);
}

int pidspawn_set_sigmask(int pidfd, const sigset_t *set)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_SIGMASK, NULL, set,
			       KSIGSET_SIZE);
}

int pidspawn_set_sigdefault(int pidfd, const sigset_t *set)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_SIGDEFAULT, NULL, set,
			       KSIGSET_SIZE);
}

int pidspawn_setsid(int pidfd)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SETSID, NULL, NULL, 0);
}

int pidspawn_setpgid(int pidfd, pid_t pgid)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SETPGID, NULL, NULL, pgid);
}

int pidspawn_resetids(int pidfd)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_RESETIDS, NULL, NULL, 0);
}

/*
 * sched_setscheduler()'s arguments (policy -1: sched_setparam()'s) as the
 * struct sched_attr the kernel takes.  sched_setattr() also sets the nice
 * value of a fair policy, which those two keep: the child's is ours.
 */
int pidspawn_set_scheduler(int pidfd, int policy,
			   const struct sched_param *param)
{
	struct sched_attr attr = { .size = sizeof(attr) };
	int saved = errno, nice;

	if (policy == -1) {
		attr.sched_flags = SCHED_FLAG_KEEP_POLICY;
	} else if (policy < 0) {
		errno = EINVAL;
		return -1;
	} else {
		if (policy & SCHED_RESET_ON_FORK)
			attr.sched_flags = SCHED_FLAG_RESET_ON_FORK;
		attr.sched_policy = policy & ~SCHED_RESET_ON_FORK;
	}
	attr.sched_priority = param->sched_priority;
	errno = 0;
	nice = getpriority(PRIO_PROCESS, 0);
	attr.sched_nice = errno ? 0 : nice;
	errno = saved;
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_SCHEDULER, NULL, &attr,
			       sizeof(attr));
}

int pidspawn_set_cgroup(int pidfd, int cgroupfd)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_CGROUP, NULL, NULL,
			       cgroupfd);
}

/* The C library's RLIM_INFINITY is the kernel's, as for prlimit(). */
int pidspawn_set_rlimit(int pidfd, int resource, const struct rlimit *rlim)
{
	struct rlimit64 rl = { rlim->rlim_cur, rlim->rlim_max };

	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_RLIMIT, NULL, &rl,
			       resource);
}

int pidspawn_set_umask(int pidfd, mode_t mask)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_UMASK, NULL, NULL,
			       mask & 0777);
}

int pidspawn_set_pdeathsig(int pidfd, int sig)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_PDEATHSIG, NULL, NULL,
			       sig);
}

int pidspawn_set_no_new_privs(int pidfd)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_NO_NEW_PRIVS, NULL,
			       NULL, 0);
}

/* Returns 0, or the listener with SECCOMP_FILTER_FLAG_NEW_LISTENER. */
int pidspawn_set_seccomp_filter(int pidfd, unsigned int flags,
				const struct sock_fprog *prog)
{
	struct pidfd_seccomp_filter f = {
		.flags = flags,
		.filter = (uintptr_t)prog->filter,
		.len = prog->len,
	};

	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_SECCOMP_FILTER, NULL, &f,
			       sizeof(f));
}

int pidspawn_set_personality(int pidfd, unsigned long persona)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_PERSONALITY, NULL, NULL,
			       (int)persona);
}

int pidspawn_set_oom_score_adj(int pidfd, int adj)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_OOM_SCORE_ADJ, NULL, NULL,
			       adj);
}

int pidspawn_set_cpu_affinity(int pidfd, size_t size, const void *mask)
{
	if (size > INT_MAX) {
		errno = EINVAL;
		return -1;
	}
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_CPU_AFFINITY, NULL, mask,
			       (int)size);
}

int pidspawn_set_landlock(int pidfd, int rulesetfd)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_LANDLOCK, NULL, NULL,
			       rulesetfd);
}

/* The kernel takes the flags as a __u64, as clone3() does. */
int pidspawn_set_namespaces(int pidfd, int flags)
{
	uint64_t set = (unsigned int)flags;

	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_NAMESPACES, NULL, &set,
			       0);
}

int pidspawn_set_uid_map(int pidfd, const char *map)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_UID_MAP, map, NULL, 0);
}

int pidspawn_set_gid_map(int pidfd, const char *map)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_GID_MAP, map, NULL, 0);
}

int pidspawn_deny_setgroups(int pidfd)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_DENY_SETGROUPS, NULL, NULL, 0);
}

int pidspawn_set_groups(int pidfd, size_t size, const gid_t *list)
{
	/* gid_t is the kernel's __u32. */
	_Static_assert(sizeof(gid_t) == sizeof(__u32), "gid_t is 32 bits");
	if (size > INT_MAX) {
		errno = EINVAL;
		return -1;
	}
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_GROUPS, NULL,
			       size ? list : NULL, (int)size);
}

static int set_resid(int pidfd, unsigned int cmd, unsigned int real,
		     unsigned int effective, unsigned int saved)
{
	struct pidfd_resid id = {
		.real = real, .effective = effective, .saved = saved,
	};

	return pidspawn_config(pidfd, cmd, NULL, &id, sizeof(id));
}

int pidspawn_set_resuid(int pidfd, uid_t ruid, uid_t euid, uid_t suid)
{
	return set_resid(pidfd, PIDFD_CONFIG_SET_RESUID, ruid, euid, suid);
}

int pidspawn_set_resgid(int pidfd, gid_t rgid, gid_t egid, gid_t sgid)
{
	return set_resid(pidfd, PIDFD_CONFIG_SET_RESGID, rgid, egid, sgid);
}

int pidspawn_set_caps(int pidfd, uint64_t effective, uint64_t permitted,
		      uint64_t inheritable)
{
	struct pidfd_caps caps = {
		.effective = effective, .permitted = permitted,
		.inheritable = inheritable,
	};

	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_CAPS, NULL, &caps,
			       sizeof(caps));
}

int pidspawn_set_securebits(int pidfd, unsigned int bits)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_SECUREBITS, NULL, NULL,
			       (int)bits);
}

int pidspawn_capbset_drop(int pidfd, int cap)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_CAPBSET_DROP, NULL, NULL, cap);
}

int pidspawn_cap_ambient_raise(int pidfd, int cap)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_CAP_AMBIENT_RAISE, NULL, NULL,
			       cap);
}

int pidspawn_cap_ambient_clear(int pidfd)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_CAP_AMBIENT_CLEAR, NULL, NULL,
			       0);
}

int pidspawn_set_autoreap(int pidfd)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_AUTOREAP, NULL, NULL, 0);
}

int pidspawn_set_autokill(int pidfd)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_AUTOKILL, NULL, NULL, 0);
}

int pidspawn_set_root(int pidfd, int dirfd, const char *path)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_SET_ROOT, path, NULL, dirfd);
}

int pidspawn_make_template(int pidfd, unsigned int flags)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_MAKE_TEMPLATE, NULL, NULL,
			       flags);
}

int pidspawn_template_new(int tfd, unsigned int flags)
{
	return pidspawn_config(tfd, PIDFD_CONFIG_NEW_EMPTY, NULL, NULL, flags);
}

pid_t pidspawn_start(int pidfd)
{
	return pidspawn_config(pidfd, PIDFD_CONFIG_START, NULL, NULL, 0);
}

/* waitid() on the pidfd, its result as a waitpid() status. */
int pidspawn_wait(int pidfd, int *status)
{
	siginfo_t si = { 0 };

	if (waitid(P_PIDFD, pidfd, &si, WEXITED) < 0)
		return -1;
	if (status)
		*status = si.si_code == CLD_EXITED ? (si.si_status & 0xff) << 8 :
			  si.si_code == CLD_DUMPED ? si.si_status | 0x80 :
			  si.si_status;
	return 0;
}

/* One message of a failed start, without its "e " and newline. */
ssize_t pidspawn_error(int pidfd, char *buf, size_t size)
{
	ssize_t n;

	if (size < 1) {
		errno = EINVAL;
		return -1;
	}
	n = read(pidfd, buf, size - 1);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	if (n >= 2 && buf[0] == 'e' && buf[1] == ' ') {
		n -= 2;
		memmove(buf, buf + 2, n + 1);
	}
	return n;
}

/*
 * Is pidfd_config() there?  Asked only with an empty pidfd in hand: a
 * kernel without the series fails pidfd_open(0, PIDFD_EMPTY) with EINVAL
 * and is never sent system call 500 (a number mainline has not reached;
 * its 463 is setxattrat() from 6.13 on).  A known kernel answers
 * EOPNOTSUPP to an unknown command, a kernel with PIDFD_EMPTY but no
 * pidfd_config() ENOSYS.  0: cannot tell now (no free fd, no memory), ask
 * again next time.
 */
static int probe(void)
{
	int fd = pidspawn_create(0), native;

	if (fd < 0)
		return errno == EMFILE || errno == ENFILE || errno == ENOMEM ||
		       errno == EAGAIN ? 0 : PIDSPAWN_FALLBACK;
	native = pidspawn_config(fd, ~0U, NULL, NULL, 0) < 0 &&
		 errno == EOPNOTSUPP;
	syscall(SYS_close, fd);		/* no cancellation point */
	return native ? PIDSPAWN_NATIVE : PIDSPAWN_FALLBACK;
}

int pidspawn_backend(void)
{
	static int chosen;
	int b = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);
	const char *env;

	if (b)
		return b;
	env = getenv("PIDSPAWN_BACKEND");
	if (env && !strcmp(env, "native"))
		b = PIDSPAWN_NATIVE;
	else if (env && !strcmp(env, "fallback"))
		b = PIDSPAWN_FALLBACK;
	else
		b = probe();
	if (!b)
		return PIDSPAWN_FALLBACK;
	/* Threads racing here compute the same answer. */
	__atomic_store_n(&chosen, b, __ATOMIC_RELEASE);
	return b;
}

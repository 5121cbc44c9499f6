// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * posix_spawn_file_actions_t and posix_spawnattr_t, glibc's objects with
 * glibc's checks: an fd is valid when 0 <= fd < getdtablesize() (but
 * addfchdir_np checks none), flags and policies outside glibc's lists are
 * EINVAL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pidspawn.h"
#include "internal.h"

#define ALL_FLAGS (POSIX_SPAWN_RESETIDS | POSIX_SPAWN_SETPGROUP | \
		   POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | \
		   POSIX_SPAWN_SETSCHEDPARAM | POSIX_SPAWN_SETSCHEDULER | \
		   POSIX_SPAWN_USEVFORK | POSIX_SPAWN_SETSID | \
		   POSIX_SPAWN_SETCGROUP | POSIX_SPAWN_TEMPLATE_NP)

static int valid_fd(int fd)
{
	return fd >= 0 && fd < getdtablesize();
}

int posix_spawn_file_actions_init(posix_spawn_file_actions_t *fa)
{
	memset(fa, 0, sizeof(*fa));
	return 0;
}

int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *fa)
{
	struct action *a = (struct action *)fa->__actions;

	for (int i = 0; i < fa->__used; i++)
		free(a[i].path);
	free(a);
	return 0;
}

/* Append @act, with its own copy of @path if there is one. */
static int add(posix_spawn_file_actions_t *fa, struct action act,
	       const char *path)
{
	struct action *a = (struct action *)fa->__actions;

	if (path && !(act.path = strdup(path)))
		return ENOMEM;
	if (fa->__used == fa->__allocated) {
		int n = fa->__allocated + 8;

		a = n > 0 ? realloc(a, n * sizeof(*a)) : NULL;
		if (!a) {
			free(act.path);
			return ENOMEM;
		}
		fa->__actions = (struct __spawn_action *)a;
		fa->__allocated = n;
	}
	a[fa->__used++] = act;
	return 0;
}

int posix_spawn_file_actions_addclose(posix_spawn_file_actions_t *fa, int fd)
{
	if (!valid_fd(fd))
		return EBADF;
	return add(fa, (struct action){ .tag = ACT_CLOSE, .fd = fd }, NULL);
}

int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *__restrict fa,
				     int fd, const char *__restrict path,
				     int oflag, mode_t mode)
{
	if (!valid_fd(fd))
		return EBADF;
	return add(fa, (struct action){ .tag = ACT_OPEN, .fd = fd,
			.oflag = oflag, .mode = mode }, path);
}

int posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *fa, int fd,
				     int newfd)
{
	if (!valid_fd(fd) || !valid_fd(newfd))
		return EBADF;
	return add(fa, (struct action){ .tag = ACT_DUP2, .fd = fd,
			.newfd = newfd }, NULL);
}

int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *__restrict fa,
					 const char *__restrict path)
{
	return add(fa, (struct action){ .tag = ACT_CHDIR }, path);
}

/* glibc 2.36 checks no fd here: a bad one fails the spawn with EBADF. */
int posix_spawn_file_actions_addfchdir_np(posix_spawn_file_actions_t *fa,
					  int fd)
{
	return add(fa, (struct action){ .tag = ACT_FCHDIR, .fd = fd }, NULL);
}

int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *fa,
					     int from)
{
	if (!valid_fd(from))
		return EBADF;
	return add(fa, (struct action){ .tag = ACT_CLOSEFROM, .fd = from },
		   NULL);
}

int posix_spawn_file_actions_addtcsetpgrp_np(posix_spawn_file_actions_t *fa,
					     int tcfd)
{
	if (!valid_fd(tcfd))
		return EBADF;
	return add(fa, (struct action){ .tag = ACT_TCSETPGRP, .fd = tcfd },
		   NULL);
}

int posix_spawnattr_init(posix_spawnattr_t *attr)
{
	memset(attr, 0, sizeof(*attr));
	return 0;
}

int posix_spawnattr_destroy(posix_spawnattr_t *attr)
{
	(void)attr;
	return 0;
}

int posix_spawnattr_getflags(const posix_spawnattr_t *__restrict attr,
			     short *__restrict flags)
{
	*flags = attr->__flags;
	return 0;
}

int posix_spawnattr_setflags(posix_spawnattr_t *attr, short flags)
{
	if (flags & ~ALL_FLAGS)
		return EINVAL;
	attr->__flags = flags;
	return 0;
}

int posix_spawnattr_getpgroup(const posix_spawnattr_t *__restrict attr,
			      pid_t *__restrict pgroup)
{
	*pgroup = attr->__pgrp;
	return 0;
}

int posix_spawnattr_setpgroup(posix_spawnattr_t *attr, pid_t pgroup)
{
	attr->__pgrp = pgroup;
	return 0;
}

int posix_spawnattr_getsigmask(const posix_spawnattr_t *__restrict attr,
			       sigset_t *__restrict set)
{
	*set = attr->__ss;
	return 0;
}

int posix_spawnattr_setsigmask(posix_spawnattr_t *__restrict attr,
			       const sigset_t *__restrict set)
{
	attr->__ss = *set;
	return 0;
}

int posix_spawnattr_getsigdefault(const posix_spawnattr_t *__restrict attr,
				  sigset_t *__restrict set)
{
	*set = attr->__sd;
	return 0;
}

int posix_spawnattr_setsigdefault(posix_spawnattr_t *__restrict attr,
				  const sigset_t *__restrict set)
{
	attr->__sd = *set;
	return 0;
}

int posix_spawnattr_getschedpolicy(const posix_spawnattr_t *__restrict attr,
				   int *__restrict policy)
{
	*policy = attr->__policy;
	return 0;
}

int posix_spawnattr_setschedpolicy(posix_spawnattr_t *attr, int policy)
{
	if (policy != SCHED_OTHER && policy != SCHED_FIFO && policy != SCHED_RR)
		return EINVAL;
	attr->__policy = policy;
	return 0;
}

int posix_spawnattr_getschedparam(const posix_spawnattr_t *__restrict attr,
				  struct sched_param *__restrict param)
{
	*param = attr->__sp;
	return 0;
}

int posix_spawnattr_setschedparam(posix_spawnattr_t *__restrict attr,
				  const struct sched_param *__restrict param)
{
	attr->__sp = *param;
	return 0;
}

int posix_spawnattr_getcgroup_np(const posix_spawnattr_t *__restrict attr,
				 int *__restrict cgroup)
{
	*cgroup = ATTR_CGROUP(attr);
	return 0;
}

int posix_spawnattr_setcgroup_np(posix_spawnattr_t *attr, int cgroup)
{
	ATTR_CGROUP(attr) = cgroup;
	return 0;
}

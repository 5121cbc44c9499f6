// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pidspawn_sandbox(): the common sandbox of a tool, as builder commands:
 * no_new_privs, a Landlock ruleset that leaves the file system read-only
 * except beneath one directory, and a seccomp filter that denies a list of
 * system calls (and, with PIDSPAWN_SANDBOX_NO_NETWORK, every socket but
 * AF_UNIX); with PIDSPAWN_SANDBOX_NETNS, new user and network namespaces.
 * The kernel applies them in the child before its program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include "pidspawn.h"

#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000
#endif
/* Landlock ABI 3 (Linux 6.2); older headers lack it. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

/* Every access that changes the file system, by Landlock ABI version. */
static unsigned long long write_access(int abi)
{
	unsigned long long access = LANDLOCK_ACCESS_FS_WRITE_FILE |
		LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
		LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
		LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
		LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		LANDLOCK_ACCESS_FS_MAKE_SYM;

	if (abi >= 2)
		access |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		access |= LANDLOCK_ACCESS_FS_TRUNCATE;
	return access;
}

/*
 * The kernel's Landlock ABI version, asked once: it cannot change while
 * the process runs, and the helper may run at every spawn.
 */
static int landlock_abi(void)
{
	static int abi;
	int v = __atomic_load_n(&abi, __ATOMIC_RELAXED);

	if (!v) {
		v = syscall(SYS_landlock_create_ruleset, NULL, 0,
			    LANDLOCK_CREATE_RULESET_VERSION);
		if (v < 1)
			v = -1;
		__atomic_store_n(&abi, v, __ATOMIC_RELAXED);
	}
	return v;
}

/* A ruleset that allows writing beneath @dir alone, or -1 with errno. */
static int write_ruleset(const char *dir)
{
	struct landlock_ruleset_attr attr = {};
	struct landlock_path_beneath_attr beneath = {};
	int abi, ruleset, saved;

	abi = landlock_abi();
	if (abi < 1) {
		/* Disabled or absent: refuse rather than run unconfined. */
		errno = ENOTSUP;
		return -1;
	}
	attr.handled_access_fs = write_access(abi);
	ruleset = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0 || !dir)
		return ruleset;
	beneath.allowed_access = attr.handled_access_fs;
	beneath.parent_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (beneath.parent_fd < 0 ||
	    syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH,
		    &beneath, 0)) {
		saved = errno;
		if (beneath.parent_fd >= 0)
			close(beneath.parent_fd);
		close(ruleset);
		errno = saved;
		return -1;
	}
	close(beneath.parent_fd);
	return ruleset;
}

#define STMT(code, k)		((struct sock_filter)BPF_STMT(code, k))
#define JUMP(code, k, t, f)	((struct sock_filter)BPF_JUMP(code, k, t, f))
#define LOAD(field)		STMT(BPF_LD | BPF_W | BPF_ABS, \
				     offsetof(struct seccomp_data, field))
#define RET(action)		STMT(BPF_RET | BPF_K, action)

/*
 * The filter: another architecture, or the x32 calls of this one, are
 * killed (they would bypass the list); each listed call fails with EPERM;
 * without network, socket() of any family but AF_UNIX fails with
 * EAFNOSUPPORT, and io_uring, which can make sockets unseen by seccomp,
 * with ENOSYS.
 */
static struct sock_filter *deny_filter(const long *deny, size_t ndeny,
				       unsigned int flags, unsigned short *len)
{
	bool no_network = flags & PIDSPAWN_SANDBOX_NO_NETWORK;
	size_t max = 7 + 2 * ndeny + (no_network ? 6 : 0), n = 0;
	struct sock_filter *prog;

	if (max > BPF_MAXINSNS) {
		errno = E2BIG;
		return NULL;
	}
	prog = calloc(max, sizeof(*prog));
	if (!prog)
		return NULL;
	prog[n++] = LOAD(arch);
	prog[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
	prog[n++] = RET(SECCOMP_RET_KILL_PROCESS);
	prog[n++] = LOAD(nr);
	prog[n++] = JUMP(BPF_JMP | BPF_JGE | BPF_K, __X32_SYSCALL_BIT, 0, 1);
	prog[n++] = RET(SECCOMP_RET_KILL_PROCESS);
	for (size_t i = 0; i < ndeny; i++) {
		prog[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, deny[i], 0, 1);
		prog[n++] = RET(SECCOMP_RET_ERRNO | EPERM);
	}
	if (no_network) {
		prog[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1);
		prog[n++] = RET(SECCOMP_RET_ERRNO | ENOSYS);
		prog[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 3);
		prog[n++] = LOAD(args[0]);
		prog[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0);
		prog[n++] = RET(SECCOMP_RET_ERRNO | EAFNOSUPPORT);
	}
	prog[n++] = RET(SECCOMP_RET_ALLOW);
	*len = n;
	return prog;
}

/*
 * A new network namespace, which an unprivileged caller gets inside a new
 * user namespace; there the caller's ids map to themselves, as
 * bubblewrap's --unshare-user --unshare-net maps them, so that the tool
 * runs as who it would be and owns what the caller owns.
 */
static int own_netns(int pidfd)
{
	char map[32];

	if (pidspawn_set_namespaces(pidfd, CLONE_NEWUSER | CLONE_NEWNET) ||
	    pidspawn_deny_setgroups(pidfd))
		return -1;
	snprintf(map, sizeof(map), "%u %u 1", geteuid(), geteuid());
	if (pidspawn_set_uid_map(pidfd, map))
		return -1;
	snprintf(map, sizeof(map), "%u %u 1", getegid(), getegid());
	return pidspawn_set_gid_map(pidfd, map);
}

int pidspawn_sandbox(int pidfd, const char *writable_dir, const long *deny,
		     size_t ndeny, unsigned int flags)
{
	struct sock_fprog fprog;
	struct sock_filter *prog;
	int ruleset, ret, saved;

	if (flags & ~(PIDSPAWN_SANDBOX_NO_NETWORK | PIDSPAWN_SANDBOX_NETNS)) {
		errno = EINVAL;
		return -1;
	}
	if ((flags & PIDSPAWN_SANDBOX_NETNS) && own_netns(pidfd))
		return -1;
	prog = deny_filter(deny, ndeny, flags, &fprog.len);
	if (!prog)
		return -1;
	fprog.filter = prog;
	ruleset = write_ruleset(writable_dir);
	ret = ruleset < 0 ? -1 : pidspawn_set_no_new_privs(pidfd);
	if (!ret)
		ret = pidspawn_set_landlock(pidfd, ruleset);
	if (!ret)
		ret = pidspawn_set_seccomp_filter(pidfd, 0, &fprog);
	saved = errno;
	if (ruleset >= 0)
		close(ruleset);
	free(prog);
	errno = saved;
	return ret;
}

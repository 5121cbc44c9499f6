/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */

#ifndef _LINUX_PIDFD_H
#define _LINUX_PIDFD_H

#include <linux/types.h>
#include <linux/fcntl.h>
#include <linux/ioctl.h>

/* Flags for pidfd_open().  */
#define PIDFD_NONBLOCK	O_NONBLOCK
#define PIDFD_THREAD	O_EXCL
#define PIDFD_EMPTY	(1U << 30)	/* an empty process, set up by pidfd_config() */

/* Flags for pidfd_send_signal(). */
#define PIDFD_SIGNAL_THREAD		(1UL << 0)
#define PIDFD_SIGNAL_THREAD_GROUP	(1UL << 1)
#define PIDFD_SIGNAL_PROCESS_GROUP	(1UL << 2)

/*
 * Commands for pidfd_config(pidfd, cmd, key, value, aux) on a pidfd from
 * pidfd_open(0, PIDFD_EMPTY); arguments a command does not take must be
 * NULL or 0. SET commands replace an earlier setting.
 * ACT commands are applied in the child, in the order given, to its own
 * file table and working directory; their descriptors are the child's,
 * except the source of ACT_GIVE_FD. A command that takes a structure
 * takes its size in aux, as clone3() and openat2() do: a size from an
 * older header leaves the newer fields zero, a larger one is accepted if
 * the bytes the kernel does not know are zero.
 * Commands are numbered by what they configure, in ranges of 16; 0 is
 * not a command.
 * See Documentation/userspace-api/pidfd_config.rst.
 */
enum pidfd_config_cmd {
	/* 0x01-0x0f: control */
	PIDFD_CONFIG_START		= 0x01,	/* returns the child's pid */
	PIDFD_CONFIG_MAKE_TEMPLATE	= 0x02,	/* returns a template fd */
	PIDFD_CONFIG_NEW_EMPTY		= 0x03,	/* on a template; aux: PIDFD_NONBLOCK */

	/* 0x10-0x1f: the program */
	PIDFD_CONFIG_SET_EXEC_FD	= 0x10,	/* aux: fd, may be O_PATH */
	PIDFD_CONFIG_SET_EXEC_PATH	= 0x11,	/* key: path, aux: dirfd */
	PIDFD_CONFIG_SET_EXEC_SEARCH	= 0x12,	/* value: char *[] of paths to try */
	PIDFD_CONFIG_SET_ARGV		= 0x13,	/* value: char *[] */
	PIDFD_CONFIG_SET_ENVP		= 0x14,	/* value: char *[] */

	/* 0x20-0x2f: files and the working directory */
	PIDFD_CONFIG_SET_CWD		= 0x20,	/* key: path or NULL, aux: dirfd */
	PIDFD_CONFIG_INHERIT_FDS	= 0x21,	/* copy the caller's file table */
	PIDFD_CONFIG_ACT_DUP2		= 0x22,	/* value: struct pidfd_fd_pair */
	PIDFD_CONFIG_ACT_CLOSE		= 0x23,	/* aux: fd */
	PIDFD_CONFIG_ACT_OPEN		= 0x24,	/* key: path, value: struct pidfd_open_action */
	PIDFD_CONFIG_ACT_CLOSE_RANGE	= 0x25,	/* value: struct pidfd_fd_range */
	PIDFD_CONFIG_ACT_GIVE_FD	= 0x26,	/* value: struct pidfd_fd_pair */
	PIDFD_CONFIG_ACT_CHDIR		= 0x27,	/* key: path */
	PIDFD_CONFIG_ACT_FCHDIR		= 0x28,	/* aux: fd */
	PIDFD_CONFIG_ACT_TCSETPGRP	= 0x29,	/* aux: fd of the controlling tty */

	/* 0x30-0x3f: posix_spawn()'s attributes */
	PIDFD_CONFIG_SET_SIGMASK	= 0x30,	/* value: sigset, aux: its size */
	PIDFD_CONFIG_SET_SIGDEFAULT	= 0x31,	/* value: sigset, aux: its size */
	PIDFD_CONFIG_SETSID		= 0x32,
	PIDFD_CONFIG_SETPGID		= 0x33,	/* aux: process group, 0: a new one */
	PIDFD_CONFIG_RESETIDS		= 0x34,
	PIDFD_CONFIG_SET_SCHEDULER	= 0x35,	/* value: struct sched_attr */
	PIDFD_CONFIG_SET_CGROUP		= 0x36,	/* aux: cgroup2 directory fd */

	/* 0x40-0x4f: limits */
	PIDFD_CONFIG_SET_RLIMIT		= 0x40,	/* value: struct rlimit64, aux: resource */
	PIDFD_CONFIG_SET_UMASK		= 0x41,	/* aux: mode bits */
	PIDFD_CONFIG_SET_PDEATHSIG	= 0x42,	/* aux: signal, 0 for none */
	PIDFD_CONFIG_SET_PERSONALITY	= 0x43,	/* aux: personality */
	PIDFD_CONFIG_SET_OOM_SCORE_ADJ	= 0x44,	/* aux: -1000 to 1000 */
	PIDFD_CONFIG_SET_CPU_AFFINITY	= 0x45,	/* value: CPU mask, aux: its size */

	/* 0x50-0x5f: identity */
	PIDFD_CONFIG_SET_GROUPS		= 0x50,	/* value: __u32[], aux: their number */
	PIDFD_CONFIG_SET_RESUID		= 0x51,	/* value: struct pidfd_resid */
	PIDFD_CONFIG_SET_RESGID		= 0x52,	/* value: struct pidfd_resid */
	PIDFD_CONFIG_SET_CAPS		= 0x53,	/* value: struct pidfd_caps */
	PIDFD_CONFIG_SET_SECUREBITS	= 0x54,	/* aux: SECBIT_* bits */
	PIDFD_CONFIG_CAPBSET_DROP	= 0x55,	/* aux: capability */
	PIDFD_CONFIG_CAP_AMBIENT_RAISE	= 0x56,	/* aux: capability */
	PIDFD_CONFIG_CAP_AMBIENT_CLEAR	= 0x57,

	/* 0x60-0x6f: sandbox */
	PIDFD_CONFIG_SET_NO_NEW_PRIVS	= 0x60,
	PIDFD_CONFIG_SET_SECCOMP_FILTER	= 0x61,	/* value: struct pidfd_seccomp_filter */
	PIDFD_CONFIG_SET_LANDLOCK	= 0x62,	/* aux: Landlock ruleset fd */
	PIDFD_CONFIG_SET_NAMESPACES	= 0x63,	/* value: __u64 of CLONE_NEW* flags */
	PIDFD_CONFIG_SET_UID_MAP	= 0x64,	/* key: the map, as /proc/PID/uid_map takes it */
	PIDFD_CONFIG_SET_GID_MAP	= 0x65,	/* key: the map, as /proc/PID/gid_map takes it */
	PIDFD_CONFIG_DENY_SETGROUPS	= 0x66,
	PIDFD_CONFIG_SET_ROOT		= 0x67,	/* key: path or NULL, aux: dirfd */

	/* 0x70-0x7f: lifetime */
	PIDFD_CONFIG_SET_AUTOREAP	= 0x70,
	PIDFD_CONFIG_SET_AUTOKILL	= 0x71,	/* needs SET_AUTOREAP */
};

/*
 * ACT_DUP2: @newfd becomes a copy of @fd, as dup2(@fd, @newfd) makes it.
 * ACT_GIVE_FD: the caller's @fd, taken when START creates the child,
 * becomes the child's @newfd. @flags: PIDFD_FD_* for ACT_DUP2, 0 for
 * ACT_GIVE_FD.
 */
struct pidfd_fd_pair {
	__s32 fd;
	__s32 newfd;
	__u32 flags;
	__u32 __reserved;	/* must be 0 */
};

#define PIDFD_FD_PAIR_SIZE_VER0		16	/* sizeof first published struct */

/*
 * ACT_DUP2 with @fd == @newfd: clear the descriptor's close-on-exec flag,
 * as posix_spawn_file_actions_adddup2() asks; dup2() leaves it alone.
 */
#define PIDFD_FD_CLEAR_CLOEXEC		(1U << 0)

/* ACT_CLOSE_RANGE: close_range(@first, @last, @flags) in the child. */
struct pidfd_fd_range {
	__u32 first;
	__u32 last;
	__u32 flags;
	__u32 __reserved;	/* must be 0 */
};

#define PIDFD_FD_RANGE_SIZE_VER0	16	/* sizeof first published struct */

/*
 * ACT_OPEN: the path opened as openat2(AT_FDCWD, path, how) in the child
 * would open it, then made its @fd. The first three fields are those of
 * struct open_how.
 */
struct pidfd_open_action {
	__aligned_u64 flags;
	__aligned_u64 mode;
	__aligned_u64 resolve;
	__s32 fd;
	__u32 __reserved;	/* must be 0 */
};

#define PIDFD_OPEN_ACTION_SIZE_VER0	32	/* sizeof first published struct */

/*
 * SET_SECCOMP_FILTER: the child installs the filter as
 * seccomp(SECCOMP_SET_MODE_FILTER, @flags, &prog) would, prog being the
 * struct sock_fprog of @len instructions at @filter. With
 * SECCOMP_FILTER_FLAG_NEW_LISTENER the command returns the listener.
 */
struct pidfd_seccomp_filter {
	__aligned_u64 flags;	/* SECCOMP_FILTER_FLAG_* */
	__aligned_u64 filter;	/* struct sock_filter * */
	__u32 len;
	__u32 __reserved;	/* must be 0 */
};

#define PIDFD_SECCOMP_FILTER_SIZE_VER0	24	/* sizeof first published struct */

/*
 * SET_RESUID, SET_RESGID: the child's real, effective and saved ids, as
 * setresuid() and setresgid() take them; (__u32)-1 leaves one as it is.
 */
struct pidfd_resid {
	__u32 real;
	__u32 effective;
	__u32 saved;
	__u32 __reserved;	/* must be 0 */
};

#define PIDFD_RESID_SIZE_VER0	16	/* sizeof first published struct */

/* SET_CAPS: the child's capability sets, as capset() sets them. */
struct pidfd_caps {
	__aligned_u64 effective;
	__aligned_u64 permitted;
	__aligned_u64 inheritable;
};

#define PIDFD_CAPS_SIZE_VER0	24	/* sizeof first published struct */

#define PIDFS_IOCTL_MAGIC 0xFF

#define PIDFD_GET_CGROUP_NAMESPACE            _IO(PIDFS_IOCTL_MAGIC, 1)
#define PIDFD_GET_IPC_NAMESPACE               _IO(PIDFS_IOCTL_MAGIC, 2)
#define PIDFD_GET_MNT_NAMESPACE               _IO(PIDFS_IOCTL_MAGIC, 3)
#define PIDFD_GET_NET_NAMESPACE               _IO(PIDFS_IOCTL_MAGIC, 4)
#define PIDFD_GET_PID_NAMESPACE               _IO(PIDFS_IOCTL_MAGIC, 5)
#define PIDFD_GET_PID_FOR_CHILDREN_NAMESPACE  _IO(PIDFS_IOCTL_MAGIC, 6)
#define PIDFD_GET_TIME_NAMESPACE              _IO(PIDFS_IOCTL_MAGIC, 7)
#define PIDFD_GET_TIME_FOR_CHILDREN_NAMESPACE _IO(PIDFS_IOCTL_MAGIC, 8)
#define PIDFD_GET_USER_NAMESPACE              _IO(PIDFS_IOCTL_MAGIC, 9)
#define PIDFD_GET_UTS_NAMESPACE               _IO(PIDFS_IOCTL_MAGIC, 10)

#endif /* _LINUX_PIDFD_H */

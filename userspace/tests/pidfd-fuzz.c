// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pidfd-fuzz: a structure-aware random tester of pidfd_open(0, PIDFD_EMPTY)
 * and pidfd_config(), run in the guest.  It looks for kernel reports (the
 * harness fails the run on any in the kernel log) and for leaks, not for
 * semantics: every errno is an acceptable outcome of every call.
 *
 * A supervisor forks workers for short rounds, one as root and, when run
 * as root, one as nobody (uid 65534, RLIMIT_NPROC), and sometimes stops or
 * kills them.  Each worker runs --threads threads of random operations on
 * a shared table of pidfds: configuration commands with valid, half-valid
 * and invalid arguments (MAKE_TEMPLATE and NEW_EMPTY too, whose templates
 * and processes join the table), START, close, dup, read, poll, signals,
 * waitid(), SCM_RIGHTS over unix sockets (also between the root and nobody
 * workers), fork()ed children holding unstarted pidfds, and races of START
 * against close, dup, dup2, configuration and a second START, each in a
 * thread of its own.  A reaper thread collects children with WNOHANG.
 * Children run only short programs (/bin/true, /bin/false, a script) or
 * fail to start.
 *
 * Then it checks for leftovers, and each check can fail:
 * - no child of a failed START outlives the call (a child with exit signal
 *   0 that no START in progress can explain, or one left at the end);
 * - no child or zombie once the workers are gone;
 * - the fd count of each worker and of the supervisor back where it began;
 * - no more unix sockets in /proc/net/unix than before;
 * - the caches of /proc/slabinfo that hold what pidfds pin (pid, filp,
 *   inodes, dentries, sockets, tasks, kmalloc-*) within SLAB_SLACK slabs'
 *   worth of objects plus SLAB_SLACK_PCT percent of their start, after the
 *   caches were shrunk: /proc/slabinfo counts the free objects of per-CPU
 *   slabs as in use (a kmalloc-8 was seen 1004 objects up, two slabs, with
 *   nothing leaked), and the guest has noise of its own (dentry up to 167
 *   objects, eight slabs, in a minute or in eight); a leak of one object
 *   per START or per pidfd goes far beyond that in any run.
 * Leftovers settle for up to SETTLE_SECONDS (RCU, the unix garbage
 * collector) before a check fails.  Output is TAP.
 *
 * Seeded: the seed is printed first and --seed reruns it.  Every thread's
 * choices follow from the seed, but threads interleave as they do, so a
 * rerun repeats the operations, not their timing.
 *
 * --soak N runs N spawns instead, one spawner process per CPU, with the
 * same checks (see soak()).
 *
 *   pidfd-fuzz [--seed N] [--seconds N] [--threads N]
 *   pidfd-fuzz --soak N [--soak-child PATH]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
/*
 * <linux/pidfd.h> includes <linux/fcntl.h>, whose struct flock clashes
 * with glibc's <fcntl.h>; glibc's O_* values are the kernel's.
 */
#define _LINUX_FCNTL_H
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/openat2.h>
#include <linux/pidfd.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <linux/seccomp.h>

#ifndef __NR_pidfd_config
#define __NR_pidfd_config 500
#endif
#define PID_FS_MAGIC		0x50494446
#define NSFS_MAGIC		0x6e736673
#ifndef P_PIDFD
#define P_PIDFD			3
#endif
#define CLOSE_RANGE_UNSHARE	(1U << 1)
#define CLOSE_RANGE_CLOEXEC	(1U << 2)

/* What one worker may hold, so that no run can exhaust the 2 GiB guest. */
#define NSLOTS		32	/* pidfds (and whatever a race leaves there) */
#define NSOCKS		8	/* unix sockets */
#define NKIDS		16	/* live children, started or fork()ed */
#define NPROC_NOBODY	128	/* RLIMIT_NPROC of the nobody worker */
#define MAX_THREADS	16
#define NVEC		2048	/* pointers in a generated argv or envp */
#define BIG		(32 * 4096 + 64)	/* > MAX_ARG_STRLEN */

#define SLAB_SLACK	16	/* slabs */
#define SLAB_SLACK_PCT	10
#define SETTLE_SECONDS	30

#define LAST_CMD	PIDFD_CONFIG_SET_AUTOKILL	/* the highest number */
#define NCMDS		(LAST_CMD + 2)			/* the last: unknown ones */
#define NERRS		134				/* errno values; 0: success */

#define ADD(x, n)	__atomic_fetch_add(&(x), (n), __ATOMIC_RELAXED)
#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* By number; the gaps between the ranges are unknown commands too. */
static const char *const cmd_names[NCMDS] = {
	[PIDFD_CONFIG_SET_EXEC_FD] = "SET_EXEC_FD",
	[PIDFD_CONFIG_SET_EXEC_PATH] = "SET_EXEC_PATH",
	[PIDFD_CONFIG_SET_ARGV] = "SET_ARGV",
	[PIDFD_CONFIG_SET_ENVP] = "SET_ENVP",
	[PIDFD_CONFIG_SET_CWD] = "SET_CWD",
	[PIDFD_CONFIG_INHERIT_FDS] = "INHERIT_FDS",
	[PIDFD_CONFIG_ACT_DUP2] = "ACT_DUP2",
	[PIDFD_CONFIG_ACT_CLOSE] = "ACT_CLOSE",
	[PIDFD_CONFIG_ACT_OPEN] = "ACT_OPEN",
	[PIDFD_CONFIG_ACT_CLOSE_RANGE] = "ACT_CLOSE_RANGE",
	[PIDFD_CONFIG_ACT_GIVE_FD] = "ACT_GIVE_FD",
	[PIDFD_CONFIG_ACT_CHDIR] = "ACT_CHDIR",
	[PIDFD_CONFIG_ACT_FCHDIR] = "ACT_FCHDIR",
	[PIDFD_CONFIG_SET_SIGMASK] = "SET_SIGMASK",
	[PIDFD_CONFIG_SET_SIGDEFAULT] = "SET_SIGDEFAULT",
	[PIDFD_CONFIG_SETSID] = "SETSID",
	[PIDFD_CONFIG_SETPGID] = "SETPGID",
	[PIDFD_CONFIG_RESETIDS] = "RESETIDS",
	[PIDFD_CONFIG_SET_SCHEDULER] = "SET_SCHEDULER",
	[PIDFD_CONFIG_SET_CGROUP] = "SET_CGROUP",
	[PIDFD_CONFIG_START] = "START",
	[PIDFD_CONFIG_SET_EXEC_SEARCH] = "SET_EXEC_SEARCH",
	[PIDFD_CONFIG_ACT_TCSETPGRP] = "ACT_TCSETPGRP",
	[PIDFD_CONFIG_MAKE_TEMPLATE] = "MAKE_TEMPLATE",
	[PIDFD_CONFIG_NEW_EMPTY] = "NEW_EMPTY",
	[PIDFD_CONFIG_SET_RLIMIT] = "SET_RLIMIT",
	[PIDFD_CONFIG_SET_UMASK] = "SET_UMASK",
	[PIDFD_CONFIG_SET_PDEATHSIG] = "SET_PDEATHSIG",
	[PIDFD_CONFIG_SET_NO_NEW_PRIVS] = "SET_NO_NEW_PRIVS",
	[PIDFD_CONFIG_SET_SECCOMP_FILTER] = "SET_SECCOMP_FILTER",
	[PIDFD_CONFIG_SET_LANDLOCK] = "SET_LANDLOCK",
	[PIDFD_CONFIG_SET_PERSONALITY] = "SET_PERSONALITY",
	[PIDFD_CONFIG_SET_OOM_SCORE_ADJ] = "SET_OOM_SCORE_ADJ",
	[PIDFD_CONFIG_SET_CPU_AFFINITY] = "SET_CPU_AFFINITY",
	[PIDFD_CONFIG_SET_NAMESPACES] = "SET_NAMESPACES",
	[PIDFD_CONFIG_SET_UID_MAP] = "SET_UID_MAP",
	[PIDFD_CONFIG_SET_GID_MAP] = "SET_GID_MAP",
	[PIDFD_CONFIG_DENY_SETGROUPS] = "DENY_SETGROUPS",
	[PIDFD_CONFIG_SET_GROUPS] = "SET_GROUPS",
	[PIDFD_CONFIG_SET_RESUID] = "SET_RESUID",
	[PIDFD_CONFIG_SET_RESGID] = "SET_RESGID",
	[PIDFD_CONFIG_SET_CAPS] = "SET_CAPS",
	[PIDFD_CONFIG_SET_SECUREBITS] = "SET_SECUREBITS",
	[PIDFD_CONFIG_CAPBSET_DROP] = "CAPBSET_DROP",
	[PIDFD_CONFIG_CAP_AMBIENT_RAISE] = "CAP_AMBIENT_RAISE",
	[PIDFD_CONFIG_CAP_AMBIENT_CLEAR] = "CAP_AMBIENT_CLEAR",
	[PIDFD_CONFIG_SET_AUTOREAP] = "SET_AUTOREAP",
	[PIDFD_CONFIG_SET_AUTOKILL] = "SET_AUTOKILL",
	[PIDFD_CONFIG_SET_ROOT] = "SET_ROOT",
	[NCMDS - 1] = "unknown",
};

/* A command this kernel's header names. */
static bool known(unsigned int cmd)
{
	return cmd <= LAST_CMD && cmd_names[cmd];
}

enum { ROOT, NOBODY };

/* A worker's own checks, read by the supervisor once it exited. */
struct report {
	int done;
	int fds_before, fds_after;
	int failed_kids;	/* children of failed STARTs seen after the call */
	int left_kids;		/* children still there after SIGKILL */
	int killed_kids;	/* still running at the end, then killed */
	char failed[256];	/* the first of failed_kids */
	char left[256];		/* the first of left_kids */
};

/* Shared by all processes of the run (MAP_SHARED). */
static struct shared {
	unsigned long calls, starts, start_fails, forks, races;
	unsigned long nobody_calls;
	unsigned long cmd[NCMDS][NERRS];
	struct report rep[2];
} *sh;

/* One fuzzing thread (or a racer, or a fork()ed child's copy of one). */
struct thr {
	uint64_t rng;
	int idx;		/* in W.tids, for fuzzing threads */
	bool in_fork;		/* in a fork()ed child: no threads, no bookkeeping */
	int starts_left;	/* STARTs a fork()ed child may still make */
	char **vec;		/* NVEC + 1 pointers, a racer shares its thread's */
	char msg[512];
};

/* The worker: one process, its threads share this. */
static struct {
	int role, nthreads;
	double until;
	int reaper_stop;
	int slots[NSLOTS];
	int socks[NSOCKS];
	pid_t kids[NKIDS];	/* 0: free, -1: reserved, else a child */
	pid_t tids[MAX_THREADS];
	/* Bumped around every START, to tell a leaked child from one in use. */
	unsigned long starts_begun;
	int starts_running;
	int devnull, workfd, bindir, truefd, scriptfd, memfd, epfd;
	int ruleset;		/* a Landlock ruleset, or /dev/null without Landlock */
	char **paths, **write_paths, **exec_paths;
	int npaths, nwrite_paths, nexec_paths;
	char *big;		/* BIG - 1 bytes of 'a' and a NUL */
	char *edge_str;		/* a page of 'x', then a PROT_NONE page */
	char **edge_vec;	/* a page of pointers, then a PROT_NONE page */
	char *ro;		/* a read-only page, for the kernel to fail to write */
	char *racy;		/* strings and vectors that mutate() rewrites */
	char **racy_vec;
	struct rlimit nofile, stack;
} W;

/* The supervisor's, inherited by the workers. */
static char work[PATH_MAX];
static int xchg[2] = { -1, -1 };	/* a socket pair between all workers */
static int cgfd = -1;			/* a cgroup2 directory, or the root */
static char cgdir[PATH_MAX];

/* splitmix64: small, and every thread gets its own stream from the seed. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t rnd(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ULL;
	return mix(*s);
}

static unsigned int below(uint64_t *s, unsigned int n)
{
	return rnd(s) % n;
}

static bool one_in(uint64_t *s, unsigned int n)
{
	return below(s, n) == 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void die(const char *what)
{
	fprintf(stderr, "pidfd-fuzz: %s: %s\n", what, strerror(errno));
	exit(2);
}

static long sys_pidfd_open(pid_t pid, unsigned int flags)
{
	ADD(sh->calls, 1);
	return syscall(SYS_pidfd_open, pid, flags);
}

static long sys_config(int fd, unsigned int cmd, const void *key,
		       const void *value, int aux)
{
	unsigned int c = known(cmd) ? cmd : NCMDS - 1;
	long ret = syscall(__NR_pidfd_config, fd, cmd, key, value, aux);
	int e = ret < 0 ? errno : 0;

	ADD(sh->calls, 1);
	if (W.role == NOBODY)
		ADD(sh->nobody_calls, 1);
	ADD(sh->cmd[c][e < NERRS ? e : NERRS - 1], 1);
	if (cmd == PIDFD_CONFIG_START)
		ADD(*(ret > 0 ? &sh->starts : &sh->start_fails), 1);
	errno = e;
	return ret;
}

/* Count a call of the other system calls the fuzzer makes. */
static long counted(long ret)
{
	ADD(sh->calls, 1);
	return ret;
}

/*
 * The tables: a slot is owned by whoever swaps a descriptor out of it, so
 * that two threads never close the same number.  Others may still use a
 * number they read before: that is part of the test, and harmless, since
 * no operation but the owner's close() destroys a descriptor.
 */
static int take(int *slot)
{
	return __atomic_exchange_n(slot, -1, __ATOMIC_ACQ_REL);
}

static int peek(struct thr *t, int *tab, int n)
{
	return LOAD(tab[below(&t->rng, n)]);
}

/* Store @fd in a free slot of @tab, or close it: the tables are the bound. */
static void keep(struct thr *t, int *tab, int n, int fd)
{
	int i, first = below(&t->rng, n);

	if (fd < 0)
		return;
	for (i = 0; i < n; i++) {
		int empty = -1;

		if (__atomic_compare_exchange_n(&tab[(first + i) % n], &empty, fd,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return;
	}
	close(fd);
}

/*
 * Live children: a lock-free table, so that a fork()ed child can never
 * inherit it locked.  Reserving an entry before START or fork() is the cap.
 */
static int kid_reserve(void)
{
	int i;

	for (i = 0; i < NKIDS; i++) {
		pid_t free = 0;

		if (__atomic_compare_exchange_n(&W.kids[i], &free, -1, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return i;
	}
	return -1;
}

static void kid_set(int i, long pid)
{
	if (i >= 0)
		__atomic_store_n(&W.kids[i], pid > 0 ? (pid_t)pid : 0, __ATOMIC_RELEASE);
}

static void kid_forget(pid_t pid)
{
	int i;

	for (i = 0; i < NKIDS; i++) {
		pid_t p = pid;

		__atomic_compare_exchange_n(&W.kids[i], &p, 0, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	}
}

/* START, within the cap on live children. */
static long start(struct thr *t, int fd)
{
	int k = -1;
	long pid;

	if (t->in_fork) {
		if (t->starts_left <= 0)
			return -1;
		t->starts_left--;
	} else {
		k = kid_reserve();
		if (k < 0)
			return -1;
	}
	ADD(W.starts_begun, 1);
	ADD(W.starts_running, 1);
	pid = sys_config(fd, PIDFD_CONFIG_START, NULL, NULL, 0);
	ADD(W.starts_running, -1);
	ADD(W.starts_begun, 1);
	kid_set(k, pid);
	return pid;
}

/* Argument generators: valid, half-valid and invalid, by chance. */

/* An address the kernel must fail to read; also to write, if @written. */
static void *bad_ptr(struct thr *t, bool written)
{
	switch (below(&t->rng, written ? 5 : 7)) {
	case 0:
		return (void *)1;
	case 1:
		return (void *)-4096L;
	case 2:
		return (void *)0xffffffff81000000UL;
	case 3:
		return W.edge_str + 4096;
	case 4:
		return written ? W.ro : W.edge_str + 4096 - 3;
	case 5:
		/* Readable, but the kernel only reads here. */
		return W.big + below(&t->rng, BIG);
	default:
		return (void *)(uintptr_t)(rnd(&t->rng) & 0x00007fffffffffffULL);
	}
}

/* The pidfd argument. */
static int any_fd(struct thr *t)
{
	switch (below(&t->rng, 16)) {
	case 0:
		return -1;
	case 1:
		return (int)rnd(&t->rng);
	case 2:
		return W.devnull;
	case 3:
		return peek(t, W.socks, NSOCKS);
	case 4:
		return W.epfd;
	case 5:
		return 3 + below(&t->rng, 64);
	default:
		return peek(t, W.slots, NSLOTS);
	}
}

/* A descriptor of the caller, as a command's aux or a source. */
static int our_fd(struct thr *t)
{
	switch (below(&t->rng, 16)) {
	case 0:
		return AT_FDCWD;
	case 1:
		return W.workfd;
	case 2:
		return W.bindir;
	case 3:
		return W.truefd;
	case 4:
		return W.scriptfd;
	case 5:
		return W.devnull;
	case 6:
		return cgfd;
	case 7:
	case 8:
		return peek(t, W.slots, NSLOTS);
	case 9:
		return peek(t, W.socks, NSOCKS);
	case 10:
		return xchg[below(&t->rng, 2)];
	case 11:
		return W.memfd;
	case 12:
		return W.epfd;
	case 13:
		return (int)below(&t->rng, 40) - 3;
	case 14:
		return INT_MAX;
	default:
		return (int)rnd(&t->rng);
	}
}

/* A descriptor number in the child. */
static int child_fd(struct thr *t)
{
	switch (below(&t->rng, 10)) {
	case 0:
	case 1:
	case 2:
	case 3:
		return below(&t->rng, 8);
	case 4:
		return 3 + below(&t->rng, 64);
	case 5:
		return 1023 + below(&t->rng, 3);
	case 6:
		return 1 << (10 + below(&t->rng, 12));
	case 7:
		return -1 - (int)below(&t->rng, 3);
	case 8:
		return INT_MAX;
	default:
		return peek(t, W.slots, NSLOTS);
	}
}

/* A path: good and bad, short and long, or no string at all. */
static const char *any_path(struct thr *t)
{
	switch (below(&t->rng, 20)) {
	case 0:
		return bad_ptr(t, false);
	case 1:
		/* No NUL before the PROT_NONE page. */
		return W.edge_str + 4096 - 1 - below(&t->rng, 64);
	case 2:
		return W.racy + below(&t->rng, 64);
	case 3:
		return W.big + BIG - 1 - (PATH_MAX - 2 + below(&t->rng, 4));
	default:
		return W.paths[below(&t->rng, W.npaths)];
	}
}

/* A string vector of varying size, or a broken one. */
static char **any_vec(struct thr *t)
{
	static const char *const words[] = {
		"true", "-x", "", "an argument with spaces", "A=B", "PATH=/bin",
		"LD_PRELOAD=/nonexistent.so", "\xff\xfe", "=", "--",
	};
	char **v = t->vec;
	unsigned int i, n, len;

	switch (below(&t->rng, 20)) {
	case 0:
		return NULL;
	case 1:
		return bad_ptr(t, false);
	case 2:
		/* Many short strings. */
		n = below(&t->rng, NVEC);
		for (i = 0; i < n; i++)
			v[i] = W.big + BIG - 1 - below(&t->rng, 64);
		break;
	case 3:
		/* A few strings at MAX_ARG_STRLEN (32 pages), one beyond it. */
		n = 1 + below(&t->rng, 4);
		for (i = 0; i < n; i++)
			v[i] = W.big + BIG - 1 - (32 * 4096 - 2 + below(&t->rng, 3));
		break;
	case 4:
		/* Beyond execve()'s bound (a quarter of an 8 MiB stack). */
		n = 16 + below(&t->rng, 8);
		len = 32 * 4096 - 1;
		for (i = 0; i < n; i++)
			v[i] = W.big + BIG - 1 - len;
		break;
	case 5:
		n = 1 + below(&t->rng, 8);
		for (i = 0; i < n; i++)
			v[i] = (char *)words[below(&t->rng, ARRAY_SIZE(words))];
		v[below(&t->rng, n)] = bad_ptr(t, false);
		break;
	case 6:
		/* No NULL before the PROT_NONE page. */
		return W.edge_vec + 512 - 1 - below(&t->rng, 16);
	case 7:
		v[0] = W.edge_str + 4096 - 1 - below(&t->rng, 16);
		n = 1;
		break;
	case 8:
		return W.racy_vec;
	default:
		n = below(&t->rng, 8);
		for (i = 0; i < n; i++)
			v[i] = (char *)words[below(&t->rng, ARRAY_SIZE(words))];
		break;
	}
	v[n] = NULL;
	return v;
}

/*
 * Fill in the arguments of @cmd.  Files are opened for writing only under
 * the scratch directory and /dev/null: the child runs as the caller, root.
 */
struct args {
	const void *key, *value;
	int aux;
	uint64_t set;
	/* The structure a command takes, with room for a size beyond it. */
	union {
		struct pidfd_fd_pair pair;
		struct pidfd_fd_range range;
		struct pidfd_open_action open;
		struct sched_attr sched;
		struct rlimit64 rlim;
		struct pidfd_seccomp_filter seccomp;
		struct pidfd_resid resid;
		struct pidfd_caps caps;
		unsigned char bytes[128];
	};
	char text[32];		/* SET_UID_MAP's, SET_GID_MAP's own map */
};

/*
 * The size of a structure in aux: mostly its own, sometimes an older,
 * a future one with or without its unknown tail set, or nonsense.
 */
static int gen_size(struct thr *t, struct args *a, int size)
{
	static const int odd[] = { 0, -1, 4, 4097, 1 << 30 };
	int n;

	if (!one_in(&t->rng, 6))
		return size;
	switch (below(&t->rng, 3)) {
	case 0:
		return odd[below(&t->rng, ARRAY_SIZE(odd))];
	case 1:
		return size - 1 - below(&t->rng, 4);
	default:
		n = size + 8 * (1 + below(&t->rng, 8));
		if (one_in(&t->rng, 2))
			a->bytes[size + below(&t->rng, n - size)] = 1;
		return n;
	}
}

static void gen_args(struct thr *t, unsigned int cmd, struct args *a)
{
	static const int policies[] = { SCHED_OTHER, SCHED_FIFO, SCHED_RR,
		SCHED_BATCH, SCHED_IDLE, SCHED_DEADLINE, 6, -1, 100 };
	static const uint64_t sched_flags[] = { 0, 0, SCHED_FLAG_KEEP_POLICY,
		SCHED_FLAG_RESET_ON_FORK, SCHED_FLAG_KEEP_PARAMS,
		SCHED_FLAG_UTIL_CLAMP_MIN, SCHED_FLAG_DL_OVERRUN, 1ULL << 40 };
	static const int prios[] = { 0, 0, 1, 50, 99, 100, -1 };
	static const uint64_t open_flags[] = { O_RDONLY, O_WRONLY | O_CREAT | O_TRUNC,
		O_RDWR | O_CREAT, O_DIRECTORY, O_PATH, O_TMPFILE | O_RDWR,
		O_CREAT | O_EXCL | O_WRONLY, O_RDONLY | O_CLOEXEC, O_NOFOLLOW };
	bool writable;

	memset(a, 0, sizeof(*a));
	switch (cmd) {
	case PIDFD_CONFIG_SET_EXEC_FD:
		a->aux = one_in(&t->rng, 2) ? W.truefd : our_fd(t);
		break;
	case PIDFD_CONFIG_SET_EXEC_PATH:
		a->key = one_in(&t->rng, 2) ?
			 W.exec_paths[below(&t->rng, W.nexec_paths)] : any_path(t);
		a->aux = one_in(&t->rng, 2) ? AT_FDCWD : our_fd(t);
		break;
	case PIDFD_CONFIG_SET_ARGV:
	case PIDFD_CONFIG_SET_ENVP:
		a->value = any_vec(t);
		break;
	case PIDFD_CONFIG_SET_CWD:
	case PIDFD_CONFIG_SET_ROOT:
		a->key = one_in(&t->rng, 3) ? NULL : any_path(t);
		a->aux = one_in(&t->rng, 2) ? AT_FDCWD : our_fd(t);
		break;
	case PIDFD_CONFIG_ACT_DUP2:
	case PIDFD_CONFIG_ACT_GIVE_FD: {
		/* DUP2 knows PIDFD_FD_CLEAR_CLOEXEC, GIVE_FD no flag. */
		static const unsigned int fl[] = { 0, 0, 0, PIDFD_FD_CLEAR_CLOEXEC,
						   2, ~0U };

		a->pair.fd = cmd == PIDFD_CONFIG_ACT_GIVE_FD ? our_fd(t) : child_fd(t);
		a->pair.newfd = one_in(&t->rng, 4) ? -1 : child_fd(t);
		if (cmd == PIDFD_CONFIG_ACT_DUP2 && one_in(&t->rng, 3))
			a->pair.newfd = a->pair.fd;
		a->pair.flags = fl[below(&t->rng, ARRAY_SIZE(fl))];
		a->value = &a->pair;
		if (one_in(&t->rng, 10))
			a->value = one_in(&t->rng, 2) ? bad_ptr(t, false) :
				   W.edge_str + 4096 - below(&t->rng, 8);
		a->aux = one_in(&t->rng, 8) ? PIDFD_FD_PAIR_SIZE_VER0 :
			 gen_size(t, a, sizeof(a->pair));
		break;
	}
	case PIDFD_CONFIG_ACT_CLOSE_RANGE: {
		static const unsigned int fl[] = { 0, 0, CLOSE_RANGE_CLOEXEC,
						   CLOSE_RANGE_UNSHARE, ~0U };

		a->range.first = child_fd(t);
		a->range.last = one_in(&t->rng, 4) ? ~0U : (unsigned int)child_fd(t);
		a->range.flags = fl[below(&t->rng, ARRAY_SIZE(fl))];
		a->value = one_in(&t->rng, 10) ? bad_ptr(t, false) : &a->range;
		a->aux = gen_size(t, a, sizeof(a->range));
		break;
	}
	case PIDFD_CONFIG_ACT_CLOSE:
	case PIDFD_CONFIG_ACT_FCHDIR:
		a->aux = child_fd(t);
		break;
	case PIDFD_CONFIG_ACT_OPEN:
		writable = one_in(&t->rng, 2);
		a->key = writable ? W.write_paths[below(&t->rng, W.nwrite_paths)] :
			 any_path(t);
		a->open.flags = open_flags[below(&t->rng, ARRAY_SIZE(open_flags))];
		if (one_in(&t->rng, 8))
			a->open.flags = rnd(&t->rng);
		a->open.mode = one_in(&t->rng, 4) ? rnd(&t->rng) & 0x1ffff : 0644;
		a->open.resolve = one_in(&t->rng, 4) ? rnd(&t->rng) & 0x3f : 0;
		/* Anything else is opened read-only: it may be a system file. */
		if (!writable)
			a->open.flags &= O_DIRECTORY | O_NOFOLLOW | O_PATH | O_CLOEXEC |
					 O_NONBLOCK;
		a->open.fd = child_fd(t);
		a->open.__reserved = one_in(&t->rng, 20);
		a->value = &a->open;
		if (one_in(&t->rng, 10))
			a->value = one_in(&t->rng, 2) ? bad_ptr(t, false) :
				   W.edge_str + 4096 - below(&t->rng, 24);
		a->aux = gen_size(t, a, sizeof(a->open));
		break;
	case PIDFD_CONFIG_ACT_CHDIR:
		a->key = any_path(t);
		break;
	case PIDFD_CONFIG_SET_SIGMASK:
	case PIDFD_CONFIG_SET_SIGDEFAULT: {
		static const int sizes[] = { 8, 8, 8, 0, 4, 16, 128, -1 };

		a->set = one_in(&t->rng, 3) ? ~0ULL : rnd(&t->rng);
		a->value = one_in(&t->rng, 10) ? bad_ptr(t, false) : &a->set;
		a->aux = sizes[below(&t->rng, ARRAY_SIZE(sizes))];
		break;
	}
	case PIDFD_CONFIG_SETPGID: {
		int pg[] = { 0, 0, getpgrp(), LOAD(W.kids[below(&t->rng, NKIDS)]),
			     1, -1, (int)rnd(&t->rng) };

		a->aux = pg[below(&t->rng, ARRAY_SIZE(pg))];
		break;
	}
	case PIDFD_CONFIG_SET_SCHEDULER:
		a->sched.size = one_in(&t->rng, 3) ? 0 : sizeof(a->sched);
		a->sched.sched_policy = policies[below(&t->rng, ARRAY_SIZE(policies))];
		a->sched.sched_flags = sched_flags[below(&t->rng, ARRAY_SIZE(sched_flags))];
		a->sched.sched_priority = prios[below(&t->rng, ARRAY_SIZE(prios))];
		a->sched.sched_nice = (int)below(&t->rng, 60) - 30;
		if (one_in(&t->rng, 4)) {
			a->sched.sched_runtime = rnd(&t->rng) & 0xffffff;
			a->sched.sched_deadline = rnd(&t->rng) & 0xfffffff;
			a->sched.sched_period = rnd(&t->rng) & 0xfffffff;
		}
		a->value = one_in(&t->rng, 10) ? bad_ptr(t, false) : &a->sched;
		a->aux = gen_size(t, a, sizeof(a->sched));
		break;
	case PIDFD_CONFIG_SET_CGROUP:
		a->aux = one_in(&t->rng, 2) ? cgfd : our_fd(t);
		break;
	case PIDFD_CONFIG_SET_EXEC_SEARCH: {
		static const char *const search[] = { "/nonexistent/true", "true",
			"/usr/sbin/true", "/usr/bin/true", "/bin/true", NULL };

		a->value = one_in(&t->rng, 2) ? (void *)search : (void *)any_vec(t);
		break;
	}
	case PIDFD_CONFIG_ACT_TCSETPGRP:
		a->aux = one_in(&t->rng, 4) ? 0 : our_fd(t);
		break;
	case PIDFD_CONFIG_MAKE_TEMPLATE:
	case PIDFD_CONFIG_NEW_EMPTY: {
		/* MAKE_TEMPLATE takes none, NEW_EMPTY PIDFD_NONBLOCK. */
		static const int flags[] = { 0, 0, 1, PIDFD_NONBLOCK, -1 };

		a->aux = one_in(&t->rng, 8) ? (int)rnd(&t->rng) :
			 flags[below(&t->rng, ARRAY_SIZE(flags))];
		break;
	}
	case PIDFD_CONFIG_SET_RLIMIT: {
		/* Small, the caller's, unlimited, or nonsense; soft above hard too. */
		static const uint64_t vals[] = { 0, 1, 16, 1024, 1 << 20, 1ULL << 40,
						 RLIM64_INFINITY, RLIM64_INFINITY - 1 };

		a->rlim.rlim_cur = vals[below(&t->rng, ARRAY_SIZE(vals))];
		a->rlim.rlim_max = one_in(&t->rng, 3) ? RLIM64_INFINITY :
				   vals[below(&t->rng, ARRAY_SIZE(vals))];
		a->value = one_in(&t->rng, 10) ? bad_ptr(t, false) : &a->rlim;
		a->aux = one_in(&t->rng, 10) ? (int)rnd(&t->rng) :
			 (int)below(&t->rng, RLIM_NLIMITS + 1);
		break;
	}
	case PIDFD_CONFIG_SET_UMASK:
		a->aux = one_in(&t->rng, 4) ? (int)rnd(&t->rng) : (int)below(&t->rng, 01000);
		break;
	case PIDFD_CONFIG_SET_PDEATHSIG:
		a->aux = one_in(&t->rng, 4) ? (int)rnd(&t->rng) : (int)below(&t->rng, 70) - 1;
		break;
	case PIDFD_CONFIG_SET_SECCOMP_FILTER: {
		/*
		 * Allow all, deny uname() or execve(), kill on execve(), or
		 * notify on acct(), which no child calls: nobody answers.
		 */
		static struct sock_filter progs[][4] = {
			{ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
			  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
			  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
			  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) },
			{ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_uname, 0, 1),
			  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
			  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) },
			{ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 0, 1),
			  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EXDEV),
			  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) },
			{ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 0, 1),
			  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
			  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) },
			{ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_acct, 0, 1),
			  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
			  BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) },
		};
		static const uint64_t flags[] = { 0, 0, SECCOMP_FILTER_FLAG_LOG,
			SECCOMP_FILTER_FLAG_NEW_LISTENER, SECCOMP_FILTER_FLAG_TSYNC,
			SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
			SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, 1ULL << 40 };
		unsigned int p = below(&t->rng, ARRAY_SIZE(progs));

		a->seccomp.filter = (uintptr_t)progs[p];
		a->seccomp.len = p ? 4 : 1;
		if (one_in(&t->rng, 10))
			a->seccomp.len = one_in(&t->rng, 2) ? 0 : 4097;
		if (one_in(&t->rng, 10))
			a->seccomp.filter = (uintptr_t)bad_ptr(t, false);
		a->seccomp.flags = one_in(&t->rng, 10) ? rnd(&t->rng) :
				   flags[below(&t->rng, ARRAY_SIZE(flags))];
		a->seccomp.__reserved = one_in(&t->rng, 20);
		a->value = one_in(&t->rng, 10) ? bad_ptr(t, false) : &a->seccomp;
		a->aux = gen_size(t, a, sizeof(a->seccomp));
		break;
	}
	case PIDFD_CONFIG_SET_LANDLOCK:
		a->aux = one_in(&t->rng, 2) ? W.ruleset : our_fd(t);
		break;
	case PIDFD_CONFIG_SET_PERSONALITY: {
		/* Linux, no randomisation, READ_IMPLIES_EXEC, a query, nonsense. */
		static const int persona[] = { 0, 0x0040000, 0x0400000, -1 };

		a->aux = one_in(&t->rng, 4) ? (int)rnd(&t->rng) :
			 persona[below(&t->rng, ARRAY_SIZE(persona))];
		break;
	}
	case PIDFD_CONFIG_SET_OOM_SCORE_ADJ:
		a->aux = one_in(&t->rng, 4) ? (int)rnd(&t->rng) :
			 (int)below(&t->rng, 2003) - 1001;
		break;
	case PIDFD_CONFIG_SET_CPU_AFFINITY:
		/* CPU 0, all, none, or random; a size up to a page and more. */
		a->set = one_in(&t->rng, 2) ? 1 : one_in(&t->rng, 2) ? ~0ULL :
			 one_in(&t->rng, 2) ? 0 : rnd(&t->rng);
		a->value = one_in(&t->rng, 10) ? bad_ptr(t, false) : &a->set;
		a->aux = one_in(&t->rng, 6) ? (int)below(&t->rng, 8) :
			 one_in(&t->rng, 6) ? (int)rnd(&t->rng) : (int)sizeof(a->set);
		break;
	case PIDFD_CONFIG_SET_NAMESPACES: {
		/*
		 * Mostly cheap ones; a network namespace (slow to tear down)
		 * now and then; alone, which nobody may not; CLONE_NEWPID.
		 */
		static const int ns[] = { 0, CLONE_NEWUSER, CLONE_NEWUSER | CLONE_NEWUTS,
			CLONE_NEWUSER | CLONE_NEWIPC | CLONE_NEWNS | CLONE_NEWCGROUP,
			CLONE_NEWUTS, CLONE_NEWUSER | CLONE_NEWNET, CLONE_NEWPID };

		/* A __u64, as clone3()'s flags; now and then nonsense. */
		a->set = one_in(&t->rng, 8) ? rnd(&t->rng) :
			 (unsigned int)ns[below(&t->rng, ARRAY_SIZE(ns))];
		a->value = one_in(&t->rng, 10) ? bad_ptr(t, false) : &a->set;
		break;
	}
	case PIDFD_CONFIG_SET_GROUPS: {
		/* Root's, nobody's, a few, none, too many, nonsense. */
		static const uint32_t groups[] = { 0, 65534, 4, 24, 27, 100000, ~0U };

		a->value = one_in(&t->rng, 8) ? bad_ptr(t, false) :
			   one_in(&t->rng, 6) ? NULL : groups;
		a->aux = one_in(&t->rng, 8) ? (int)rnd(&t->rng) :
			 one_in(&t->rng, 8) ? 65537 : (int)below(&t->rng, ARRAY_SIZE(groups) + 1);
		break;
	}
	case PIDFD_CONFIG_SET_RESUID:
	case PIDFD_CONFIG_SET_RESGID: {
		static const uint32_t ids[] = { 0, 65534, 1000, ~0U, 100000 };

		a->resid.real = ids[below(&t->rng, ARRAY_SIZE(ids))];
		a->resid.effective = ids[below(&t->rng, ARRAY_SIZE(ids))];
		a->resid.saved = ids[below(&t->rng, ARRAY_SIZE(ids))];
		a->resid.__reserved = one_in(&t->rng, 10);
		a->value = one_in(&t->rng, 10) ? bad_ptr(t, false) : &a->resid;
		a->aux = gen_size(t, a, sizeof(a->resid));
		break;
	}
	case PIDFD_CONFIG_SET_CAPS: {
		/* None, CAP_KILL, all, beyond the last one. */
		static const uint64_t sets[] = { 0, 1ULL << 5, (1ULL << 41) - 1, 1ULL << 63 };

		a->caps.effective = sets[below(&t->rng, ARRAY_SIZE(sets))];
		a->caps.permitted = sets[below(&t->rng, ARRAY_SIZE(sets))];
		a->caps.inheritable = sets[below(&t->rng, ARRAY_SIZE(sets))];
		a->value = one_in(&t->rng, 10) ? bad_ptr(t, false) : &a->caps;
		a->aux = gen_size(t, a, sizeof(a->caps));
		break;
	}
	case PIDFD_CONFIG_SET_SECUREBITS:
		a->aux = one_in(&t->rng, 4) ? (int)rnd(&t->rng) : (int)below(&t->rng, 0x100);
		break;
	case PIDFD_CONFIG_CAPBSET_DROP:
	case PIDFD_CONFIG_CAP_AMBIENT_RAISE:
		a->aux = one_in(&t->rng, 8) ? (int)rnd(&t->rng) : (int)below(&t->rng, 43) - 1;
		break;
	case PIDFD_CONFIG_SET_UID_MAP:
	case PIDFD_CONFIG_SET_GID_MAP: {
		/* Its own id, root's, a range, bad text, empty, about a page. */
		static const char *const maps[] = { "0 0 1", "0 100000 65536", "0 1",
			"", "4294967295 0 1", "0 0 1\n1 1 1\n" };

		snprintf(a->text, sizeof(a->text), "0 %u 1",
			 cmd == PIDFD_CONFIG_SET_UID_MAP ? geteuid() : getegid());
		a->key = one_in(&t->rng, 2) ? a->text : one_in(&t->rng, 10) ? bad_ptr(t, false) :
			 one_in(&t->rng, 10) ?
			 W.big + BIG - 1 - (4094 + below(&t->rng, 3)) : maps[below(&t->rng, ARRAY_SIZE(maps))];
		break;
	}
	}

	/* Arguments a command does not take, or lacks one it needs. */
	if (one_in(&t->rng, 12)) {
		switch (below(&t->rng, 3)) {
		case 0:
			a->key = one_in(&t->rng, 2) ? NULL : any_path(t);
			break;
		case 1:
			a->value = one_in(&t->rng, 2) ? NULL : (void *)&a->set;
			break;
		default:
			a->aux = (int)rnd(&t->rng);
			break;
		}
	}
}

static unsigned int pick_cmd(struct thr *t)
{
	static const unsigned char weights[] = {
		[PIDFD_CONFIG_SET_EXEC_FD] = 5, [PIDFD_CONFIG_SET_EXEC_PATH] = 10,
		[PIDFD_CONFIG_SET_ARGV] = 8, [PIDFD_CONFIG_SET_ENVP] = 6,
		[PIDFD_CONFIG_SET_CWD] = 5, [PIDFD_CONFIG_INHERIT_FDS] = 3,
		[PIDFD_CONFIG_ACT_DUP2] = 5, [PIDFD_CONFIG_ACT_CLOSE] = 3,
		[PIDFD_CONFIG_ACT_OPEN] = 6, [PIDFD_CONFIG_ACT_CLOSE_RANGE] = 4,
		[PIDFD_CONFIG_ACT_GIVE_FD] = 6, [PIDFD_CONFIG_ACT_CHDIR] = 3,
		[PIDFD_CONFIG_ACT_FCHDIR] = 3, [PIDFD_CONFIG_SET_SIGMASK] = 3,
		[PIDFD_CONFIG_SET_SIGDEFAULT] = 3, [PIDFD_CONFIG_SETSID] = 2,
		[PIDFD_CONFIG_SETPGID] = 3, [PIDFD_CONFIG_RESETIDS] = 2,
		[PIDFD_CONFIG_SET_SCHEDULER] = 3, [PIDFD_CONFIG_SET_CGROUP] = 3,
		[PIDFD_CONFIG_START] = 12, [PIDFD_CONFIG_SET_EXEC_SEARCH] = 3,
		[PIDFD_CONFIG_ACT_TCSETPGRP] = 2, [PIDFD_CONFIG_MAKE_TEMPLATE] = 4,
		[PIDFD_CONFIG_NEW_EMPTY] = 5, [PIDFD_CONFIG_SET_RLIMIT] = 4,
		[PIDFD_CONFIG_SET_UMASK] = 2, [PIDFD_CONFIG_SET_PDEATHSIG] = 2,
		[PIDFD_CONFIG_SET_NO_NEW_PRIVS] = 2, [PIDFD_CONFIG_SET_SECCOMP_FILTER] = 3,
		[PIDFD_CONFIG_SET_LANDLOCK] = 2, [PIDFD_CONFIG_SET_PERSONALITY] = 2,
		[PIDFD_CONFIG_SET_OOM_SCORE_ADJ] = 2, [PIDFD_CONFIG_SET_CPU_AFFINITY] = 2,
		[PIDFD_CONFIG_SET_NAMESPACES] = 2, [PIDFD_CONFIG_SET_UID_MAP] = 2,
		[PIDFD_CONFIG_SET_GID_MAP] = 2, [PIDFD_CONFIG_DENY_SETGROUPS] = 2,
		[PIDFD_CONFIG_SET_GROUPS] = 2, [PIDFD_CONFIG_SET_RESUID] = 2,
		[PIDFD_CONFIG_SET_RESGID] = 2, [PIDFD_CONFIG_SET_CAPS] = 2,
		[PIDFD_CONFIG_SET_SECUREBITS] = 2, [PIDFD_CONFIG_CAPBSET_DROP] = 2,
		[PIDFD_CONFIG_CAP_AMBIENT_RAISE] = 2, [PIDFD_CONFIG_CAP_AMBIENT_CLEAR] = 2,
		[PIDFD_CONFIG_SET_AUTOREAP] = 3, [PIDFD_CONFIG_SET_AUTOKILL] = 3,
		[PIDFD_CONFIG_SET_ROOT] = 3,
		[LAST_CMD + 1] = 2,
	};
	unsigned int cmd, total = 0, n;

	for (cmd = 0; cmd < ARRAY_SIZE(weights); cmd++)
		total += weights[cmd];
	n = below(&t->rng, total);
	for (cmd = 0; n >= weights[cmd]; cmd++)
		n -= weights[cmd];
	if (cmd > LAST_CMD) {
		static const unsigned int unknown[] = { 0, 0x04, 0x15, 0x2a, 0x7f,
							LAST_CMD + 1, 255, 1U << 31,
							UINT_MAX };

		cmd = one_in(&t->rng, 4) ? (unsigned int)rnd(&t->rng) :
		      unknown[below(&t->rng, ARRAY_SIZE(unknown))];
		if (known(cmd))
			cmd = UINT_MAX;
	}
	return cmd;
}

/* Drain the messages of a pidfd, into good and bad buffers. */
static void drain(struct thr *t, int fd)
{
	static const size_t lens[] = { 0, 1, 8, 64, 512, SIZE_MAX };
	int i;

	for (i = 0; i < 10; i++) {
		size_t len = lens[below(&t->rng, ARRAY_SIZE(lens))];
		void *buf = t->msg;

		if (one_in(&t->rng, 8))
			buf = bad_ptr(t, true);
		else if (len > sizeof(t->msg))
			len = sizeof(t->msg);
		if (counted(read(fd, buf, len)) < 0 && errno == ENODATA)
			break;
	}
}

/* One configuration command, valid or not, on @fd. */
static void config_random(struct thr *t, int fd)
{
	unsigned int cmd = pick_cmd(t);
	struct args a;
	long ret;

	gen_args(t, known(cmd) ? cmd : PIDFD_CONFIG_INHERIT_FDS, &a);
	if (cmd == PIDFD_CONFIG_START && !a.key && !a.value && !a.aux) {
		start(t, fd);
	} else if (cmd != PIDFD_CONFIG_START || !t->in_fork) {
		ret = sys_config(fd, cmd, a.key, a.value, a.aux);
		/* MAKE_TEMPLATE and NEW_EMPTY return a new fd: keep it. */
		if (ret > 0 && (cmd == PIDFD_CONFIG_MAKE_TEMPLATE ||
				cmd == PIDFD_CONFIG_NEW_EMPTY))
			keep(t, W.slots, NSLOTS, ret);
		/* A seccomp listener: unanswered notifications fail with ENOSYS. */
		else if (ret > 0 && cmd == PIDFD_CONFIG_SET_SECCOMP_FILTER)
			close(ret);
	}
	if (one_in(&t->rng, 4))
		drain(t, fd);
}

/* The operations. */

static void op_open(struct thr *t)
{
	static const unsigned int flags[] = { 0, 0, 0, PIDFD_NONBLOCK,
		PIDFD_THREAD, O_CLOEXEC, 1U << 31, PIDFD_EMPTY };
	unsigned int f = PIDFD_EMPTY | flags[below(&t->rng, ARRAY_SIZE(flags))];
	pid_t pid = one_in(&t->rng, 10) ? (pid_t)rnd(&t->rng) : 0;

	/*
	 * Random flags go with pid 0, random pids with PIDFD_EMPTY: never a
	 * pidfd of some running process, which a signal might then reach.
	 */
	if (one_in(&t->rng, 20)) {
		f = (unsigned int)rnd(&t->rng);
		pid = 0;
	}
	keep(t, W.slots, NSLOTS, sys_pidfd_open(pid, f));
}

static void op_config(struct thr *t)
{
	config_random(t, any_fd(t));
}

/*
 * A mostly valid process, started: a run of STARTs needs the commands in
 * the right shape, which random commands rarely are.
 */
static void op_recipe(struct thr *t)
{
	static const char *const argv[] = { "fuzz-child", "-x", NULL };
	static const char *const envp[] = { "PIDFD_FUZZ=1", NULL };
	struct args a;
	int fd, i, n;

	fd = sys_pidfd_open(0, PIDFD_EMPTY | (one_in(&t->rng, 4) ? PIDFD_NONBLOCK : 0));
	if (fd < 0)
		return;
	switch (below(&t->rng, 10)) {
	case 0:
		sys_config(fd, PIDFD_CONFIG_SET_EXEC_FD, NULL, NULL,
			   one_in(&t->rng, 2) ? W.truefd : W.memfd);
		break;
	case 1:
		sys_config(fd, PIDFD_CONFIG_SET_EXEC_PATH, "true", NULL, W.bindir);
		break;
	default:
		/* The first few run, the others fail at SET or at START. */
		i = one_in(&t->rng, 4) ? below(&t->rng, W.nexec_paths) :
		    below(&t->rng, 3);
		sys_config(fd, PIDFD_CONFIG_SET_EXEC_PATH, W.exec_paths[i], NULL,
			   AT_FDCWD);
		break;
	}
	sys_config(fd, PIDFD_CONFIG_SET_ARGV, NULL,
		   one_in(&t->rng, 4) ? (void *)any_vec(t) : (void *)argv, 0);
	if (one_in(&t->rng, 2))
		sys_config(fd, PIDFD_CONFIG_SET_ENVP, NULL, envp, 0);
	/* A template of it, and the process from it (the template is kept). */
	if (one_in(&t->rng, 5)) {
		int tmpl = sys_config(fd, PIDFD_CONFIG_MAKE_TEMPLATE, NULL, NULL, 0);

		if (tmpl >= 0) {
			close(fd);
			fd = sys_config(tmpl, PIDFD_CONFIG_NEW_EMPTY, NULL, NULL,
					one_in(&t->rng, 4) ? PIDFD_NONBLOCK : 0);
			keep(t, W.slots, NSLOTS, tmpl);
			if (fd < 0)
				return;
		}
	}
	n = below(&t->rng, 6);
	for (i = 0; i < n; i++) {
		unsigned int cmd = pick_cmd(t);

		/*
		 * A chance for a START midway, and for a command after it; of
		 * posix_spawn()'s commands only, no template, nothing unknown.
		 */
		if (!known(cmd) || cmd >= PIDFD_CONFIG_SET_RLIMIT ||
		    cmd == PIDFD_CONFIG_MAKE_TEMPLATE || cmd == PIDFD_CONFIG_NEW_EMPTY)
			cmd = PIDFD_CONFIG_ACT_CLOSE_RANGE;
		if (cmd == PIDFD_CONFIG_START) {
			start(t, fd);
			continue;
		}
		gen_args(t, cmd, &a);
		sys_config(fd, cmd, a.key, a.value, a.aux);
	}
	start(t, fd);
	if (one_in(&t->rng, 2))
		drain(t, fd);
	/* Started pidfds are worth keeping: signals, waitid(), poll(). */
	if (one_in(&t->rng, 2))
		keep(t, W.slots, NSLOTS, fd);
	else
		close(fd);
}

/* Close what a slot holds, if anything. */
static void slot_close(int *slot)
{
	int fd = take(slot);

	if (fd >= 0)
		counted(close(fd));
}

static void op_close(struct thr *t)
{
	slot_close(&W.slots[below(&t->rng, NSLOTS)]);
}

static void op_dup(struct thr *t)
{
	int fd = peek(t, W.slots, NSLOTS), nfd;

	if (fd < 0)
		return;
	if (one_in(&t->rng, 2))
		nfd = counted(dup(fd));
	else
		nfd = counted(fcntl(fd, F_DUPFD_CLOEXEC, 3 + below(&t->rng, 200)));
	keep(t, W.slots, NSLOTS, nfd);
}

static void op_read(struct thr *t)
{
	drain(t, any_fd(t));
}

static void op_poll(struct thr *t)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLHUP }, evs[8];
	struct pollfd p[4];
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (struct pollfd){ .fd = peek(t, W.slots, NSLOTS), .events = POLLIN };
	counted(poll(p, 4, 0));
	i = peek(t, W.slots, NSLOTS);
	switch (below(&t->rng, 3)) {
	case 0:
		counted(epoll_ctl(W.epfd, EPOLL_CTL_ADD, i, &ev));
		break;
	case 1:
		counted(epoll_ctl(W.epfd, EPOLL_CTL_DEL, i, NULL));
		break;
	default:
		counted(epoll_wait(W.epfd, evs, 8, 0));
		break;
	}
}

/*
 * Signals: to started children through their pidfds (never by number: a
 * reaped number may be anyone's by now), and to the worker's own threads.
 * Process group signals stay harmless: the whole group would get them.
 */
static void op_signal(struct thr *t)
{
	static const int sigs[] = { 0, SIGTERM, SIGKILL, SIGKILL, SIGUSR1,
		SIGINT, SIGHUP, SIGCONT, SIGCHLD, SIGSEGV, 34, 65, -1 };
	static const unsigned int flags[] = { 0, 0, 0, PIDFD_SIGNAL_THREAD,
		PIDFD_SIGNAL_THREAD_GROUP, 1U << 5 };
	int fd = peek(t, W.slots, NSLOTS), sig;
	pid_t tid;

	switch (below(&t->rng, 6)) {
	case 0:
		tid = LOAD(W.tids[below(&t->rng, W.nthreads)]);
		if (tid > 0 && !t->in_fork)
			counted(syscall(SYS_tgkill, getpid(), tid, SIGUSR1));
		break;
	case 1:
		counted(kill(getpid(), SIGUSR2));
		break;
	case 2:
		/* Stopped, then continued: nothing may stay stopped. */
		if (counted(syscall(SYS_pidfd_send_signal, fd, SIGSTOP, NULL, 0)) == 0)
			counted(syscall(SYS_pidfd_send_signal, fd, SIGCONT, NULL, 0));
		break;
	case 3:
		sig = one_in(&t->rng, 2) ? 0 : SIGURG;
		counted(syscall(SYS_pidfd_send_signal, fd, sig, NULL,
				PIDFD_SIGNAL_PROCESS_GROUP));
		break;
	default:
		counted(syscall(SYS_pidfd_send_signal, fd,
				sigs[below(&t->rng, ARRAY_SIZE(sigs))], NULL,
				flags[below(&t->rng, ARRAY_SIZE(flags))]));
		break;
	}
}

static void op_wait(struct thr *t)
{
	int fd = peek(t, W.slots, NSLOTS);
	int flags = WEXITED | WNOHANG;
	siginfo_t si = { 0 }, *sip = &si;

	if (one_in(&t->rng, 3))
		flags |= __WALL;
	if (one_in(&t->rng, 4))
		flags |= WNOWAIT;
	if (one_in(&t->rng, 4))
		flags |= WSTOPPED | WCONTINUED;
	if (one_in(&t->rng, 10))
		sip = bad_ptr(t, true);
	if (!counted(waitid(P_PIDFD, fd, sip, flags)) && sip == &si &&
	    !(flags & WNOWAIT) && si.si_pid)
		kid_forget(si.si_pid);
}

/* The other ways into a pidfd: /proc, ioctl(), pidfd_getfd(), setns(). */
static void op_info(struct thr *t)
{
	static const int ns[] = { CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWNET,
		CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWCGROUP, 0x1234 };
	int fd = peek(t, W.slots, NSLOTS), nfd;
	char path[64];

	switch (below(&t->rng, 7)) {
	case 0:
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
		nfd = counted(open(path, O_RDONLY | O_CLOEXEC));
		if (nfd >= 0) {
			counted(read(nfd, t->msg, sizeof(t->msg)));
			close(nfd);
		}
		break;
	case 1:
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		counted(readlink(path, t->msg, sizeof(t->msg)));
		break;
	case 2:
		/* Reopened through /proc: the same pid, without the builder. */
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		nfd = counted(open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK));
		if (nfd >= 0) {
			config_random(t, nfd);
			close(nfd);
		}
		break;
	case 3: {
		struct statfs sfs;

		/* Only a namespace file is ours to close: fd may be anything now. */
		nfd = counted(ioctl(fd, _IO(PIDFS_IOCTL_MAGIC, below(&t->rng, 13)), 0));
		if (nfd > 2 && !fstatfs(nfd, &sfs) && sfs.f_type == NSFS_MAGIC)
			close(nfd);
		break;
	}
	case 4:
		nfd = counted(syscall(SYS_pidfd_getfd, fd, below(&t->rng, 8),
				      one_in(&t->rng, 8) ? 1 : 0));
		if (nfd >= 0)
			close(nfd);
		break;
	case 5:
		/* Only to namespaces we are in: nothing changes but the path. */
		counted(setns(fd, ns[below(&t->rng, ARRAY_SIZE(ns))]));
		break;
	default:
		counted(syscall(SYS_process_mrelease, fd, one_in(&t->rng, 8)));
		break;
	}
}

/* A received descriptor goes to the table it belongs in. */
static void keep_received(struct thr *t, int fd)
{
	struct statfs sfs;
	struct stat st;

	if (!fstatfs(fd, &sfs) && sfs.f_type == PID_FS_MAGIC)
		keep(t, W.slots, NSLOTS, fd);
	else if (!fstat(fd, &st) && S_ISSOCK(st.st_mode))
		keep(t, W.socks, NSOCKS, fd);
	else
		close(fd);
}

static int send_fds(struct thr *t, int sock, const int *fds, int n)
{
	union {
		char buf[CMSG_SPACE(253 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = "f", .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = CMSG_SPACE(n * sizeof(int)) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	(void)t;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	return counted(sendmsg(sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL));
}

static void recv_fds(struct thr *t, int sock)
{
	union {
		char buf[CMSG_SPACE(253 * sizeof(int))];
		struct cmsghdr align;
	} u;
	char b[16];
	struct iovec iov = { .iov_base = b, .iov_len = sizeof(b) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	int i, n, fd;

	if (counted(recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC)) < 0)
		return;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			keep_received(t, fd);
		}
	}
}

/* SCM_RIGHTS: pidfds and sockets in flight, between threads and workers. */
static void op_sock(struct thr *t)
{
	static const int types[] = { SOCK_DGRAM, SOCK_STREAM, SOCK_SEQPACKET };
	int sv[2], fds[253], i, n, sock;

	sock = one_in(&t->rng, 3) ? xchg[below(&t->rng, 2)] :
	       peek(t, W.socks, NSOCKS);
	switch (below(&t->rng, 6)) {
	case 0:
		if (!counted(socketpair(AF_UNIX, types[below(&t->rng, 3)] |
					SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv))) {
			keep(t, W.socks, NSOCKS, sv[0]);
			keep(t, W.socks, NSOCKS, sv[1]);
		}
		break;
	case 1:
	case 2:
		n = one_in(&t->rng, 10) ? 253 : 1 + below(&t->rng, 4);
		for (i = 0; i < n; i++) {
			switch (below(&t->rng, 8)) {
			case 0:
				fds[i] = peek(t, W.socks, NSOCKS);
				break;
			case 1:
				fds[i] = sock;
				break;
			case 2:
				fds[i] = W.devnull;
				break;
			default:
				fds[i] = peek(t, W.slots, NSLOTS);
				break;
			}
			if (fds[i] < 0)
				fds[i] = W.devnull;
		}
		send_fds(t, sock, fds, n);
		break;
	case 3:
	case 4:
		recv_fds(t, sock);
		break;
	default:
		slot_close(&W.socks[below(&t->rng, NSOCKS)]);
		break;
	}
}

/*
 * A socket given to an empty process whose pidfd is in flight in that
 * socket: a reference cycle that only the pidfd side can break.
 */
static void op_cycle(struct thr *t)
{
	int sv[2], fd, end = below(&t->rng, 2);
	struct pidfd_fd_pair pair;

	if (counted(socketpair(AF_UNIX, (one_in(&t->rng, 2) ? SOCK_DGRAM : SOCK_STREAM) |
			       SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv)))
		return;
	fd = sys_pidfd_open(0, PIDFD_EMPTY);
	if (fd >= 0) {
		pair = (struct pidfd_fd_pair){ .fd = sv[end],
					       .newfd = 3 + below(&t->rng, 8) };
		sys_config(fd, PIDFD_CONFIG_ACT_GIVE_FD, NULL, &pair, sizeof(pair));
		if (one_in(&t->rng, 4)) {
			sys_config(fd, PIDFD_CONFIG_SET_EXEC_PATH, "/bin/true", NULL,
				   AT_FDCWD);
			start(t, fd);
		}
		/* Sent on the other end, it waits in @end's receive queue. */
		send_fds(t, sv[!end], &fd, 1);
		close(fd);
	}
	close(sv[0]);
	close(sv[1]);
}

/* /proc/<pid>/stat: state, parent, session and exit signal. */
struct proc {
	pid_t pid, ppid, sid;
	char state;
	int exit_signal;
	char comm[32];
};

static bool read_proc(pid_t pid, struct proc *p)
{
	char path[64], buf[1024], *s, *tok, *save;
	int fd, n, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	s = strrchr(buf, ')');
	if (!s || !strchr(buf, '('))
		return false;
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->exit_signal = -1;
	snprintf(p->comm, sizeof(p->comm), "%.*s", (int)(s - strchr(buf, '(') - 1),
		 strchr(buf, '(') + 1);
	for (field = 3, tok = strtok_r(s + 1, " ", &save); tok;
	     field++, tok = strtok_r(NULL, " ", &save)) {
		if (field == 3)
			p->state = tok[0];
		else if (field == 4)
			p->ppid = atoi(tok);
		else if (field == 6)
			p->sid = atoi(tok);
		else if (field == 38)
			p->exit_signal = atoi(tok);
	}
	return true;
}

/*
 * SIGKILL to a child of @self given by number, through a pidfd, and only
 * if it is still ours once the pidfd holds it: a reaped number may be
 * anyone's by now.  True if a running child was killed.
 */
static bool kill_child(pid_t self, pid_t pid)
{
	int fd = syscall(SYS_pidfd_open, pid, 0);
	struct proc p;
	bool killed = false;

	if (fd < 0)
		return false;
	if (read_proc(pid, &p) && p.ppid == self &&
	    !syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0))
		killed = p.state != 'Z';
	close(fd);
	return killed;
}

/* A fork()ed child holding the worker's pidfds: commands, START, exit. */
static void fork_child(struct thr *t)
{
	static void (*const ops[])(struct thr *) = {
		op_config, op_config, op_config, op_recipe, op_close, op_read,
		op_sock, op_signal, op_dup,
	};
	int i, n;

	t->in_fork = true;
	t->starts_left = 1 + below(&t->rng, 2);
	/* Other credentials than the builder's creator. */
	if (W.role == ROOT && one_in(&t->rng, 4))
		setresuid(65534, 65534, 65534);
	/* Another pid namespace for children than the builder's. */
	if (W.role == ROOT && one_in(&t->rng, 6))
		unshare(CLONE_NEWPID);
	if (one_in(&t->rng, 4))
		signal(SIGCHLD, SIG_IGN);
	n = 1 + below(&t->rng, 8);
	for (i = 0; i < n; i++)
		ops[below(&t->rng, ARRAY_SIZE(ops))](t);
	if (one_in(&t->rng, 2))
		sleep_ms(below(&t->rng, 30));
	_exit(below(&t->rng, 3));
}

static void op_fork(struct thr *t)
{
	int k = kid_reserve();
	pid_t pid;

	if (k < 0)
		return;
	pid = counted(fork());
	if (!pid) {
		t->rng = mix(t->rng ^ 0xf0f0);
		fork_child(t);
	}
	kid_set(k, pid);
	if (pid < 0)
		return;
	ADD(sh->forks, 1);
	if (one_in(&t->rng, 4)) {
		sleep_ms(below(&t->rng, 5));
		kill_child(getpid(), pid);
	}
}

/* Races: roles run in threads of their own on one pidfd, at once. */
enum {
	R_START, R_CLOSE, R_DUP, R_DUP2, R_CONFIG, R_READ, R_SIGNAL, R_SEND,
	R_WAIT, R_POLL, R_FORK, R_NROLES
};

struct racer {
	pthread_t th;
	int role, fd, newfd;
	int *go;
	struct thr t;
};

static void *racer_main(void *arg)
{
	struct racer *r = arg;
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	siginfo_t si;
	int k, spins = 0;
	pid_t pid;

	while (!LOAD(*r->go))
		if (++spins > 1000)
			sched_yield();
	switch (r->role) {
	case R_START:
		start(&r->t, r->fd);
		break;
	case R_CLOSE:
		counted(close(r->fd));
		break;
	case R_DUP:
		r->newfd = counted(dup(r->fd));
		break;
	case R_DUP2:
		counted(dup2(W.devnull, r->fd));
		break;
	case R_CONFIG:
		config_random(&r->t, r->fd);
		break;
	case R_READ:
		counted(read(r->fd, r->t.msg, sizeof(r->t.msg)));
		break;
	case R_SIGNAL:
		counted(syscall(SYS_pidfd_send_signal, r->fd,
				one_in(&r->t.rng, 2) ? SIGKILL : 0, NULL, 0));
		break;
	case R_SEND:
		send_fds(&r->t, xchg[below(&r->t.rng, 2)], &r->fd, 1);
		break;
	case R_WAIT:
		if (!counted(waitid(P_PIDFD, r->fd, &si, WEXITED | WNOHANG | __WALL)) &&
		    si.si_pid)
			kid_forget(si.si_pid);
		break;
	case R_POLL:
		counted(poll(&p, 1, 0));
		break;
	case R_FORK:
		k = kid_reserve();
		if (k < 0)
			break;
		pid = counted(fork());
		if (!pid) {
			r->t.in_fork = true;
			r->t.starts_left = 1;
			start(&r->t, r->fd);
			_exit(0);
		}
		kid_set(k, pid);
		break;
	}
	return NULL;
}

static void op_race(struct thr *t)
{
	static const char *const argv[] = { "true", NULL };
	struct racer r[3] = { 0 };
	pthread_attr_t attr;
	int go = 0, fd, i, n = 2 + one_in(&t->rng, 3);
	bool closed = false, dup2ed = false;

	/* A fresh process ready to start, or whatever a slot holds. */
	fd = one_in(&t->rng, 3) ? take(&W.slots[below(&t->rng, NSLOTS)]) : -1;
	if (fd < 0) {
		fd = sys_pidfd_open(0, PIDFD_EMPTY);
		if (fd < 0)
			return;
		sys_config(fd, PIDFD_CONFIG_SET_EXEC_PATH,
			   W.exec_paths[below(&t->rng, 3)], NULL, AT_FDCWD);
		sys_config(fd, PIDFD_CONFIG_SET_ARGV, NULL, argv, 0);
	}
	ADD(sh->races, 1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (i = 0; i < n; i++) {
		int role = i == 0 && !one_in(&t->rng, 5) ? R_START :
			   (int)below(&t->rng, R_NROLES);

		/* One owner closes the number: close and dup2 exclude each other. */
		if ((role == R_CLOSE && dup2ed) || (role == R_DUP2 && closed))
			role = R_START;
		closed |= role == R_CLOSE;
		dup2ed |= role == R_DUP2;
		r[i] = (struct racer){ .role = role, .fd = fd, .newfd = -1, .go = &go,
				       .t = { .rng = mix(t->rng + i), .vec = t->vec } };
		if (pthread_create(&r[i].th, &attr, racer_main, &r[i])) {
			r[i].role = -1;
			if (role == R_CLOSE)
				closed = false;
		}
	}
	rnd(&t->rng);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	for (i = 0; i < n; i++) {
		if (r[i].role < 0)
			continue;
		pthread_join(r[i].th, NULL);
		keep(t, W.slots, NSLOTS, r[i].newfd);
	}
	pthread_attr_destroy(&attr);
	if (!closed) {
		if (one_in(&t->rng, 2) && !dup2ed)
			keep(t, W.slots, NSLOTS, fd);
		else
			close(fd);
	}
}

/* Rewrite the strings and vectors other threads may be passing in. */
static void op_mutate(struct thr *t)
{
	int i;

	for (i = 0; i < 2000; i++) {
		unsigned int at = below(&t->rng, 4096);

		__atomic_store_n(&W.racy[at], one_in(&t->rng, 3) ? 0 : 'a' + at % 26,
				 __ATOMIC_RELAXED);
		if (one_in(&t->rng, 8)) {
			char *p = one_in(&t->rng, 4) ? NULL : W.racy + below(&t->rng, 4096);

			__atomic_store_n(&W.racy_vec[below(&t->rng, 16)], p,
					 __ATOMIC_RELAXED);
		}
	}
}

/* execve()'s bound follows RLIMIT_STACK; the child's fds, RLIMIT_NOFILE. */
static void op_rlimit(struct thr *t)
{
	static const rlim_t stacks[] = { 8 << 20, 1 << 20, 256 << 10 };
	struct rlimit rl;

	if (one_in(&t->rng, 2)) {
		rl = W.stack;
		rl.rlim_cur = stacks[below(&t->rng, ARRAY_SIZE(stacks))];
		if (rl.rlim_cur > rl.rlim_max)
			rl.rlim_cur = rl.rlim_max;
		counted(setrlimit(RLIMIT_STACK, &rl));
	} else {
		rl = W.nofile;
		if (one_in(&t->rng, 2) && rl.rlim_cur > 256)
			rl.rlim_cur = 256;
		counted(setrlimit(RLIMIT_NOFILE, &rl));
	}
}

static const struct {
	void (*fn)(struct thr *);
	unsigned int weight;
} ops[] = {
	{ op_open, 8 }, { op_config, 35 }, { op_recipe, 12 }, { op_close, 6 },
	{ op_dup, 4 }, { op_read, 4 }, { op_poll, 3 }, { op_signal, 5 },
	{ op_wait, 3 }, { op_info, 4 }, { op_sock, 8 }, { op_cycle, 1 },
	{ op_fork, 2 }, { op_race, 4 }, { op_mutate, 1 }, { op_rlimit, 1 },
};

static void *fuzz_main(void *arg)
{
	struct thr *t = arg;
	unsigned int total = 0, i, n;

	__atomic_store_n(&W.tids[t->idx], gettid(), __ATOMIC_RELEASE);
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		total += ops[i].weight;
	while (now() < W.until) {
		n = below(&t->rng, total);
		for (i = 0; n >= ops[i].weight; i++)
			n -= ops[i].weight;
		ops[i].fn(t);
	}
	return NULL;
}

/* All processes whose parent is @parent (all at all if 0), up to @max. */
static int scan_procs(pid_t parent, struct proc *out, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	struct proc p;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		pid_t pid = atoi(e->d_name);

		if (pid > 0 && read_proc(pid, &p) && (!parent || p.ppid == parent))
			out[n++] = p;
	}
	closedir(d);
	return n;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}

/*
 * A failed START reaps its child before it returns.  A zombie child with
 * exit signal 0 while no START ran in this process is one it left behind.
 */
static void check_zombie(pid_t pid)
{
	unsigned long begun = LOAD(W.starts_begun);
	struct report *rep = &sh->rep[W.role];
	struct proc p;

	if (LOAD(W.starts_running) || !read_proc(pid, &p) || p.exit_signal ||
	    p.ppid != getpid() || LOAD(W.starts_running) ||
	    LOAD(W.starts_begun) != begun)
		return;
	if (!rep->failed_kids++)
		snprintf(rep->failed, sizeof(rep->failed),
			 "child %d (%s, state %c) with exit signal 0 after its START returned",
			 pid, p.comm, p.state);
}

static void *reaper_main(void *arg)
{
	uint64_t rng = *(uint64_t *)arg;
	unsigned int round = 0;
	siginfo_t si;
	int i;

	while (!LOAD(W.reaper_stop)) {
		int flags = WEXITED | WNOHANG | (one_in(&rng, 4) ? __WALL : 0);

		si.si_pid = 0;
		if (!waitid(P_ALL, 0, &si, flags | WNOWAIT) && si.si_pid) {
			pid_t pid = si.si_pid;

			check_zombie(pid);
			if (!waitid(P_PID, pid, &si, flags)) {
				kid_forget(pid);
				continue;
			}
		}
		/* Children reaped elsewhere (SIG_IGN, P_PIDFD) free their entry. */
		if (!(++round % 16))
			for (i = 0; i < NKIDS; i++) {
				pid_t p = LOAD(W.kids[i]);

				if (p > 0 && kill(p, 0) && errno == ESRCH)
					kid_forget(p);
			}
		sleep_ms(2);
	}
	return NULL;
}

static int kill_children(pid_t self)
{
	struct proc p[256];
	int i, n = scan_procs(self, p, 256), killed = 0;

	for (i = 0; i < n; i++)
		killed += kill_child(self, p[i].pid);
	return killed;
}

/* Reap all children, waiting up to @secs; true if none is left. */
static bool reap_all(double secs)
{
	double end = now() + secs;
	siginfo_t si;

	for (;;) {
		si.si_pid = 0;
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | __WALL) && errno == ECHILD)
			return true;
		if (si.si_pid)
			continue;
		if (now() > end)
			return false;
		sleep_ms(10);
	}
}

static void nop(int sig)
{
	(void)sig;
}

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("vasprintf");
	va_end(ap);
	return s;
}

static void *map(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

/*
 * A Landlock ruleset that handles writing files and allows it nowhere: the
 * fuzzed children may run /bin/true under it. /dev/null without Landlock.
 */
static int fuzz_ruleset(void)
{
	struct landlock_ruleset_attr attr = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE,
	};
	int fd = syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);

	return fd >= 0 ? fd : open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void worker_setup(void)
{
	static const char script[] = "#!/bin/sh\nexit 0\n";
	char *p;
	int i;

	W.devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	W.workfd = open(work, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	W.bindir = open("/bin", O_PATH | O_DIRECTORY | O_CLOEXEC);
	W.truefd = open("/bin/true", O_PATH | O_CLOEXEC);
	W.ruleset = fuzz_ruleset();
	W.scriptfd = open(xasprintf("%s/ok.sh", work), O_RDONLY | O_CLOEXEC);
	W.memfd = memfd_create("pidfd-fuzz", MFD_CLOEXEC);
	W.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (W.devnull < 0 || W.workfd < 0 || W.bindir < 0 || W.truefd < 0 ||
	    W.scriptfd < 0 || W.memfd < 0 || W.epfd < 0 ||
	    write(W.memfd, script, sizeof(script) - 1) < 0)
		die("worker descriptors");
	for (i = 0; i < NSLOTS; i++)
		W.slots[i] = -1;
	for (i = 0; i < NSOCKS; i++)
		W.socks[i] = -1;

	W.big = map(BIG, PROT_READ | PROT_WRITE);
	memset(W.big, 'a', BIG - 1);
	p = map(4 * 4096, PROT_READ | PROT_WRITE);
	W.edge_str = p;
	memset(W.edge_str, 'x', 4096);
	W.edge_vec = (char **)(p + 2 * 4096);
	for (i = 0; i < 512; i++)
		W.edge_vec[i] = W.big + BIG - 2;
	mprotect(p + 4096, 4096, PROT_NONE);
	mprotect(p + 3 * 4096, 4096, PROT_NONE);
	W.ro = map(4096, PROT_READ);
	W.racy = map(4096 + 17 * sizeof(char *), PROT_READ | PROT_WRITE);
	memset(W.racy, 'r', 4096);
	W.racy[4095] = 0;
	W.racy_vec = (char **)(W.racy + 4096);
	for (i = 0; i < 16; i++)
		W.racy_vec[i] = W.racy + i * 256;

	/* Paths: those that run first, then those that fail at SET or START. */
	{
		char *exec[] = { "/bin/true", "/bin/false", xasprintf("%s/ok.sh", work),
			"/nonexistent/true", xasprintf("%s/bad.sh", work),
			xasprintf("%s/noexec.txt", work), xasprintf("%s/loop.sh", work),
			xasprintf("%s/plain", work), "/tmp", "true", "/dev/null" };
		char *wr[] = { "/dev/null", xasprintf("%s/out/f0", work),
			xasprintf("%s/out/f1", work), xasprintf("%s/out/f2", work),
			xasprintf("%s/out", work), xasprintf("%s/out/sub/f", work) };
		char *longp = malloc(PATH_MAX + 8), *dots = malloc(PATH_MAX);
		char *any[ARRAY_SIZE(exec) + ARRAY_SIZE(wr) + 16];
		int n = 0;

		if (!longp || !dots)
			die("malloc");
		memset(longp, 'p', PATH_MAX + 7);
		longp[0] = '/';
		longp[PATH_MAX + 7] = 0;
		/* Under PATH_MAX, but thousands of components to walk. */
		for (i = 0; i + 2 < PATH_MAX - 16; i += 2)
			memcpy(dots + i, "./", 2);
		strcpy(dots + i, "bin/true");
		for (i = 0; i < (int)ARRAY_SIZE(exec); i++)
			any[n++] = exec[i];
		for (i = 0; i < (int)ARRAY_SIZE(wr); i++)
			any[n++] = wr[i];
		any[n++] = "";
		any[n++] = "/";
		any[n++] = ".";
		any[n++] = "..";
		any[n++] = work;
		any[n++] = xasprintf("%s/dir", work);
		any[n++] = xasprintf("%s/loopdir", work);
		any[n++] = "/proc/self/fd/0";
		any[n++] = "/proc/self/fd/3";
		any[n++] = "/etc/hostname";
		any[n++] = longp;
		any[n++] = dots;
		W.exec_paths = malloc(sizeof(exec));
		W.write_paths = malloc(sizeof(wr));
		W.paths = malloc(n * sizeof(char *));
		if (!W.exec_paths || !W.write_paths || !W.paths)
			die("malloc");
		memcpy(W.exec_paths, exec, sizeof(exec));
		memcpy(W.write_paths, wr, sizeof(wr));
		memcpy(W.paths, any, n * sizeof(char *));
		W.nexec_paths = ARRAY_SIZE(exec);
		W.nwrite_paths = ARRAY_SIZE(wr);
		W.npaths = n;
	}
	getrlimit(RLIMIT_NOFILE, &W.nofile);
	getrlimit(RLIMIT_STACK, &W.stack);
}

static void worker_close_all(void)
{
	int i;

	for (i = 0; i < NSLOTS; i++)
		slot_close(&W.slots[i]);
	for (i = 0; i < NSOCKS; i++)
		slot_close(&W.socks[i]);
	close(W.devnull);
	close(W.workfd);
	close(W.bindir);
	close(W.truefd);
	close(W.ruleset);
	close(W.scriptfd);
	close(W.memfd);
	close(W.epfd);
}

/* A worker process: threads of random operations, then its own checks. */
static void worker(int role, int index, uint64_t seed, double secs, int nthreads,
		   int sigchld)
{
	struct report *rep = &sh->rep[role];
	struct thr *thr;
	pthread_t th[MAX_THREADS], reaper;
	struct sigaction sa = { .sa_handler = nop };
	uint64_t rng = mix(seed), reaper_seed;
	pid_t self = getpid();
	char *log;
	int i, fd;

	memset(rep, 0, sizeof(*rep));
	W.role = role;
	W.nthreads = nthreads;

	/*
	 * A session of its own, so that the children's process groups and
	 * group signals stay inside it; the children of its children that
	 * lose their parent come back to it; it dies with the supervisor.
	 */
	setsid();
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* Nothing the children print may reach the TAP output. */
	log = xasprintf("%s/log-%d", work, index);
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	i = open("/dev/null", O_RDWR);
	if (fd < 0 || i < 0 || dup2(i, 0) < 0 || dup2(i, 1) < 0 || dup2(fd, 2) < 0)
		die("worker stdio");
	close(i);
	close(fd);
	if (role == NOBODY) {
		struct rlimit rl = { NPROC_NOBODY, NPROC_NOBODY };

		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534) || setrlimit(RLIMIT_NPROC, &rl))
			die("dropping to nobody");
	}
	/* After the credentials change, which clears it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);

	rep->fds_before = count_fds();
	worker_setup();
	sa.sa_flags = one_in(&rng, 2) ? SA_RESTART : 0;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (sigchld == 1) {
		signal(SIGCHLD, SIG_IGN);
	} else if (sigchld == 2) {
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = SA_NOCLDWAIT;
		sigaction(SIGCHLD, &sa, NULL);
	}

	W.until = now() + secs;
	reaper_seed = mix(rng ^ 0x5eed);
	if (pthread_create(&reaper, NULL, reaper_main, &reaper_seed))
		die("pthread_create");
	thr = calloc(nthreads, sizeof(*thr));
	if (!thr)
		die("calloc");
	for (i = 0; i < nthreads; i++) {
		pthread_attr_t attr;

		thr[i].rng = mix(seed + 0x1000 * (i + 1));
		thr[i].idx = i;
		thr[i].vec = calloc(NVEC + 1, sizeof(char *));
		if (!thr[i].vec)
			die("malloc");
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 1 << 20);
		if (pthread_create(&th[i], &attr, fuzz_main, &thr[i]))
			die("pthread_create");
		pthread_attr_destroy(&attr);
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);

	setrlimit(RLIMIT_NOFILE, &W.nofile);
	setrlimit(RLIMIT_STACK, &W.stack);
	worker_close_all();
	__atomic_store_n(&W.reaper_stop, 1, __ATOMIC_RELEASE);
	pthread_join(reaper, NULL);

	/* No START runs now: a child with exit signal 0 is a leftover. */
	{
		struct proc p[256];
		int n = scan_procs(self, p, 256);

		for (i = 0; i < n; i++) {
			if (p[i].exit_signal)
				continue;
			if (!rep->failed_kids++)
				snprintf(rep->failed, sizeof(rep->failed),
					 "child %d (%s, state %c) with exit signal 0 after all STARTs returned",
					 p[i].pid, p[i].comm, p[i].state);
		}
	}

	/* Short programs end on their own; stopped ones and the rest are killed. */
	if (!reap_all(5)) {
		rep->killed_kids = kill_children(self);
		if (!reap_all(20)) {
			struct proc p[256];
			int n = scan_procs(self, p, 256);

			rep->left_kids = n ? n : 1;
			if (n)
				snprintf(rep->left, sizeof(rep->left),
					 "child %d (%s, state %c) not reaped 20 s after SIGKILL",
					 p[0].pid, p[0].comm, p[0].state);
		}
	}
	rep->fds_after = count_fds();
	rep->done = 1;
	_exit(0);
}

/* The supervisor. */

struct slab {
	char name[64];
	long objs, size, per_slab;
};

static bool watched(const char *name)
{
	static const char *const names[] = { "pid", "filp", "inode_cache", "dentry",
		"sock_inode_cache", "UNIX", "task_struct", "signal_cache",
		"sighand_cache", "files_cache", "fs_cache", "cred_jar" };
	size_t i;

	if (!strncmp(name, "kmalloc-", 8) || !strncmp(name, "pidfs", 5))
		return true;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* The watched caches of /proc/slabinfo; -1 if it cannot be read. */
static int read_slabs(struct slab *s, int max)
{
	FILE *f = fopen("/proc/slabinfo", "re");
	char line[512], name[64];
	long active, total, size, per_slab;
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < max) {
		if (sscanf(line, "%63s %ld %ld %ld %ld", name, &active, &total, &size,
			   &per_slab) != 5 || !watched(name))
			continue;
		snprintf(s[n].name, sizeof(s[n].name), "%s", name);
		s[n].objs = active;
		s[n].size = size;
		s[n].per_slab = per_slab;
		n++;
	}
	fclose(f);
	return n;
}

static int count_unix(void)
{
	FILE *f = fopen("/proc/net/unix", "re");
	char line[512];
	int n = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		/* Best effort: not every cache can be shrunk. */
		(void)!write(fd, s, strlen(s));
		close(fd);
	}
}

/*
 * Let the kernel free what it frees late: a closed socket with files in
 * flight runs the unix garbage collector; dentries and inodes are dropped;
 * the watched caches give back their per-CPU slabs; RCU catches up.
 */
static void settle(void)
{
	struct slab s[128];
	int sv[2], i, n;
	char path[128];

	if (!socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv)) {
		struct iovec iov = { .iov_base = "g", .iov_len = 1 };
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} u;
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &sv[0], sizeof(int));
		sendmsg(sv[1], &mh, 0);
		close(sv[0]);
		close(sv[1]);
	}
	write_file("/proc/sys/vm/drop_caches", "2");
	n = read_slabs(s, 128);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/sys/kernel/slab/%.63s/shrink", s[i].name);
		write_file(path, "1");
	}
	sleep_ms(1000);
}

static long slab_bound(const struct slab *before)
{
	return SLAB_SLACK * before->per_slab + before->objs * SLAB_SLACK_PCT / 100;
}

static int tap_n;
static bool tap_failed;

static void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	tap_failed |= !ok;
}

static void tap_skip(const char *what, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_n, what, why);
}

static void kmsg(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* Best effort: the marker only helps reading the log. */
	(void)!write(fd, buf, strlen(buf));
	close(fd);
}

/* The scratch directory: programs and files the children use. */
static void make_work(void)
{
	static const struct {
		const char *name, *text;
		mode_t mode;
	} files[] = {
		{ "ok.sh", "#!/bin/sh\nexit 0\n", 0755 },
		{ "bad.sh", "#!/nonexistent/interpreter\n", 0755 },
		{ "noexec.txt", "no interpreter line\n", 0755 },
		{ "plain", "#!/bin/sh\n", 0644 },
	};
	char path[PATH_MAX + 32];
	size_t i;
	int fd;

	snprintf(work, sizeof(work), "/tmp/pidfd-fuzz.XXXXXX");
	if (!mkdtemp(work) || chmod(work, 0755))
		die("mkdtemp");
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", work, files[i].name);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, files[i].mode);
		if (fd < 0 || write(fd, files[i].text, strlen(files[i].text)) < 0)
			die(path);
		close(fd);
		chmod(path, files[i].mode);
	}
	/* A script that is its own interpreter: ELOOP at START. */
	snprintf(path, sizeof(path), "%s/loop.sh", work);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (fd < 0 || dprintf(fd, "#!%s\n", path) < 0)
		die(path);
	close(fd);
	snprintf(path, sizeof(path), "%s/dir", work);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/out", work);
	mkdir(path, 0777);
	chmod(path, 0777);
	snprintf(path, sizeof(path), "%s/loopdir", work);
	if (symlink(path, path))
		die("symlink");

	/* A cgroup of our own for SET_CGROUP, or the root where we cannot. */
	snprintf(cgdir, sizeof(cgdir), "/sys/fs/cgroup/pidfd-fuzz-%d", getpid());
	if (geteuid() || mkdir(cgdir, 0755))
		cgdir[0] = 0;
	cgfd = open(cgdir[0] ? cgdir : "/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static void remove_work(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", work);
	if (system(cmd))
		fprintf(stderr, "pidfd-fuzz: could not remove %s\n", work);
}

/*
 * Print what a worker said on stderr; its children's complaints (a script
 * that cannot be opened, a preload that cannot be found) are only counted.
 */
static void show_log(int index)
{
	char path[PATH_MAX + 32], line[256];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/log-%d", work, index);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "pidfd-fuzz:", 11))
			n++;
		else
			printf("# worker %d: %s%s", index, line,
			       strchr(line, '\n') ? "" : "\n");
	}
	if (n)
		printf("# worker %d: %d lines of its children's stderr\n", index, n);
	fclose(f);
	unlink(path);
}

/* What the supervisor learns, for the checks. */
static struct {
	int runs[2];		/* worker rounds by role */
	int bad_workers;	/* crashed, failed or hung */
	int failed_kids, left_kids, fd_errors;
	int orphans_killed;
	char bad[256], failed[256], left[256], fds[256];
	pid_t sessions[4096];	/* the workers', one each */
	int nsessions;
} R;

struct slot {
	pid_t pid;
	int index;
	double started, ends, kill_at, stop_at;
	bool killed;
};

static void note(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (buf[0])
		return;		/* the first is the one to chase */
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static void worker_start(struct slot *s, int role, uint64_t seed, uint64_t *rng,
			 double tnow, double deadline, int nthreads, int *index)
{
	double secs = 3 + below(rng, 12);
	int sigchld = one_in(rng, 6) ? 1 + below(rng, 2) : 0;

	if (secs > deadline - tnow)
		secs = deadline - tnow;
	*s = (struct slot){ .index = ++*index, .started = tnow, .ends = tnow + secs };
	/* Killed, or stopped and continued, at some point, as callers are. */
	if (one_in(rng, 4))
		s->kill_at = tnow + secs * below(rng, 100) / 100;
	if (one_in(rng, 4))
		s->stop_at = tnow + secs * below(rng, 100) / 100;
	printf("# worker %d: %s, %.0f s, SIGCHLD %s%s\n", s->index,
	       role == NOBODY ? "nobody" : geteuid() ? "caller's uid" : "root", secs,
	       sigchld == 1 ? "ignored" : sigchld == 2 ? "SA_NOCLDWAIT" : "default",
	       s->kill_at ? ", to be killed" : "");
	kmsg("pidfd-fuzz: seed %llu: worker %d (%s) starts\n",
	     (unsigned long long)seed, s->index, role == NOBODY ? "nobody" : "root");
	fflush(stdout);
	s->pid = fork();
	if (s->pid < 0)
		die("fork");
	if (!s->pid)
		worker(role, s->index, mix(seed ^ ((uint64_t)s->index << 32)), secs,
		       nthreads, sigchld);
	R.runs[role]++;
	if (R.nsessions < (int)ARRAY_SIZE(R.sessions))
		R.sessions[R.nsessions++] = s->pid;
}

static void worker_ended(struct slot *s, struct report *rep, const siginfo_t *si)
{
	s->pid = 0;
	if (si->si_code == CLD_EXITED && si->si_status == 0 && rep->done) {
		printf("# worker %d: fds %d -> %d, %d children killed at the end\n",
		       s->index, rep->fds_before, rep->fds_after, rep->killed_kids);
		if (rep->fds_before != rep->fds_after) {
			R.fd_errors++;
			note(R.fds, sizeof(R.fds), "worker %d: %d fds at its start, %d at its end",
			     s->index, rep->fds_before, rep->fds_after);
		}
		R.failed_kids += rep->failed_kids;
		if (rep->failed_kids)
			note(R.failed, sizeof(R.failed), "worker %d: %s", s->index, rep->failed);
		R.left_kids += rep->left_kids;
		if (rep->left_kids)
			note(R.left, sizeof(R.left), "worker %d: %s", s->index, rep->left);
	} else if (si->si_code == CLD_KILLED && si->si_status == SIGKILL && s->killed) {
		printf("# worker %d: killed after %.1f s\n", s->index, now() - s->started);
	} else {
		R.bad_workers++;
		note(R.bad, sizeof(R.bad), "worker %d: %s %d", s->index,
		     si->si_code == CLD_EXITED ? "exit status" : "signal", si->si_status);
	}
	show_log(s->index);
}

/* Rounds of a root and a nobody worker until the deadline. */
static void supervise(uint64_t seed, int seconds, int nthreads)
{
	struct slot slots[2] = { { 0 }, { 0 } };
	uint64_t rng = mix(seed);
	double deadline = now() + seconds;
	int index = 0, role;

	for (;;) {
		double tnow = now();
		bool running = false;
		siginfo_t si;

		for (role = ROOT; role <= NOBODY; role++) {
			struct slot *s = &slots[role];

			if (!s->pid) {
				if (tnow < deadline - 1 && (role == ROOT || !geteuid())) {
					worker_start(s, role, seed, &rng, tnow, deadline,
						     nthreads, &index);
					running = true;
				}
				continue;
			}
			running = true;
			if (s->stop_at && tnow > s->stop_at) {
				kill(s->pid, SIGSTOP);
				sleep_ms(20 + below(&rng, 200));
				kill(s->pid, SIGCONT);
				s->stop_at = 0;
			}
			if (s->kill_at && tnow > s->kill_at && !s->killed) {
				kill(s->pid, SIGKILL);
				s->killed = true;
			}
			if (tnow > s->ends + 120 && !s->killed) {
				R.bad_workers++;
				note(R.bad, sizeof(R.bad), "worker %d hung 120 s past its end",
				     s->index);
				kill(s->pid, SIGKILL);
				s->killed = true;
			}
		}
		if (!running)
			return;

		/* Workers end here; so do orphans that came back to us. */
		while (si.si_pid = 0,
		       !waitid(P_ALL, 0, &si, WEXITED | WNOHANG | __WALL) && si.si_pid)
			for (role = ROOT; role <= NOBODY; role++)
				if (slots[role].pid == si.si_pid)
					worker_ended(&slots[role], &sh->rep[role], &si);
		sleep_ms(20);
	}
}

/* Children, zombies and sessions of the workers left once they are gone. */
static void check_leftovers(void)
{
	static struct proc p[4096];
	int i, j, n;

	/* Orphans: started children of killed workers, and theirs. */
	if (!reap_all(5)) {
		R.orphans_killed = kill_children(getpid());
		if (!reap_all(20)) {
			n = scan_procs(getpid(), p, ARRAY_SIZE(p));
			R.left_kids += n ? n : 1;
			if (n)
				note(R.left, sizeof(R.left),
				     "pid %d (%s, state %c) not reaped 20 s after SIGKILL",
				     p[0].pid, p[0].comm, p[0].state);
		}
	}
	/* Nothing may live on in a worker's session, wherever it went. */
	n = scan_procs(0, p, ARRAY_SIZE(p));
	for (i = 0; i < n; i++)
		for (j = 0; j < R.nsessions; j++)
			if (p[i].sid == R.sessions[j]) {
				R.left_kids++;
				note(R.left, sizeof(R.left),
				     "pid %d (%s, state %c, parent %d) left in worker session %d",
				     p[i].pid, p[i].comm, p[i].state, p[i].ppid, p[i].sid);
			}
	if (cgdir[0] && rmdir(cgdir)) {
		R.left_kids++;
		note(R.left, sizeof(R.left), "cgroup %s: %s", cgdir, strerror(errno));
	}
}

static void print_stats(void)
{
	unsigned int c, e, shown;

	printf("# %lu calls, %lu STARTs (%lu failed), %lu forks, %lu races\n",
	       sh->calls, sh->starts, sh->start_fails, sh->forks, sh->races);
	for (c = 0; c < NCMDS; c++) {
		bool seen[NERRS] = { false };
		unsigned long total = 0;

		for (e = 0; e < NERRS; e++)
			total += sh->cmd[c][e];
		if (!cmd_names[c])
			continue;
		printf("# %s: %lu calls, %lu ok", cmd_names[c], total, sh->cmd[c][0]);
		/* The most frequent errors, most frequent first. */
		for (shown = 0; shown < 6; shown++) {
			unsigned int best = 0;

			for (e = 1; e < NERRS; e++)
				if (!seen[e] && sh->cmd[c][e] &&
				    (!best || sh->cmd[c][e] > sh->cmd[c][best]))
					best = e;
			if (!best)
				break;
			seen[best] = true;
			printf(", %s %lu", strerrorname_np(best) ?: "?", sh->cmd[c][best]);
		}
		putchar('\n');
	}
}

/*
 * Unix sockets and slab caches, after they had SETTLE_SECONDS to give
 * back what the kernel frees late.
 */
static void check_memory(const struct slab *before, int nbefore, int unix_before)
{
	struct slab after[128];
	int i, j, k, nafter = -1, unix_after = -1;
	bool slabs_ok = true;

	for (i = 0; i < SETTLE_SECONDS; i++) {
		settle();
		unix_after = count_unix();
		nafter = read_slabs(after, 128);
		slabs_ok = true;
		for (j = 0; j < nafter; j++)
			for (k = 0; k < nbefore; k++)
				if (!strcmp(after[j].name, before[k].name) &&
				    after[j].objs - before[k].objs > slab_bound(&before[k]))
					slabs_ok = false;
		if (unix_after <= unix_before && slabs_ok)
			break;
	}
	printf("# unix sockets: %d before, %d after (%d s to settle)\n", unix_before,
	       unix_after, i < SETTLE_SECONDS ? i + 1 : i);
	tap(unix_after <= unix_before, "no more unix sockets than before");

	if (nbefore < 0 || nafter < 0) {
		tap_skip("slab growth within bound", "/proc/slabinfo is not readable");
		return;
	}
	for (j = 0; j < nafter; j++)
		for (k = 0; k < nbefore; k++) {
			long grew = after[j].objs - before[k].objs;
			long bound = slab_bound(&before[k]);

			/* Those past half their bound, to see how close it was. */
			if (strcmp(after[j].name, before[k].name) || grew * 2 <= bound)
				continue;
			printf("# slab %s: %ld -> %ld objects (%+ld KiB, bound %+ld)%s\n",
			       after[j].name, before[k].objs, after[j].objs,
			       grew * after[j].size / 1024, bound,
			       grew > bound ? ": too much" : "");
		}
	tap(slabs_ok, "slab growth within %d slabs + %d%% of each watched cache",
	    SLAB_SLACK, SLAB_SLACK_PCT);
}

/*
 * --soak N: N spawns of a short static child (--soak-child, else
 * ../demo/exit0 beside us, else /bin/true) by one spawner per CPU, through
 * the builder by path and by fd and through a template, with a mix of fd
 * actions; in turn, three in ten are meant to fail (an open action on a
 * missing file: ENOENT at START; a file that is not executable: EACCES; a
 * dup2 from a descriptor the child does not have: EBADF) and one in ten is
 * closed unstarted.  Every outcome is checked, then the same leftover, fd
 * and slab checks as a fuzz run.
 */
enum soak_kind {
	SOAK_PATH, SOAK_FD_ACTIONS, SOAK_GIVE_FD, SOAK_INHERIT, SOAK_TEMPLATE_GIVE_FD,
	SOAK_TEMPLATE, SOAK_FAIL_OPEN, SOAK_FAIL_EXEC, SOAK_FAIL_DUP2, SOAK_UNSTARTED,
	SOAK_KINDS
};

static const char *const soak_names[SOAK_KINDS] = {
	"by path", "by fd + open/dup2", "give_fd + close_range", "inherit_fds + close",
	"template + give_fd", "template", "missing file (ENOENT)", "not executable (EACCES)",
	"bad dup2 (EBADF)", "closed unstarted",
};

static const int soak_errno[SOAK_KINDS] = {
	[SOAK_FAIL_OPEN] = ENOENT, [SOAK_FAIL_EXEC] = EACCES, [SOAK_FAIL_DUP2] = EBADF,
};

/* One spawn of @kind; 0 if it went as meant to. */
static int soak_one(enum soak_kind kind, const char *exe, int exe_fd, int tmpl,
		    int devnull, const char *plain, char *const argv[])
{
	struct pidfd_open_action open_null = { .flags = O_RDWR, .fd = 0 };
	struct pidfd_open_action open_missing = { .flags = O_RDONLY, .fd = 0 };
	struct pidfd_fd_pair to_stdout = { .fd = 0, .newfd = 1 };
	struct pidfd_fd_pair give = { .fd = devnull, .newfd = 5 };
	struct pidfd_fd_pair bad = { .fd = 40, .newfd = 1 };
	struct pidfd_fd_range above = { .first = 3, .last = ~0U };
	long fd, ret = 0;
	siginfo_t si;

	if (kind == SOAK_TEMPLATE || kind == SOAK_TEMPLATE_GIVE_FD)
		fd = sys_config(tmpl, PIDFD_CONFIG_NEW_EMPTY, NULL, NULL, 0);
	else
		fd = sys_pidfd_open(0, PIDFD_EMPTY);
	if (fd < 0)
		return -1;
	switch (kind) {
	case SOAK_PATH:
		ret = sys_config(fd, PIDFD_CONFIG_SET_EXEC_PATH, exe, NULL, AT_FDCWD);
		break;
	case SOAK_FD_ACTIONS:
		ret = sys_config(fd, PIDFD_CONFIG_SET_EXEC_FD, NULL, NULL, exe_fd) ?:
		      sys_config(fd, PIDFD_CONFIG_ACT_OPEN, "/dev/null", &open_null,
				 sizeof(open_null)) ?:
		      sys_config(fd, PIDFD_CONFIG_ACT_DUP2, NULL, &to_stdout, sizeof(to_stdout));
		break;
	case SOAK_GIVE_FD:
		ret = sys_config(fd, PIDFD_CONFIG_SET_EXEC_FD, NULL, NULL, exe_fd) ?:
		      sys_config(fd, PIDFD_CONFIG_ACT_GIVE_FD, NULL, &give, sizeof(give)) ?:
		      sys_config(fd, PIDFD_CONFIG_ACT_CLOSE_RANGE, NULL, &above, sizeof(above));
		break;
	case SOAK_INHERIT:
		ret = sys_config(fd, PIDFD_CONFIG_SET_EXEC_PATH, exe, NULL, AT_FDCWD) ?:
		      sys_config(fd, PIDFD_CONFIG_INHERIT_FDS, NULL, NULL, 0) ?:
		      sys_config(fd, PIDFD_CONFIG_ACT_CLOSE, NULL, NULL, devnull);
		break;
	case SOAK_TEMPLATE_GIVE_FD:
		ret = sys_config(fd, PIDFD_CONFIG_ACT_GIVE_FD, NULL, &give, sizeof(give));
		break;
	case SOAK_FAIL_OPEN:
		ret = sys_config(fd, PIDFD_CONFIG_SET_EXEC_FD, NULL, NULL, exe_fd) ?:
		      sys_config(fd, PIDFD_CONFIG_ACT_OPEN, "/nonexistent/soak", &open_missing,
				 sizeof(open_missing));
		break;
	case SOAK_FAIL_EXEC:
		ret = sys_config(fd, PIDFD_CONFIG_SET_EXEC_PATH, plain, NULL, AT_FDCWD);
		break;
	case SOAK_FAIL_DUP2:
		ret = sys_config(fd, PIDFD_CONFIG_SET_EXEC_FD, NULL, NULL, exe_fd) ?:
		      sys_config(fd, PIDFD_CONFIG_ACT_DUP2, NULL, &bad, sizeof(bad));
		break;
	case SOAK_UNSTARTED:
		ret = sys_config(fd, PIDFD_CONFIG_SET_EXEC_PATH, exe, NULL, AT_FDCWD);
		close(fd);
		return ret ? -1 : 0;
	case SOAK_TEMPLATE:
	case SOAK_KINDS:
		break;
	}
	if (!ret)
		ret = sys_config(fd, PIDFD_CONFIG_SET_ARGV, NULL, argv, 0);
	/* A failure meant to be may come from a command or from START. */
	if (!ret)
		ret = sys_config(fd, PIDFD_CONFIG_START, NULL, NULL, 0);
	if (soak_errno[kind] || ret < 0) {
		ret = ret < 0 && errno == soak_errno[kind] ? 0 : -1;
		close(fd);
		return ret;
	}
	if (ret <= 0 || waitid(P_PIDFD, fd, &si, WEXITED)) {
		close(fd);
		return -1;
	}
	close(fd);
	return si.si_code == CLD_EXITED && si.si_status == 0 ? 0 : -1;
}

/* What the spawners tell the supervisor. */
struct soak_report {
	unsigned long done[SOAK_KINDS], wrong[SOAK_KINDS];
	int fds_before, fds_after, no_template;
};

/*
 * Spawner @index of @nr: spawns index, index + nr, ... below @spawns, with
 * a template of its own (a template serves its creator's thread group).
 */
static void soak_spawner(int index, int nr, unsigned long spawns, const char *exe,
			 const char *plain, struct soak_report *rep)
{
	static char *const argv[] = { "soak-child", NULL };
	int exe_fd, devnull, tmpl;
	unsigned long i;
	long fd;

	rep->fds_before = count_fds();
	exe_fd = open(exe, O_PATH | O_CLOEXEC);
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	fd = sys_pidfd_open(0, PIDFD_EMPTY);
	if (exe_fd < 0 || devnull < 0 || fd < 0 ||
	    sys_config(fd, PIDFD_CONFIG_SET_EXEC_PATH, exe, NULL, AT_FDCWD) ||
	    sys_config(fd, PIDFD_CONFIG_SET_ARGV, NULL, argv, 0))
		die("soak setup");
	tmpl = sys_config(fd, PIDFD_CONFIG_MAKE_TEMPLATE, NULL, NULL, 0);
	close(fd);
	/* A kernel without templates: their share runs by path. */
	rep->no_template = tmpl < 0;

	for (i = index; i < spawns; i += nr) {
		enum soak_kind kind = i % SOAK_KINDS;

		if (tmpl < 0 && (kind == SOAK_TEMPLATE || kind == SOAK_TEMPLATE_GIVE_FD))
			kind = SOAK_PATH;
		rep->done[kind]++;
		if (soak_one(kind, exe, exe_fd, tmpl, devnull, plain, argv) &&
		    rep->wrong[kind]++ < 3)
			printf("# spawn %lu (%s) went wrong: %s\n", i, soak_names[kind],
			       strerror(errno));
		if (!index && (i + nr) % 100000 < (unsigned long)nr)
			printf("# about %lu spawns\n", i + nr);
	}
	if (tmpl >= 0)
		close(tmpl);
	close(exe_fd);
	close(devnull);
	rep->fds_after = count_fds();
	_exit(0);
}

/* Zombies and all processes in the system, for the record. */
static void count_procs(int *all, int *zombies)
{
	static struct proc p[8192];
	int i, n = scan_procs(0, p, ARRAY_SIZE(p));

	*all = n;
	*zombies = 0;
	for (i = 0; i < n; i++)
		*zombies += p[i].state == 'Z';
}

/* The caches a spawn allocates from, before and after, for the record. */
static void soak_show_slabs(const struct slab *before, int nbefore)
{
	static const char *const shown[] = { "pid", "task_struct", "signal_cache",
		"sighand_cache", "files_cache", "fs_cache", "cred_jar", "filp",
		"pidfs_inode_cache" };
	struct slab after[128];
	int nafter = read_slabs(after, 128), i, j, k;

	for (k = 0; k < (int)ARRAY_SIZE(shown); k++)
		for (i = 0; i < nbefore; i++)
			for (j = 0; j < nafter; j++)
				if (!strcmp(before[i].name, shown[k]) &&
				    !strcmp(after[j].name, shown[k]))
					printf("# slab %-18s %7ld -> %7ld objects\n", shown[k],
					       before[i].objs, after[j].objs);
}

static int soak(unsigned long spawns, const char *child)
{
	int nr = sysconf(_SC_NPROCESSORS_ONLN), k, w, status, fds_before, fds_after;
	int nbefore, unix_before, procs_before, procs_after, zombies_before, zombies_after;
	unsigned long done, wrong, all_wrong = 0;
	char exe[PATH_MAX], plain[PATH_MAX + 32], *slash;
	struct soak_report *rep;
	struct slab before[128];
	bool spawners_ok = true;
	double t0, elapsed;
	long fd;

	printf("1..7\n");
	fd = sys_pidfd_open(0, PIDFD_EMPTY);
	if (fd < 0) {
		printf("# pidfd_open(0, PIDFD_EMPTY): %s\n", strerror(errno));
		for (k = 1; k <= 7; k++)
			tap_skip("soak", "no PIDFD_EMPTY");
		return 0;
	}
	close(fd);
	if (nr < 1 || nr > 16)
		nr = nr < 1 ? 1 : 16;
	rep = mmap(NULL, nr * sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rep == MAP_FAILED)
		die("mmap");
	/* The static child is staged beside the tests, in ../demo. */
	if (child)
		snprintf(exe, sizeof(exe), "%s", child);
	else if (readlink("/proc/self/exe", exe, sizeof(exe) - 32) < 0)
		die("readlink");
	if (!child) {
		exe[sizeof(exe) - 32] = 0;
		slash = strrchr(exe, '/');
		*slash = 0;
		slash = strrchr(exe, '/');
		strcpy(slash ? slash + 1 : exe, "demo/exit0");
	}
	if (access(exe, X_OK))
		strcpy(exe, "/bin/true");
	make_work();
	snprintf(plain, sizeof(plain), "%s/noexec.txt", work);
	chmod(plain, 0644);

	settle();
	fds_before = count_fds();
	count_procs(&procs_before, &zombies_before);
	nbefore = read_slabs(before, 128);
	unix_before = count_unix();
	printf("# soak: %lu spawns of %s by %d spawners; before: %d fds, %d processes, %d zombies\n",
	       spawns, exe, nr, fds_before, procs_before, zombies_before);
	kmsg("pidfd-fuzz: soak of %lu spawns starts\n", spawns);

	t0 = now();
	for (w = 0; w < nr; w++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid)
			soak_spawner(w, nr, spawns, exe, plain, &rep[w]);
	}
	while (wait(&status) > 0)
		spawners_ok &= WIFEXITED(status) && !WEXITSTATUS(status);
	elapsed = now() - t0;

	if (rep[0].no_template)
		printf("# no templates: their share went by path\n");
	for (k = 0; k < SOAK_KINDS; k++) {
		for (w = 0, done = 0, wrong = 0; w < nr; w++) {
			done += rep[w].done[k];
			wrong += rep[w].wrong[k];
		}
		printf("# %-26s %8lu spawns, %lu went wrong\n", soak_names[k], done, wrong);
		all_wrong += wrong;
	}
	tap(spawners_ok && !all_wrong, "%lu spawns in %.0f s (%.0f/s), each as meant to",
	    spawns, elapsed, spawns / elapsed);
	for (w = 0; w < nr; w++)
		if (rep[w].fds_before != rep[w].fds_after)
			break;
	tap(w == nr, "each spawner's fds back to their start (%d -> %d)",
	    rep[w < nr ? w : 0].fds_before, rep[w < nr ? w : 0].fds_after);
	tap(reap_all(5), "no child left to reap");
	settle();
	fds_after = count_fds();
	count_procs(&procs_after, &zombies_after);
	printf("# after: %d fds, %d processes, %d zombies\n", fds_after, procs_after,
	       zombies_after);
	tap(fds_after == fds_before, "fds: %d before, %d after", fds_before, fds_after);
	tap(zombies_after <= zombies_before, "zombies: %d before, %d after", zombies_before,
	    zombies_after);
	check_memory(before, nbefore, unix_before);
	soak_show_slabs(before, nbefore);
	remove_work();
	printf("pidspawn-soak: %lu spawns, %.0f s\n", spawns, elapsed);
	kmsg("pidfd-fuzz: soak done\n");
	return tap_failed;
}

int main(int argc, char **argv)
{
	struct slab before[128];
	unsigned long long seed = 0;
	bool have_seed = false;
	int seconds = 60, nthreads = 4, i, nbefore, unix_before, fds_before;
	unsigned long soak_spawns = 0;
	const char *soak_child = NULL;
	double t0, elapsed;
	long fd;

	/* Started with no arguments at all, it is some test's child: refuse. */
	if (argc < 1)
		return 2;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 0);
			have_seed = true;
		} else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			seconds = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			nthreads = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--soak") && i + 1 < argc) {
			soak_spawns = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--soak-child") && i + 1 < argc) {
			soak_child = argv[++i];
		} else {
			fprintf(stderr, "usage: %s [--seed N] [--seconds N] [--threads N] | --soak N [--soak-child PATH]\n",
				argv[0]);
			return 2;
		}
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || seconds < 1) {
		fprintf(stderr, "pidfd-fuzz: --threads 1 to %d, --seconds 1 or more\n",
			MAX_THREADS);
		return 2;
	}
	if (!have_seed) {
		if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
			seed = time(NULL) ^ getpid();
		seed &= 0xffffffffffffULL;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (soak_spawns) {
		syscall(SYS_close_range, 3, ~0U, 0);
		sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (sh == MAP_FAILED)
			die("mmap");
		prctl(PR_SET_CHILD_SUBREAPER, 1);
		return soak(soak_spawns, soak_child);
	}
	printf("# pidspawn-fuzz: seed %llu (rerun: --seed %llu), %d s, %d threads a worker\n",
	       seed, seed, seconds, nthreads);
	printf("1..9\n");

	/* Descriptors we did not open (a jobserver pipe, say) might block a read. */
	syscall(SYS_close_range, 3, ~0U, 0);
	fds_before = count_fds();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	fd = sys_pidfd_open(0, PIDFD_EMPTY);
	if (fd < 0) {
		printf("# pidfd_open(0, PIDFD_EMPTY): %s\n", strerror(errno));
		tap_skip("pidfd_open(0, PIDFD_EMPTY)", "not supported by this kernel");
		for (i = 2; i <= 9; i++)
			tap_skip("fuzzing", "no PIDFD_EMPTY");
		return 0;
	}
	close(fd);
	tap(true, "pidfd_open(0, PIDFD_EMPTY) works");

	/* Orphans of the workers' children come back here, to be counted. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	signal(SIGPIPE, SIG_IGN);
	make_work();
	settle();
	nbefore = read_slabs(before, 128);
	unix_before = count_unix();
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, xchg))
		die("socketpair");
	kmsg("pidfd-fuzz: seed %llu, %d s, %d threads\n", seed, seconds, nthreads);

	t0 = now();
	supervise(seed, seconds, nthreads);
	elapsed = now() - t0;
	close(xchg[0]);
	close(xchg[1]);
	check_leftovers();
	if (cgfd >= 0)
		close(cgfd);
	print_stats();

	tap(sh->calls && sh->starts, "fuzzed: %lu calls, %lu STARTs", sh->calls,
	    sh->starts);
	if (R.bad_workers)
		printf("# %d: %s\n", R.bad_workers, R.bad);
	tap(!R.bad_workers, "workers ended by themselves or by our SIGKILL, none hung");
	if (R.failed_kids)
		printf("# %d: %s\n", R.failed_kids, R.failed);
	tap(!R.failed_kids, "no child of a failed START outlived the call");
	printf("# %d orphans still running at the end, killed\n", R.orphans_killed);
	if (R.left_kids)
		printf("# %d: %s\n", R.left_kids, R.left);
	tap(!R.left_kids, "no child, zombie or session of the fuzzer left");
	i = count_fds();
	if (i != fds_before) {
		R.fd_errors++;
		note(R.fds, sizeof(R.fds), "supervisor: %d fds at the start, %d at the end",
		     fds_before, i);
	}
	if (R.fd_errors)
		printf("# %d: %s\n", R.fd_errors, R.fds);
	tap(!R.fd_errors, "fd counts back to their start values");
	check_memory(before, nbefore, unix_before);
	if (geteuid())
		tap_skip("the nobody worker ran", "not root");
	else
		tap(R.runs[NOBODY] && sh->nobody_calls,
		    "the nobody worker ran %d rounds, %lu pidfd_config() calls",
		    R.runs[NOBODY], sh->nobody_calls);

	remove_work();
	printf("pidspawn-fuzz: seed %llu, %lu calls, %lu STARTs, %.0f s\n", seed,
	       sh->calls, sh->starts, elapsed);
	kmsg("pidfd-fuzz: seed %llu done\n", seed);
	return tap_failed;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * make sandbox-bench: the same sandbox built three ways, spawned side by
 * side in one run: a tool that may write beneath one directory only, has
 * no network (a network namespace of its own, and no socket but AF_UNIX),
 * no_new_privs, a seccomp filter that denies ptrace() and RLIMIT_NOFILE 64.
 * Run as root: the network namespace needs no user namespace.
 *
 *  fork       fork(), then in the child unshare(CLONE_NEWNET), setrlimit(),
 *             prctl(), Landlock's landlock_restrict_self() and seccomp()
 *             (the ruleset and the filter prepared once by the caller),
 *             then execve();
 *  bwrap      bubblewrap: read-only bind of /, a writable bind of the
 *             directory, a new network namespace, the same filter through
 *             --seccomp (bwrap sets no_new_privs for it), the limit set in
 *             the forked child before it executes bwrap;
 *  builder    the pidfd_config() builder with the same prepared ruleset and
 *             filter (SET_NAMESPACES with CLONE_NEWNET, SET_RLIMIT,
 *             SET_NO_NEW_PRIVS, SET_LANDLOCK, SET_SECCOMP_FILTER);
 *  sandbox    the builder through pidspawn_sandbox() with
 *             PIDSPAWN_SANDBOX_NO_NETWORK and PIDSPAWN_SANDBOX_NETNS, which
 *             makes the ruleset and the filter again at every spawn, and
 *             puts the network namespace in a user namespace (as it must
 *             for a caller that is not root).
 *
 * The child is a static program that exits at once.  Ways take turns in
 * rounds, each round starting with the next way, with a pause between
 * ways outside the timing; a way's cost is its spawn->exit->reap time per spawn (under
 * make sandbox-bench BENCH_CLOCK=icount: instructions), the median of
 * its rounds.  The caller code each way needs is between the markers
 * "caller code: <way>" and "end of caller code" (counted by the Makefile);
 * "prepare", the filter and the ruleset, serves fork, bwrap (the filter)
 * and builder.
 *
 *   sandbox-bench [-n spawns a round] [-r rounds] [-k clock] CHILD WRITABLE_DIR
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <pidspawn.h>

#define MAX_ROUNDS	64
#define NOFILE		64
#define BWRAP		"/usr/bin/bwrap"

static const char *child, *dir;
static char *child_argv[] = { "tool", NULL };
static char *child_envp[] = { NULL };
static struct rlimit nofile = { NOFILE, NOFILE };

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/* caller code: prepare (the filter and the ruleset: fork, bwrap, builder) */
/* The filter: other ABIs killed, ptrace() EPERM, sockets but AF_UNIX refused. */
static struct sock_filter filter[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ptrace, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 3),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EAFNOSUPPORT),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};
static struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

/* A ruleset that allows writing beneath @path alone. */
static int make_ruleset(const char *path)
{
	struct landlock_ruleset_attr attr = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE |
			LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
			LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
			LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
			LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
			LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER,
	};
	struct landlock_path_beneath_attr beneath = {
		.allowed_access = attr.handled_access_fs,
	};
	int ruleset = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);

	beneath.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (ruleset < 0 || beneath.parent_fd < 0 ||
	    syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0))
		return -1;
	close(beneath.parent_fd);
	return ruleset;
}

static int ruleset = -1;
/* end of caller code */

/* caller code: fork */
static pid_t by_fork(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (unshare(CLONE_NEWNET) || setrlimit(RLIMIT_NOFILE, &nofile) ||
		    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    syscall(SYS_landlock_restrict_self, ruleset, 0) ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
			_exit(126);
		execve(child, child_argv, child_envp);
		_exit(127);
	}
	return pid;
}
/* end of caller code */

/* caller code: bwrap */
static int filter_fd = -1;	/* the filter for --seccomp, made once */

static pid_t by_bwrap(void)
{
	char fd[16];
	char *argv[] = { "bwrap", "--ro-bind", "/", "/", "--bind", (char *)dir, (char *)dir,
		"--unshare-net", "--seccomp", fd, (char *)child, NULL };
	pid_t pid;

	snprintf(fd, sizeof(fd), "%d", filter_fd);
	pid = fork();
	if (pid == 0) {
		/* bwrap reads the filter from the descriptor's start. */
		if (setrlimit(RLIMIT_NOFILE, &nofile) ||
		    lseek(filter_fd, 0, SEEK_SET) || fcntl(filter_fd, F_SETFD, 0))
			_exit(126);
		execve(BWRAP, argv, child_envp);
		_exit(127);
	}
	return pid;
}
/* end of caller code */

/* caller code: builder */
static int exe = -1;	/* the child, opened once */

static pid_t by_builder(void)
{
	int pidfd = pidspawn_create(0);
	pid_t pid = -1;

	if (pidfd >= 0 && !pidspawn_set_exec_fd(pidfd, exe) &&
	    !pidspawn_set_argv(pidfd, child_argv) &&
	    !pidspawn_set_namespaces(pidfd, CLONE_NEWNET) &&
	    !pidspawn_set_rlimit(pidfd, RLIMIT_NOFILE, &nofile) &&
	    !pidspawn_set_no_new_privs(pidfd) &&
	    !pidspawn_set_landlock(pidfd, ruleset) &&
	    !pidspawn_set_seccomp_filter(pidfd, 0, &prog))
		pid = pidspawn_start(pidfd);
	if (pidfd >= 0)
		close(pidfd);
	return pid;
}
/* end of caller code */

/* caller code: sandbox */
static pid_t by_sandbox(void)
{
	static const long deny[] = { SYS_ptrace };
	int pidfd = pidspawn_create(0);
	pid_t pid = -1;

	if (pidfd >= 0 && !pidspawn_set_exec_fd(pidfd, exe) &&
	    !pidspawn_set_argv(pidfd, child_argv) &&
	    !pidspawn_set_rlimit(pidfd, RLIMIT_NOFILE, &nofile) &&
	    !pidspawn_sandbox(pidfd, dir, deny, 1,
			      PIDSPAWN_SANDBOX_NO_NETWORK | PIDSPAWN_SANDBOX_NETNS))
		pid = pidspawn_start(pidfd);
	if (pidfd >= 0)
		close(pidfd);
	return pid;
}
/* end of caller code */

static const struct way {
	const char *name;
	pid_t (*spawn)(void);
} ways[] = {
	{ "fork", by_fork },
	{ "bwrap", by_bwrap },
	{ "builder", by_builder },
	{ "sandbox", by_sandbox },
};
#define NWAYS (sizeof(ways) / sizeof(ways[0]))

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long long cost[NWAYS][MAX_ROUNDS], median[NWAYS];
	bool usable[NWAYS];
	const char *clock = "wall";
	int n = 50, rounds = 5, opt;
	unsigned int w;

	while ((opt = getopt(argc, argv, "n:r:k:")) != -1) {
		if (opt == 'n')
			n = atoi(optarg);
		else if (opt == 'r')
			rounds = atoi(optarg);
		else if (opt == 'k')
			clock = optarg;
		else
			return 2;
	}
	if (argc - optind != 2 || n < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: sandbox-bench [-n spawns] [-r rounds] [-k clock] CHILD DIR\n");
		return 2;
	}
	child = argv[optind];
	dir = argv[optind + 1];
	setvbuf(stdout, NULL, _IOLBF, 0);

	ruleset = make_ruleset(dir);
	exe = open(child, O_PATH | O_CLOEXEC);
	filter_fd = memfd_create("seccomp", MFD_CLOEXEC);
	if (ruleset < 0 || exe < 0 || filter_fd < 0 ||
	    write(filter_fd, filter, sizeof(filter)) != sizeof(filter))
		return perror("setup"), 1;

	/* Each way once, to see that it works here. */
	for (w = 0; w < NWAYS; w++) {
		pid_t pid = ways[w].spawn();

		usable[w] = pid > 0 && !reap(pid);
		if (!usable[w])
			printf("# %s: does not work here, left out\n", ways[w].name);
	}
	/*
	 * Each round starts with the next way; between ways the machine
	 * idles a second, outside the timing, so that work one way defers
	 * (network namespaces are torn down by a kworker, in batches) is
	 * not counted against the next.
	 */
	for (int r = 0; r < rounds; r++)
		for (unsigned int k = 0; k < NWAYS; k++) {
			long long start;

			w = (r + k) % NWAYS;
			if (!usable[w])
				continue;
			sleep(1);
			start = now_ns();
			for (int i = 0; i < n; i++)
				if (reap(ways[w].spawn()))
					return fprintf(stderr, "%s failed\n", ways[w].name), 1;
			cost[w][r] = (now_ns() - start) / n;
		}

	printf("# sandbox-bench: %d spawns x %d rounds a way, clock %s (%s)\n", n, rounds,
	       clock, strcmp(clock, "icount") ? "ns" : "instructions");
	printf("way,per_spawn,min,max,vs_fork\n");
	for (w = 0; w < NWAYS; w++) {
		if (!usable[w])
			continue;
		qsort(cost[w], rounds, sizeof(cost[w][0]), cmp_ll);
		median[w] = cost[w][rounds / 2];
	}
	for (w = 0; w < NWAYS; w++)
		if (usable[w])
			printf("%s,%lld,%lld,%lld,%.3f\n", ways[w].name, median[w], cost[w][0],
			       cost[w][rounds - 1],
			       usable[0] ? (double)median[w] / median[0] : 0.0);
	return 0;
}

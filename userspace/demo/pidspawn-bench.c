// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: start /bin/true many times with fork()+execve(), with glibc's
 * posix_spawn() (clone(CLONE_VM|CLONE_VFORK) underneath) and with
 * pidfd_config(), side by side in one process, and print each method's
 * time relative to fork()+execve(). The methods take turns in short
 * rounds, so that drift of the machine affects them alike. The parent
 * first maps and touches some memory, since copying it is what fork()
 * pays for and a pristine process does not.
 *
 *   pidspawn-bench [spawns per method] [MiB of parent memory...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pidspawn.h>

#define ROUNDS 10

static char *const child_argv[] = { "true", NULL };
static char *const child_envp[] = { NULL };
static const char child_path[] = "/bin/true";

static int fork_exec(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		execve(child_path, child_argv, child_envp);
		_exit(127);
	}
	return waitpid(pid, &status, 0) == pid && status == 0 ? 0 : -1;
}

static int glibc_posix_spawn(void)
{
	int status;
	pid_t pid;

	if (posix_spawn(&pid, child_path, NULL, NULL, child_argv, child_envp))
		return -1;
	return waitpid(pid, &status, 0) == pid && status == 0 ? 0 : -1;
}

static int pidfd_config_spawn(void)
{
	int pidfd, status, ret = -1;

	pidfd = pidspawn_create(0);
	if (pidfd < 0)
		return -1;
	if (!pidspawn_set_exec_path(pidfd, AT_FDCWD, child_path) &&
	    !pidspawn_set_argv(pidfd, child_argv) &&
	    pidspawn_start(pidfd) > 0 &&
	    !pidspawn_wait(pidfd, &status) && status == 0)
		ret = 0;
	close(pidfd);
	return ret;
}

static const struct method {
	const char *name;
	int (*spawn)(void);
} methods[] = {
	{ "fork+execve", fork_exec },
	{ "posix_spawn (glibc vfork)", glibc_posix_spawn },
	{ "pidfd_config (pristine)", pidfd_config_spawn },
};

#define NR_METHODS (sizeof(methods) / sizeof(methods[0]))

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int measure(long mib, int spawns)
{
	double total[NR_METHODS] = { 0 };
	size_t size = (size_t)mib << 20;
	char *mem = NULL;
	unsigned int m;
	int round, i;

	if (size) {
		mem = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			return -1;
		memset(mem, 1, size);
	}

	for (round = 0; round < ROUNDS; round++) {
		for (m = 0; m < NR_METHODS; m++) {
			double start = now();

			for (i = 0; i < spawns / ROUNDS; i++) {
				if (methods[m].spawn()) {
					fprintf(stderr, "%s failed: %s\n", methods[m].name,
						strerror(errno));
					return -1;
				}
			}
			total[m] += now() - start;
		}
	}

	printf("\nparent with %ld MiB touched, %d spawns of %s per method:\n",
	       mib, spawns / ROUNDS * ROUNDS, child_path);
	for (m = 0; m < NR_METHODS; m++)
		printf("  %-28s %6.3f of fork+execve's time\n", methods[m].name,
		       total[m] / total[0]);
	if (mem)
		munmap(mem, size);
	return 0;
}

int main(int argc, char **argv)
{
	int spawns = argc > 1 ? atoi(argv[1]) : 200;
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (spawns < ROUNDS)
		spawns = ROUNDS;
	if (argc <= 2)
		return measure(0, spawns) || measure(256, spawns) ? 1 : 0;
	for (i = 2; i < argc; i++)
		if (measure(atol(argv[i]), spawns))
			return 1;
	return 0;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A kernel built without CONFIG_PIDFD_CONFIG (make check-config-off): the
 * flag and the system call are refused as a kernel without the series
 * refuses them, the rest of pidfd_open() is intact, and libpidspawn falls
 * back without a word from the caller.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "pidspawn.h"
#include "tap.h"

extern char **environ;

/* pidspawn_create() is pidfd_open(0, PIDFD_EMPTY | flags) itself. */
static int t_empty_is_unknown_flag(void)
{
	errno = 0;
	CHECK_EQ(pidspawn_create(0), -1);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(pidspawn_create(O_NONBLOCK), -1);
	CHECK_EQ(errno, EINVAL);
	return PASS;
}

static int t_config_is_enosys(void)
{
	/* pidspawn_config() is the system call itself. */
	errno = 0;
	CHECK_EQ(pidspawn_config(-1, 0, NULL, NULL, 0), -1);
	CHECK_EQ(errno, ENOSYS);
	return PASS;
}

/* pidfd_open() of a process, poll and waitid(P_PIDFD): as without the series. */
static int t_pidfd_open_intact(void)
{
	struct pollfd p = { .events = POLLIN };
	siginfo_t si = { 0 };
	pid_t pid;

	pid = fork();
	CHECK(pid >= 0);
	if (!pid)
		_exit(7);
	p.fd = syscall(__NR_pidfd_open, pid, 0);
	CHECK(p.fd >= 0);
	CHECK_EQ(poll(&p, 1, 10000), 1);
	CHECK_EQ(waitid(P_PIDFD, p.fd, &si, WEXITED), 0);
	close(p.fd);
	CHECK_EQ(si.si_pid, pid);
	CHECK_EQ(si.si_status, 7);
	return PASS;
}

static int t_backend_is_fallback(void)
{
	CHECK_EQ(pidspawn_backend(), PIDSPAWN_FALLBACK);
	return PASS;
}

/* posix_spawn() and pidfd_spawnp() through the fallback, a file action each. */
static int t_spawn_falls_back(void)
{
	char *argv[] = { "sh", "-c", "read x; exit $x", NULL };
	posix_spawn_file_actions_t fa;
	int p[2], status, pidfd;
	siginfo_t si = { 0 };
	pid_t pid;

	CHECK_EQ(pipe2(p, O_CLOEXEC), 0);
	CHECK_EQ(posix_spawn_file_actions_init(&fa), 0);
	CHECK_EQ(posix_spawn_file_actions_adddup2(&fa, p[0], 0), 0);
	CHECK_EQ(posix_spawnp(&pid, "sh", &fa, NULL, argv, environ), 0);
	CHECK_EQ(write(p[1], "3\n", 2), 2);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);

	CHECK_EQ(pidfd_spawnp(&pidfd, "sh", &fa, NULL, argv, environ), 0);
	CHECK_EQ(write(p[1], "4\n", 2), 2);
	CHECK_EQ(waitid(P_PIDFD, pidfd, &si, WEXITED), 0);
	close(pidfd);
	CHECK_EQ(si.si_status, 4);
	posix_spawn_file_actions_destroy(&fa);
	close(p[0]);
	close(p[1]);

	/* A missing program: posix_spawn's own error. */
	CHECK_EQ(posix_spawn(&pid, tpath("missing"), NULL, NULL, argv, environ), ENOENT);
	return PASS;
}

static const struct test tests[] = {
	T(t_empty_is_unknown_flag), T(t_config_is_enosys), T(t_pidfd_open_intact),
	T(t_backend_is_fallback), T(t_spawn_falls_back),
};

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (tap_mkdtemp("kconfig-off-test"))
		return 1;
	printf("# a kernel without CONFIG_PIDFD_CONFIG, libpidspawn backend %s\n",
	       pidspawn_backend() == PIDSPAWN_NATIVE ? "native" : "fallback");
	return tap_run(tests, sizeof(tests) / sizeof(*tests),
		       argc > 1 ? argv[1] : NULL, NULL, 1);
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A kernel with the core series alone (make check KSERIES=1): empty
 * processes, the program, the files and the signals are there, the
 * commands of the later series are unknown (EOPNOTSUPP), and libpidspawn
 * spawns natively what the core can express and takes the fallback, with
 * the same result, for what it cannot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
/* <linux/pidfd.h> wants <linux/fcntl.h>, which clashes with <fcntl.h>. */
#define _LINUX_FCNTL_H
#include <linux/pidfd.h>
#include "pidspawn.h"
#include "tap.h"

extern char **environ;

static int t_backend_is_native(void)
{
	CHECK_EQ(pidspawn_backend(), PIDSPAWN_NATIVE);
	return PASS;
}

/* An empty pidfd's answer to @cmd with no arguments: 0, an errno, or -1. */
static int answer(unsigned int cmd)
{
	int fd = pidspawn_create(0), err;

	if (fd < 0)
		return -1;	/* no empty process at all */
	err = pidspawn_config(fd, cmd, NULL, NULL, 0) < 0 ? errno : 0;
	close(fd);
	return err;
}

/* The core's commands are known: they take or refuse these arguments. */
static int t_core_commands_known(void)
{
	static const unsigned int core[] = {
		PIDFD_CONFIG_SET_EXEC_FD, PIDFD_CONFIG_SET_EXEC_PATH,
		PIDFD_CONFIG_SET_EXEC_SEARCH, PIDFD_CONFIG_SET_ARGV,
		PIDFD_CONFIG_SET_ENVP, PIDFD_CONFIG_SET_CWD,
		PIDFD_CONFIG_INHERIT_FDS, PIDFD_CONFIG_ACT_DUP2,
		PIDFD_CONFIG_ACT_CLOSE, PIDFD_CONFIG_ACT_OPEN,
		PIDFD_CONFIG_ACT_CLOSE_RANGE, PIDFD_CONFIG_ACT_GIVE_FD,
		PIDFD_CONFIG_ACT_CHDIR, PIDFD_CONFIG_ACT_FCHDIR,
		PIDFD_CONFIG_SET_SIGMASK, PIDFD_CONFIG_SET_SIGDEFAULT,
		PIDFD_CONFIG_START,
	};

	for (unsigned int i = 0; i < sizeof(core) / sizeof(*core); i++)
		if (answer(core[i]) == EOPNOTSUPP || answer(core[i]) < 0)
			return fail_at(__LINE__, "command %#x: %d", core[i], answer(core[i]));
	return PASS;
}

/* Those of the later series are not. */
static int t_later_commands_unknown(void)
{
	static const unsigned int later[] = {
		PIDFD_CONFIG_ACT_TCSETPGRP, PIDFD_CONFIG_SETSID,
		PIDFD_CONFIG_SETPGID, PIDFD_CONFIG_RESETIDS,
		PIDFD_CONFIG_SET_SCHEDULER, PIDFD_CONFIG_SET_CGROUP,
		PIDFD_CONFIG_MAKE_TEMPLATE, PIDFD_CONFIG_NEW_EMPTY,
		PIDFD_CONFIG_SET_RLIMIT, PIDFD_CONFIG_SET_UMASK,
		PIDFD_CONFIG_SET_RESUID, PIDFD_CONFIG_SET_NO_NEW_PRIVS,
		PIDFD_CONFIG_SET_SECCOMP_FILTER, PIDFD_CONFIG_SET_NAMESPACES,
		PIDFD_CONFIG_SET_ROOT, PIDFD_CONFIG_SET_AUTOREAP,
		PIDFD_CONFIG_SET_AUTOKILL,
	};

	for (unsigned int i = 0; i < sizeof(later) / sizeof(*later); i++)
		if (answer(later[i]) != EOPNOTSUPP)
			return fail_at(__LINE__, "command %#x: %d, not EOPNOTSUPP",
				       later[i], answer(later[i]));
	return PASS;
}

/* How PIDSPAWN_TRACE says the last spawn went: "native", or why not. */
static const char *last_way(char *line, size_t size)
{
	FILE *f = fopen(tpath("trace"), "re");
	char *p, *q;

	line[0] = '\0';
	while (f && fgets(line, size, f))
		;
	if (f)
		fclose(f);
	/* "NAME FILE: HOW: ERR" */
	p = strstr(line, ": ");
	q = p ? strrchr(line, ':') : NULL;
	if (!p || q <= p)
		return "";
	*q = '\0';
	return p + 2;
}

/* The child's exit status, or -1. */
static int reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* posix_spawnp() with file actions, a mask and defaults: native. */
static int t_plain_spawn_native(void)
{
	char *argv[] = { "sh", "-c", "read x; exit $x", NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	char line[600];
	sigset_t set;
	int p[2];
	pid_t pid;

	CHECK_EQ(pipe2(p, O_CLOEXEC), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[0], 0);
	posix_spawn_file_actions_addopen(&fa, 5, "/dev/null", O_RDONLY, 0);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	posix_spawnattr_setsigmask(&at, &set);
	posix_spawnattr_setsigdefault(&at, &set);
	setenv("PIDSPAWN_TRACE", tpath("trace"), 1);
	CHECK_EQ(posix_spawnp(&pid, "sh", &fa, &at, argv, environ), 0);
	unsetenv("PIDSPAWN_TRACE");
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	CHECK_EQ(write(p[1], "5\n", 2), 2);
	CHECK_EQ(reap(pid), 5);
	close(p[0]);
	close(p[1]);
	CHECK_STR(last_way(line, sizeof(line)), "native");
	return PASS;
}

/* POSIX_SPAWN_SETSID: the kernel lacks SETSID; the fallback makes it so. */
static int t_setsid_falls_back(void)
{
	char *argv[] = { "sh", "-c", "read x", NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	char line[600];
	int p[2];
	pid_t pid;

	CHECK_EQ(pipe2(p, O_CLOEXEC), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[0], 0);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
	setenv("PIDSPAWN_TRACE", tpath("trace"), 1);
	CHECK_EQ(posix_spawn(&pid, "/bin/sh", &fa, &at, argv, environ), 0);
	unsetenv("PIDSPAWN_TRACE");
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	CHECK_EQ(getsid(pid), pid);
	CHECK_EQ(write(p[1], "\n", 1), 1);
	CHECK_EQ(reap(pid), 0);
	close(p[0]);
	close(p[1]);
	CHECK_STR(last_way(line, sizeof(line)), "configuration failed");
	return PASS;
}

/*
 * POSIX_SPAWN_SETSCHEDULER: SET_SCHEDULER is unknown, which is not an
 * error of the spawn (as a refusal of the policy would be): fallback.
 */
static int t_scheduler_falls_back(void)
{
	char *argv[] = { "true", NULL };
	struct sched_param sp = { 0 };
	posix_spawnattr_t at;
	char line[600];
	pid_t pid;

	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSCHEDULER);
	posix_spawnattr_setschedpolicy(&at, SCHED_BATCH);
	posix_spawnattr_setschedparam(&at, &sp);
	setenv("PIDSPAWN_TRACE", tpath("trace"), 1);
	CHECK_EQ(posix_spawnp(&pid, "true", NULL, &at, argv, environ), 0);
	unsetenv("PIDSPAWN_TRACE");
	posix_spawnattr_destroy(&at);
	CHECK_EQ(reap(pid), 0);
	CHECK_STR(last_way(line, sizeof(line)), "configuration failed");
	return PASS;
}

/* A template of a path spawns by path: the kernel has no templates. */
static int t_template_by_path(void)
{
	struct pidspawn_template *t = pidspawn_template_create("/bin/true", 0);
	char *argv[] = { "true", NULL };
	pid_t pid;

	CHECK(t != NULL);
	CHECK_EQ(pidspawn_template_fd(t), -1);
	CHECK_EQ(pidspawn_template_spawn(t, &pid, NULL, NULL, NULL, argv, environ), 0);
	CHECK_EQ(reap(pid), 0);
	pidspawn_template_free(t);
	return PASS;
}

static const struct test tests[] = {
	T(t_backend_is_native), T(t_core_commands_known),
	T(t_later_commands_unknown), T(t_plain_spawn_native),
	T(t_setsid_falls_back), T(t_scheduler_falls_back),
	T(t_template_by_path),
};

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (tap_mkdtemp("kseries-core-test"))
		return 1;
	printf("# a kernel with the core series alone, libpidspawn backend %s\n",
	       pidspawn_backend() == PIDSPAWN_NATIVE ? "native" : "fallback");
	return tap_run(tests, sizeof(tests) / sizeof(*tests),
		       argc > 1 ? argv[1] : NULL, NULL, 1);
}

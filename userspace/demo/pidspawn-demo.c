// SPDX-License-Identifier: GPL-2.0
/*
 * make run: build a process step by step with pidfd_config(), watch it,
 * then show what a failing start reports.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/openat2.h>

/* <linux/pidfd.h> pulls in <linux/fcntl.h>, whose structs glibc defines. */
#define HAVE_ARCH_STRUCT_FLOCK
#define f_owner_ex kernel_f_owner_ex
#include <linux/pidfd.h>
#undef f_owner_ex

#ifndef __NR_pidfd_config
#define __NR_pidfd_config 463
#endif

static int pidfd_config(int pidfd, unsigned int cmd, const char *key,
			const void *value, int aux)
{
	return syscall(__NR_pidfd_config, pidfd, cmd, key, value, aux);
}

/* Run one command and say what it did. */
static int step(int pidfd, const char *what, unsigned int cmd, const char *key,
		const void *value, int aux)
{
	int ret = pidfd_config(pidfd, cmd, key, value, aux);

	printf("  %-44s -> %d%s%s\n", what, ret, ret < 0 ? " " : "",
	       ret < 0 ? strerror(errno) : "");
	return ret;
}

static void show_messages(int pidfd)
{
	char msg[512];
	ssize_t n;

	while ((n = read(pidfd, msg, sizeof(msg) - 1)) > 0)
		printf("  read(pidfd): \"%.*s\"\n", (int)n, msg);
}

static void show_fdinfo_pid(int pidfd)
{
	char path[64], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Pid:", 4))
			printf("  fdinfo: %s", line);
	if (f)
		fclose(f);
}

static int start_demo(void)
{
	char *argv[] = { "sh", "-c",
		"echo \"  child: pid $$, parent $PPID, cwd $(pwd), GREETING=$GREETING\"; "
		"echo \"  child: the shell's open fds:\" /proc/$$/fd/*", NULL };
	char *envp[] = { "GREETING=hello from a pristine process", "PATH=/usr/bin:/bin", NULL };
	struct pollfd pfd;
	siginfo_t info;
	char out[512];
	int pidfd, secret, pipefd[2];
	ssize_t n;
	pid_t pid;

	/* A secret the child must not get by accident: it is not cloexec. */
	secret = open("/etc/hostname", O_RDONLY);
	if (pipe2(pipefd, O_CLOEXEC))
		return 1;
	printf("parent %d holds a secret on fd %d, a pipe on %d/%d\n",
	       getpid(), secret, pipefd[0], pipefd[1]);

	pidfd = syscall(SYS_pidfd_open, 0, PIDFD_EMPTY);
	printf("\npidfd_open(0, PIDFD_EMPTY) = %d%s%s\n", pidfd,
	       pidfd < 0 ? " " : "", pidfd < 0 ? strerror(errno) : "");
	if (pidfd < 0)
		return 1;
	show_fdinfo_pid(pidfd);
	pfd = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	printf("  poll before start: %d (nothing to report)\n", poll(&pfd, 1, 0));

	printf("\nconfiguring:\n");
	step(pidfd, "SET_EXEC_PATH /bin/sh", PIDFD_CONFIG_SET_EXEC_PATH, "/bin/sh", NULL, AT_FDCWD);
	step(pidfd, "SET_ARGV sh -c ...", PIDFD_CONFIG_SET_ARGV, NULL, argv, 0);
	step(pidfd, "SET_ENVP GREETING=... PATH=...", PIDFD_CONFIG_SET_ENVP, NULL, envp, 0);
	step(pidfd, "SET_CWD /tmp", PIDFD_CONFIG_SET_CWD, "/tmp", NULL, AT_FDCWD);
	step(pidfd, "ACT_GIVE_FD pipe as stdout",
	     PIDFD_CONFIG_ACT_GIVE_FD, NULL, &(struct pidfd_fd_pair){ pipefd[1], 1 }, 0);
	pid = step(pidfd, "START", PIDFD_CONFIG_START, NULL, NULL, 0);
	close(pipefd[1]);
	if (pid < 0) {
		show_messages(pidfd);
		return 1;
	}
	show_fdinfo_pid(pidfd);

	while ((n = read(pipefd[0], out, sizeof(out))) > 0)
		fwrite(out, 1, n, stdout);
	if (!waitid(P_PIDFD, pidfd, &info, WEXITED))
		printf("  waitid(P_PIDFD): pid %d exited with status %d\n",
		       info.si_pid, info.si_status);
	printf("  (the child saw fds 0-2 and its pipe only: fd %d stayed home)\n",
	       secret);
	step(pidfd, "SET_ARGV after START", PIDFD_CONFIG_SET_ARGV, NULL, argv, 0);
	show_messages(pidfd);
	close(pidfd);
	close(pipefd[0]);
	close(secret);
	return 0;
}

static int failing_demo(void)
{
	struct open_how how = { .flags = O_WRONLY | O_APPEND };
	char *argv[] = { "true", NULL };
	siginfo_t info;
	int pidfd, ret;

	printf("\na start that fails:\n");
	pidfd = syscall(SYS_pidfd_open, 0, PIDFD_EMPTY);
	if (pidfd < 0)
		return 1;
	step(pidfd, "SET_EXEC_PATH /bin/true", PIDFD_CONFIG_SET_EXEC_PATH, "/bin/true", NULL, AT_FDCWD);
	step(pidfd, "SET_ARGV true", PIDFD_CONFIG_SET_ARGV, NULL, argv, 0);
	step(pidfd, "ACT_OPEN /var/log/no/such.log as fd 1",
	     PIDFD_CONFIG_ACT_OPEN, "/var/log/no/such.log", &how, 1);
	step(pidfd, "START", PIDFD_CONFIG_START, NULL, NULL, 0);
	show_messages(pidfd);
	ret = waitid(P_ALL, 0, &info, WEXITED | WNOHANG | __WALL);
	printf("  waitid(P_ALL, __WALL) = %d%s%s: no child, no zombie left\n", ret,
	       ret < 0 ? " " : "", ret < 0 ? strerror(errno) : "");
	step(pidfd, "SET_ARGV after a failed START", PIDFD_CONFIG_SET_ARGV, NULL, argv, 0);
	show_messages(pidfd);
	close(pidfd);

	printf("\na configuration error:\n");
	pidfd = syscall(SYS_pidfd_open, 0, PIDFD_EMPTY);
	if (pidfd < 0)
		return 1;
	step(pidfd, "SET_EXEC_PATH /etc/passwd",
	     PIDFD_CONFIG_SET_EXEC_PATH, "/etc/passwd", NULL, AT_FDCWD);
	show_messages(pidfd);
	close(pidfd);
	return 0;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (start_demo())
		return 1;
	return failing_demo();
}

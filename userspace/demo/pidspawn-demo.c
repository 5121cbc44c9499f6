// SPDX-License-Identifier: GPL-2.0
/*
 * make run: build a process step by step with pidfd_config(), through
 * libpidspawn's builder (one call a command), watch it, then show what a
 * failing start reports.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pidspawn.h>

/* Say what one builder call, the command it names, did. */
static int report(const char *what, int ret)
{
	printf("  %-44s -> %d%s%s\n", what, ret, ret < 0 ? " " : "",
	       ret < 0 ? strerror(errno) : "");
	return ret;
}

static void show_messages(int pidfd)
{
	char msg[512];

	while (pidspawn_error(pidfd, msg, sizeof(msg)) > 0)
		printf("  read(pidfd): \"%s\"\n", msg);
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
		"open=; for fd in 0 1 2 3 4 5 6 7 8 9; do "
		"[ -e /proc/$$/fd/$fd ] && open=\"$open $fd\"; done; "
		"echo \"  child: open fds:$open\"", NULL };
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

	pidfd = pidspawn_create(0);
	printf("\npidfd_open(0, PIDFD_EMPTY) = %d%s%s\n", pidfd,
	       pidfd < 0 ? " " : "", pidfd < 0 ? strerror(errno) : "");
	if (pidfd < 0)
		return 1;
	show_fdinfo_pid(pidfd);
	pfd = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	printf("  poll before start: %d (nothing to report)\n", poll(&pfd, 1, 0));

	printf("\nconfiguring:\n");
	report("SET_EXEC_PATH /bin/sh", pidspawn_set_exec_path(pidfd, AT_FDCWD, "/bin/sh"));
	report("SET_ARGV sh -c ...", pidspawn_set_argv(pidfd, argv));
	report("SET_ENVP GREETING=... PATH=...", pidspawn_set_envp(pidfd, envp));
	report("SET_CWD /tmp", pidspawn_set_cwd(pidfd, AT_FDCWD, "/tmp"));
	report("ACT_GIVE_FD pipe as stdout", pidspawn_act_give_fd(pidfd, pipefd[1], 1));
	pid = report("START", pidspawn_start(pidfd));
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
	report("SET_ARGV after START", pidspawn_set_argv(pidfd, argv));
	show_messages(pidfd);
	close(pidfd);
	close(pipefd[0]);
	close(secret);
	return 0;
}

static int failing_demo(void)
{
	char *argv[] = { "true", NULL };
	siginfo_t info;
	int pidfd, ret;

	printf("\na start that fails:\n");
	pidfd = pidspawn_create(0);
	if (pidfd < 0)
		return 1;
	report("SET_EXEC_PATH /bin/true", pidspawn_set_exec_path(pidfd, AT_FDCWD, "/bin/true"));
	report("SET_ARGV true", pidspawn_set_argv(pidfd, argv));
	report("ACT_OPEN /var/log/no/such.log as fd 1",
	       pidspawn_act_open(pidfd, 1, "/var/log/no/such.log", O_WRONLY | O_APPEND, 0));
	report("START", pidspawn_start(pidfd));
	show_messages(pidfd);
	ret = waitid(P_ALL, 0, &info, WEXITED | WNOHANG | __WALL);
	printf("  waitid(P_ALL, __WALL) = %d%s%s: no child, no zombie left\n", ret,
	       ret < 0 ? " " : "", ret < 0 ? strerror(errno) : "");
	report("SET_ARGV after a failed START", pidspawn_set_argv(pidfd, argv));
	show_messages(pidfd);
	close(pidfd);

	printf("\na configuration error:\n");
	pidfd = pidspawn_create(0);
	if (pidfd < 0)
		return 1;
	report("SET_EXEC_PATH /etc/passwd", pidspawn_set_exec_path(pidfd, AT_FDCWD, "/etc/passwd"));
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

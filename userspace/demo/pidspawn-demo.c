// SPDX-License-Identifier: GPL-2.0
/* make run: what the guest kernel offers. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/pidfd.h>

static int sys_pidfd_open(pid_t pid, unsigned int flags)
{
	return syscall(SYS_pidfd_open, pid, flags);
}

int main(void)
{
	struct pollfd pfd;
	siginfo_t info;
	pid_t pid;
	int fd;

	pid = fork();
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	fd = sys_pidfd_open(pid, 0);
	printf("pidfd_open(%d, 0) = %d\n", pid, fd);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	printf("poll: %d, revents %#x\n", poll(&pfd, 1, 5000), pfd.revents);
	if (waitid(P_PIDFD, fd, &info, WEXITED) == 0)
		printf("waitid(P_PIDFD): pid %d exited with %d\n", info.si_pid, info.si_status);
	close(fd);

	fd = sys_pidfd_open(0, PIDFD_EMPTY);
	printf("pidfd_open(0, PIDFD_EMPTY) = %d%s%s\n", fd,
	       fd < 0 ? ": " : "", fd < 0 ? strerror(errno) : "");
	return 0;
}

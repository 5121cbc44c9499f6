// SPDX-License-Identifier: GPL-2.0
/*
 * make run, second part: a tool started in a sandbox that the kernel
 * applies to the child before its first instruction, described with
 * libpidspawn's builder: write access to one directory only (Landlock),
 * no_new_privs, a seccomp filter that denies ptrace() and every socket but
 * AF_UNIX, a network namespace of its own with no interface but a
 * loopback that is down, and tight resource limits.  The tool (this program, run again)
 * tries each forbidden thing and says what happened; its exit status, the
 * number of restrictions that did not hold, comes back through the pidfd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pidspawn.h>

#define TOOL_ARG	"--sandboxed-tool"
#define NOFILE		16
#define FSIZE		4096

static int failed;

/* One attempt of the tool: @ok is whether the outcome is the expected one. */
static void check(const char *what, bool ok, int err)
{
	printf("  tool: %-44s %s (%s)\n", what, ok ? "as expected" : "NOT CONFINED",
	       err ? strerrorname_np(err) : "ok");
	failed += !ok;
}

/*
 * The tool's network namespace: not the caller's (@caller_netns, the inode
 * of its /proc/self/ns/net), with no interface up. A new namespace has
 * its loopback, and the fallback devices of built-in tunnel drivers, down.
 */
static bool own_network_down(const char *caller_netns, int *err)
{
	struct ifreq ifr = {};
	char line[256], name[IFNAMSIZ];
	bool own, up = false;
	struct stat st;
	int fd;
	FILE *f;

	*err = 0;
	if (stat("/proc/self/ns/net", &st))
		return *err = errno, false;
	own = st.st_ino != strtoull(caller_netns, NULL, 10);
	/* A netlink socket, as if_nameindex() opens, is denied: read /proc. */
	f = fopen("/proc/self/net/dev", "re");
	/* Interface ioctls work on any socket, AF_UNIX too. */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (!f || fd < 0) {
		*err = errno;
		if (f)
			fclose(f);
		return false;
	}
	while (fgets(line, sizeof(line), f))
		if (strchr(line, ':') && sscanf(line, " %15[^:]:", name) == 1) {
			snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
			if (ioctl(fd, SIOCGIFFLAGS, &ifr))
				*err = errno;
			up |= ifr.ifr_flags & IFF_UP;
		}
	fclose(f);
	close(fd);
	return own && !up && !*err;
}

static int tool(const char *dir, const char *caller_netns)
{
	char path[4096], block[2 * FSIZE] = {};
	int fd, i, n, err;

	/* Writes beneath its directory work; elsewhere Landlock refuses them. */
	snprintf(path, sizeof(path), "%s/work/result", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	err = fd < 0 ? errno : 0;
	check("create work/result", fd >= 0, err);
	snprintf(path, sizeof(path), "%s/escaped", dir);
	n = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	check("create a file outside work/", n < 0 && errno == EACCES, n < 0 ? errno : 0);

	/* RLIMIT_FSIZE: 4 KiB of 8 are written, then nothing (SIGXFSZ ignored). */
	signal(SIGXFSZ, SIG_IGN);
	n = fd < 0 ? -1 : write(fd, block, sizeof(block));
	i = fd < 0 ? -1 : write(fd, block, 1);
	check("write 8 KiB under RLIMIT_FSIZE 4 KiB", n == FSIZE && i < 0 && errno == EFBIG,
	      i < 0 ? errno : 0);
	if (fd >= 0)
		close(fd);

	/* RLIMIT_NOFILE: the 17th descriptor cannot be had. */
	for (i = 0, err = 0; i < 2 * NOFILE && !err; i++)
		if (open("/dev/null", O_RDONLY) < 0)
			err = errno;
	check("open 32 files under RLIMIT_NOFILE 16", err == EMFILE, err);
	for (i = 3; i < 2 * NOFILE; i++)
		close(i);

	/* The seccomp filter: ptrace() is denied, and the network. */
	n = ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	check("ptrace(PTRACE_TRACEME)", n < 0 && errno == EPERM, n < 0 ? errno : 0);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	check("socket(AF_INET)", fd < 0 && errno == EAFNOSUPPORT, fd < 0 ? errno : 0);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	check("socket(AF_UNIX) still works", fd >= 0, fd < 0 ? errno : 0);
	if (fd >= 0)
		close(fd);
	n = own_network_down(caller_netns, &err);
	check("a network namespace of its own, nothing up", n, err);

	/* no_new_privs: a setuid program would not gain privileges. */
	n = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	check("prctl(PR_GET_NO_NEW_PRIVS) is 1", n == 1, n < 0 ? errno : 0);
	return failed;
}

static int report(const char *what, int ret)
{
	printf("  %-44s -> %d%s%s\n", what, ret, ret < 0 ? " " : "",
	       ret < 0 ? strerror(errno) : "");
	return ret;
}

int main(int argc, char **argv)
{
	static const long deny[] = { SYS_ptrace };
	struct rlimit nofile = { NOFILE, NOFILE }, fsize = { FSIZE, FSIZE };
	char dir[] = "/tmp/pidspawn-sandbox-XXXXXX", work[64], result[80], escaped[64];
	char netns[32];
	char *tool_argv[] = { "sandboxed-tool", TOOL_ARG, dir, netns, NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	int pidfd, exe, status;
	struct stat st;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], TOOL_ARG))
		return tool(argv[2], argv[3]);

	if (!mkdtemp(dir))
		return perror("mkdtemp"), 1;
	snprintf(work, sizeof(work), "%s/work", dir);
	snprintf(result, sizeof(result), "%s/result", work);
	snprintf(escaped, sizeof(escaped), "%s/escaped", dir);
	if (mkdir(work, 0755))
		return perror("mkdir"), 1;
	if (stat("/proc/self/ns/net", &st))
		return perror("/proc/self/ns/net"), 1;
	snprintf(netns, sizeof(netns), "%llu", (unsigned long long)st.st_ino);

	printf("A tool in a sandbox the kernel applies before its first instruction:\n");
	exe = open("/proc/self/exe", O_PATH | O_CLOEXEC);
	pidfd = report("pidspawn_create(0)", pidspawn_create(0));
	if (exe < 0 || pidfd < 0)
		return 1;
	if (report("pidspawn_set_exec_fd(this program)", pidspawn_set_exec_fd(pidfd, exe)) ||
	    report("pidspawn_set_argv(tool, dir)", pidspawn_set_argv(pidfd, tool_argv)) ||
	    report("pidspawn_set_envp()", pidspawn_set_envp(pidfd, envp)) ||
	    report("pidspawn_set_rlimit(RLIMIT_NOFILE, 16)",
		   pidspawn_set_rlimit(pidfd, RLIMIT_NOFILE, &nofile)) ||
	    report("pidspawn_set_rlimit(RLIMIT_FSIZE, 4096)",
		   pidspawn_set_rlimit(pidfd, RLIMIT_FSIZE, &fsize)) ||
	    report("pidspawn_sandbox(work/, {ptrace}, NO_NETWORK | NETNS)",
		   pidspawn_sandbox(pidfd, work, deny, 1,
				    PIDSPAWN_SANDBOX_NO_NETWORK | PIDSPAWN_SANDBOX_NETNS)))
		return 1;
	close(exe);
	pid = report("pidspawn_start()", pidspawn_start(pidfd));
	if (pid < 0)
		return 1;
	if (pidspawn_wait(pidfd, &status))
		return perror("pidspawn_wait"), 1;
	printf("  exit status through the pidfd: %d (restrictions that did not hold)\n",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	printf("  the caller, unconfined, finds work/result %s and %s\n",
	       stat(result, &st) ? "missing" : "written",
	       stat(escaped, &st) ? "no escaped file" : "AN ESCAPED FILE");
	close(pidfd);
	status = !WIFEXITED(status) || WEXITSTATUS(status) || !stat(escaped, &st);
	unlink(result);
	unlink(escaped);
	rmdir(work);
	rmdir(dir);
	return status;
}

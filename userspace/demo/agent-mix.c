// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * agent-mix: the seed RFC's agent-tool workload. WORKERS processes with
 * INFLIGHT threads each run CALLS short tool calls in all, taken in turn
 * from a fixed mix (rg, grep, sed, awk, cat, head, tail, find, stat, ls,
 * git status, git diff, a small python3 program, sh -c, bash -c), as an
 * agent runtime would: posix_spawnp() with stdout and stderr on a pipe
 * that the caller drains, then waitpid().
 *
 * It is a plain glibc program on purpose: make-agent-mix.sh runs it as
 * is, under the LD_PRELOAD shim, and under the shim with its template
 * cache, so the runtime is the same binary in all three. The children get
 * the environment without LD_PRELOAD and PIDSPAWN_*, so they cost the
 * same in all three runs.
 *
 *   agent-mix -w WORKERS -t INFLIGHT -n CALLS -d DIR
 * DIR holds src/ (generated sources), repo/ (a git repository) and
 * tool.py, as make-agent-mix.sh makes them. Prints "CALLS SECONDS FAILED".
 *   agent-mix -l
 * prints the mix, a call a line, its arguments separated by tabs: the
 * Python harness (python/bench/agent_mix.py) runs the same calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_INFLIGHT	64

static char *const *const tools[] = {
	(char *const[]){ "rg", "-n", "def handler_", "src", NULL },
	(char *const[]){ "grep", "-rn", "import os", "src", NULL },
	(char *const[]){ "sed", "-n", "10,40p", "src/m7.py", NULL },
	(char *const[]){ "awk", "/^def /{n++} END{print n}", "src/m3.py", NULL },
	(char *const[]){ "cat", "src/m1.py", NULL },
	(char *const[]){ "head", "-n", "40", "src/m2.py", NULL },
	(char *const[]){ "tail", "-n", "40", "src/m4.py", NULL },
	(char *const[]){ "find", "src", "-name", "*.py", "-size", "+1k", NULL },
	(char *const[]){ "stat", "src/m5.py", NULL },
	(char *const[]){ "ls", "-l", "src", NULL },
	(char *const[]){ "git", "-C", "repo", "status", "--short", NULL },
	(char *const[]){ "git", "-C", "repo", "diff", NULL },
	(char *const[]){ "python3", "tool.py", "src/m6.py", NULL },
	(char *const[]){ "sh", "-c", "grep -c def src/m8.py | head -n 1", NULL },
	(char *const[]){ "bash", "-c", "rg -l class src | head -n 5", NULL },
};

#define NR_TOOLS	(sizeof(tools) / sizeof(tools[0]))

/* Shared by the workers: the next call to make, and the failures. */
struct shared {
	unsigned long next;
	unsigned long failed;
};

static struct shared *shared;
static unsigned long calls;
static char **child_env;

/* One call: spawn with the output on a pipe, drain it, reap. */
static int tool_call(unsigned long i)
{
	char *const *argv = tools[i % NR_TOOLS];
	posix_spawn_file_actions_t fa;
	int pipefd[2], err, status;
	char buf[4096];
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, child_env);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (!err)
		while (read(pipefd[0], buf, sizeof(buf)) > 0)
			;
	close(pipefd[0]);
	if (err) {
		fprintf(stderr, "agent-mix: %s: %s\n", argv[0], strerror(err));
		return -1;
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "agent-mix: %s exited with status %#x\n", argv[0], status);
		return -1;
	}
	return 0;
}

static void *inflight(void *arg)
{
	unsigned long i;

	(void)arg;
	while ((i = __atomic_fetch_add(&shared->next, 1, __ATOMIC_RELAXED)) < calls)
		if (tool_call(i))
			__atomic_fetch_add(&shared->failed, 1, __ATOMIC_RELAXED);
	return NULL;
}

static int worker(int threads)
{
	pthread_t tid[MAX_INFLIGHT];
	int i, started;

	for (started = 0; started < threads; started++)
		if (pthread_create(&tid[started], NULL, inflight, NULL))
			break;
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	return started == threads ? 0 : 1;
}

/* The environment without the shim and its settings. */
static char **environment_for_children(void)
{
	char **env;
	size_t n = 0, j = 0;

	while (environ[n])
		n++;
	env = calloc(n + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (n = 0; environ[n]; n++)
		if (strncmp(environ[n], "LD_PRELOAD=", 11) &&
		    strncmp(environ[n], "PIDSPAWN_", 9))
			env[j++] = environ[n];
	return env;
}

static void list_tools(void)
{
	char *const *argv;
	size_t i;

	for (i = 0; i < NR_TOOLS; i++) {
		for (argv = tools[i]; *argv; argv++)
			printf("%s%c", *argv, argv[1] ? '\t' : '\n');
	}
}

int main(int argc, char **argv)
{
	int workers = 1, threads = 16, opt, i, status, bad = 0;
	const char *dir = ".";
	struct timespec t0, t1;
	pid_t pid;

	calls = 160;
	while ((opt = getopt(argc, argv, "w:t:n:d:l")) != -1) {
		switch (opt) {
		case 'l':
			list_tools();
			return 0;
		case 'w':
			workers = atoi(optarg);
			break;
		case 't':
			threads = atoi(optarg);
			break;
		case 'n':
			calls = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			dir = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (workers < 1 || threads < 1 || threads > MAX_INFLIGHT || !calls)
		goto usage;
	child_env = environment_for_children();
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!child_env || shared == MAP_FAILED || chdir(dir)) {
		perror("agent-mix");
		return 1;
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < workers; i++) {
		pid = fork();
		if (pid < 0) {
			perror("fork");
			bad = 1;
			break;
		}
		if (!pid)
			_exit(worker(threads));
	}
	while ((pid = wait(&status)) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad = 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);

	printf("%lu %.3f %lu\n", calls,
	       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9, shared->failed);
	return bad || shared->failed;
usage:
	fprintf(stderr, "usage: %s [-w workers] [-t inflight] [-n calls] [-d dir] | -l\n", argv[0]);
	return 2;
}

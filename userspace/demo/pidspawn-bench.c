// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: start a child many times by each method, side by side in one
 * process, and report spawn->exit->reap throughput and latency.
 *
 * Methods: fork+execve, vfork+execve, glibc's posix_spawn(), libpidspawn's
 * posix_spawn(), the pidfd_config() builder by path and by a pre-opened
 * fd, a spawn template (also with the kernel's ELF cache switched off,
 * where its debugfs switch is), and the floor: clone(CLONE_VM|CLONE_VFORK|
 * CLONE_FILES|CLONE_FS) + execveat() of a pre-opened fd, the least a
 * userspace spawn can do, and vfork+execve with a pidfd (clone() with
 * CLONE_PIDFD, reaped by waitid(P_PIDFD)), the least a spawn that returns
 * a pidfd can do. Children: a static program with no libc that
 * exits at once (copied to /var/tmp, on the root filesystem as /bin/true
 * is), and Debian's dynamic /bin/true. Parent shapes
 * (scenarios): small; 256 MiB and 1 GiB of touched anonymous memory; 10,
 * 10k and 100k open fds; 8 threads touching memory during the spawns; and
 * 8 fd actions per spawn.
 *
 * The methods take turns in rounds, so that drift of the machine (TCG, the
 * host's load) falls on all alike; latencies are per spawn, throughput is
 * spawns over the total time of the method.
 * Besides time, per spawn: the minor faults of the child (until it is
 * reaped) and of the parent, and, from a separate traced pass, the system
 * calls the parent and the child before its execve() make (the pristine
 * child makes none: its steps run in the kernel).
 * Before the spawns, the cost of one system call by itself (getppid()),
 * to weigh the methods' different numbers of calls; last, memory per
 * template: the slab growth over 1000 templates.
 *
 * Under QEMU's instruction counter (make bench BENCH_CLOCK=icount) the
 * guest's clock advances 1 ns per instruction: times are then instruction
 * counts, and -k names the clock in the CSV. With -k icount the bench
 * lays itself out without address randomization (its children keep it).
 *
 *   pidspawn-bench [-n spawns] [-r repetitions] [-s scenario,...]
 *                  [-m method,...] [-c child,...] [-k clock] [-o results.csv]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pidspawn.h>

#define ROUNDS		10
#define NR_ACTIONS	8
#define TRACED_SPAWNS	8	/* a method's spawns in the syscall-counting pass */
#define WARMUP_SPAWNS	5

struct child {
	const char *name;
	const char *path;
	int fd;			/* O_PATH, for builder-fd and floor */
	int tmpl;		/* template fd, per scenario */
};

static struct child children[] = {
	{ "static", NULL, -1, -1 },	/* path set in main(): beside us */
	{ "true", "/bin/true", -1, -1 },
};

/*
 * Where a spawn's time goes, seen from the parent: making the process
 * (pidfd_open or NEW_EMPTY), configuring it, starting it (until the call
 * that starts it returns: after the child's execve() for vfork, the floor,
 * posix_spawn and START, before it for fork) and reaping it. A method
 * marks the end of each phase it has; a phase it does not mark is 0.
 */
enum phase { PH_CREATE, PH_CONFIG, PH_START, NR_MARKS, PH_REAP = NR_MARKS, NR_PHASES };
static const char *const phase_names[NR_PHASES] = { "create", "configure", "start", "reap" };
static double marks[NR_MARKS];

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void mark(enum phase ph)
{
	marks[ph] = now_us();
}

static char *const child_argv[] = { "child", NULL };
static char *const child_envp[] = { NULL };
static int devnull;
static bool with_actions;	/* the 8-actions scenario */

typedef int (*glibc_spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			      const posix_spawnattr_t *, char *const[], char *const[]);
static glibc_spawn_fn glibc_posix_spawn;
static posix_spawn_file_actions_t actions;	/* libpidspawn's, for posix_spawn-lib */
static posix_spawn_file_actions_t *lib_actions;

/* The child's side of the 8 actions, for the methods that run user code there. */
static void child_actions(void)
{
	int i;

	for (i = 0; with_actions && i < NR_ACTIONS; i++)
		dup2(devnull, 3 + i);
}

static int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int reap_pidfd(int pidfd)
{
	siginfo_t info;
	int ret;

	ret = waitid(P_PIDFD, pidfd, &info, WEXITED);
	close(pidfd);
	return !ret && info.si_code == CLD_EXITED && info.si_status == 0 ? 0 : -1;
}

/* The child of fork, vfork and vfork-pidfd: its actions, then execve(). */
static __attribute__((noreturn)) void exec_child(struct child *c)
{
	child_actions();
	execve(c->path, child_argv, child_envp);
	_exit(127);
}

/* The child runs in this frame until execve(), as vfork() requires. */
static int fork_exec(struct child *c, bool use_vfork)
{
	pid_t pid = use_vfork ? vfork() : fork();

	if (pid < 0)
		return -1;
	if (!pid)
		exec_child(c);
	mark(PH_START);
	return reap(pid);
}

static int m_fork(struct child *c)
{
	return fork_exec(c, false);
}

static int m_vfork(struct child *c)
{
	return fork_exec(c, true);
}

static int m_glibc(struct child *c)
{
	posix_spawn_file_actions_t fa, *fap = NULL;
	pid_t pid;
	int i, err;

	/* glibc's own file actions: the library's have another layout. */
	typedef int (*init_fn)(posix_spawn_file_actions_t *);
	typedef int (*dup2_fn)(posix_spawn_file_actions_t *, int, int);
	static init_fn init, destroy;
	static dup2_fn adddup2;

	if (with_actions) {
		if (!init) {
			init = (init_fn)dlvsym(RTLD_DEFAULT, "posix_spawn_file_actions_init",
					       "GLIBC_2.2.5");
			destroy = (init_fn)dlvsym(RTLD_DEFAULT,
						  "posix_spawn_file_actions_destroy",
						  "GLIBC_2.2.5");
			adddup2 = (dup2_fn)dlvsym(RTLD_DEFAULT,
						  "posix_spawn_file_actions_adddup2",
						  "GLIBC_2.2.5");
			if (!init || !destroy || !adddup2)
				return -1;
		}
		init(&fa);
		for (i = 0; i < NR_ACTIONS; i++)
			adddup2(&fa, devnull, 3 + i);
		fap = &fa;
	}
	err = glibc_posix_spawn(&pid, c->path, fap, NULL, child_argv, child_envp);
	mark(PH_START);
	if (fap)
		destroy(fap);
	if (err) {
		errno = err;
		return -1;
	}
	return reap(pid);
}

static int m_lib(struct child *c)
{
	pid_t pid;
	int err;

	err = posix_spawn(&pid, c->path, lib_actions, NULL, child_argv, child_envp);
	mark(PH_START);
	if (err) {
		errno = err;
		return -1;
	}
	return reap(pid);
}

/* The per-spawn part of the builder methods: argv, actions, start, reap. */
static int builder_finish(int pidfd)
{
	int i;

	if (pidspawn_set_argv(pidfd, child_argv))
		goto fail;
	/* The caller's fds beyond 2 are not the child's: give them. */
	for (i = 0; with_actions && i < NR_ACTIONS; i++)
		if (pidspawn_act_give_fd(pidfd, devnull, 3 + i))
			goto fail;
	mark(PH_CONFIG);
	if (pidspawn_start(pidfd) <= 0)
		goto fail;
	mark(PH_START);
	return reap_pidfd(pidfd);
fail:
	close(pidfd);
	return -1;
}

/* The builder without a template: the executable by path or by fd. */
static int builder(struct child *c, bool by_fd)
{
	int pidfd = pidspawn_create(0);

	if (pidfd < 0)
		return -1;
	mark(PH_CREATE);
	if (by_fd ? pidspawn_set_exec_fd(pidfd, c->fd) :
		    pidspawn_set_exec_path(pidfd, AT_FDCWD, c->path)) {
		close(pidfd);
		return -1;
	}
	return builder_finish(pidfd);
}

static int m_builder_path(struct child *c)
{
	return builder(c, false);
}

static int m_builder_fd(struct child *c)
{
	return builder(c, true);
}

static int m_template(struct child *c)
{
	int pidfd = pidspawn_template_new(c->tmpl, 0);

	if (pidfd < 0)
		return -1;
	mark(PH_CREATE);
	return builder_finish(pidfd);
}

/* The clone() children's stack: the parent waits until they execute. */
static char vfork_stack[64 << 10] __attribute__((aligned(16)));

static int floor_child(void *arg)
{
	struct child *c = arg;

	syscall(SYS_execveat, c->fd, "", child_argv, child_envp, AT_EMPTY_PATH);
	_exit(127);
}

static int m_floor(struct child *c)
{
	pid_t pid;

	pid = clone(floor_child, vfork_stack + sizeof(vfork_stack),
		    CLONE_VM | CLONE_VFORK | CLONE_FILES | CLONE_FS | SIGCHLD, c);
	if (pid < 0)
		return -1;
	mark(PH_START);
	return reap(pid);
}

static int vfork_pidfd_child(void *arg)
{
	exec_child(arg);
}

/*
 * vfork+execve that returns a pidfd and is reaped through it, as glibc
 * 2.39's pidfd_spawn() spawns (there with clone3()): what any spawn that
 * gives its caller a pidfd pays beyond vfork+execve.
 */
static int m_vfork_pidfd(struct child *c)
{
	int pidfd = -1;

	if (clone(vfork_pidfd_child, vfork_stack + sizeof(vfork_stack),
		  CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, c, &pidfd) < 0)
		return -1;
	mark(PH_START);
	return reap_pidfd(pidfd);
}

static const struct method {
	const char *name;
	int (*spawn)(struct child *c);
	bool no_actions;	/* cannot do the 8-actions scenario */
	bool template;		/* needs the case's template */
	bool elf_cache_off;	/* with the kernel's ELF cache switched off */
} methods[] = {
	{ .name = "fork", .spawn = m_fork },
	{ .name = "vfork", .spawn = m_vfork },
	{ .name = "posix_spawn-glibc", .spawn = m_glibc },
	{ .name = "posix_spawn-lib", .spawn = m_lib },
	{ .name = "builder-path", .spawn = m_builder_path },
	{ .name = "builder-fd", .spawn = m_builder_fd },
	{ .name = "template", .spawn = m_template, .template = true },
	{ .name = "template-nocache", .spawn = m_template, .template = true, .elf_cache_off = true },
	/* It shares the fd table until execve(): actions would be the parent's. */
	{ .name = "floor", .spawn = m_floor, .no_actions = true },
	{ .name = "vfork-pidfd", .spawn = m_vfork_pidfd },
};

#define NR_METHODS	(sizeof(methods) / sizeof(methods[0]))
#define VFORK		1

/*
 * The kernel's switch of the templates' ELF cache (debugfs, in
 * docs/bench/spawn-profile.patch, a measurement aid outside the series),
 * for template-nocache: what the cache saves, side by side. Without it
 * that method is skipped.
 */
#define ELF_CACHE_SWITCH	"/sys/kernel/debug/elf_exec_cache"

static bool elf_cache_set(bool on)
{
	int fd = open(ELF_CACHE_SWITCH, O_WRONLY | O_CLOEXEC);
	bool done;

	if (fd < 0)
		return false;
	done = write(fd, on ? "Y" : "N", 1) == 1;
	close(fd);
	return done;
}

static const char *const scenarios[] = {
	"small", "256m", "1g", "10-fds", "10k-fds", "100k-fds", "threads", "8-actions",
};

#define NR_SCENARIOS	(sizeof(scenarios) / sizeof(scenarios[0]))

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The parent's state for a scenario, set up before and undone after it. */
struct shape {
	char *mem;
	size_t size;
	int *fds;
	int nr_fds;
	pthread_t threads[8];
	int nr_threads;
	volatile bool stop;
};

static void *toucher(void *arg)
{
	struct shape *shape = arg;
	size_t size = 16 << 20, i;
	char *mem = malloc(size);

	if (!mem)
		return NULL;
	while (!shape->stop)
		for (i = 0; i < size && !shape->stop; i += 4096)
			mem[i]++;
	free(mem);
	return NULL;
}

static int shape_setup(struct shape *shape, const char *scenario)
{
	long fds = 0;
	int i;

	memset(shape, 0, sizeof(*shape));
	with_actions = !strcmp(scenario, "8-actions");
	if (!strcmp(scenario, "256m") || !strcmp(scenario, "1g")) {
		shape->size = (size_t)(scenario[0] == '1' ? 1024 : 256) << 20;
		shape->mem = mmap(NULL, shape->size, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (shape->mem == MAP_FAILED)
			return -1;
		memset(shape->mem, 1, shape->size);
	}
	if (!strcmp(scenario, "10-fds"))
		fds = 10;
	else if (!strcmp(scenario, "10k-fds"))
		fds = 10000;
	else if (!strcmp(scenario, "100k-fds"))
		fds = 100000;
	if (fds) {
		struct rlimit rl = { fds + 64, fds + 64 };

		if (setrlimit(RLIMIT_NOFILE, &rl))
			return -1;
		shape->fds = calloc(fds, sizeof(int));
		if (!shape->fds)
			return -1;
		for (i = 0; i < fds; i++) {
			shape->fds[i] = dup(devnull);
			if (shape->fds[i] < 0)
				return -1;
			shape->nr_fds++;
		}
	}
	if (!strcmp(scenario, "threads"))
		for (i = 0; i < 8; i++)
			if (!pthread_create(&shape->threads[i], NULL, toucher, shape))
				shape->nr_threads++;
	return 0;
}

static void shape_undo(struct shape *shape)
{
	int i;

	shape->stop = true;
	for (i = 0; i < shape->nr_threads; i++)
		pthread_join(shape->threads[i], NULL);
	for (i = 0; i < shape->nr_fds; i++)
		close(shape->fds[i]);
	free(shape->fds);
	if (shape->mem)
		munmap(shape->mem, shape->size);
	with_actions = false;
}

static int make_template(struct child *c)
{
	int pidfd = pidspawn_create(0), tmpl = -1;

	if (pidfd < 0)
		return -1;
	if (!pidspawn_set_exec_path(pidfd, AT_FDCWD, c->path) &&
	    !pidspawn_set_envp(pidfd, child_envp))
		tmpl = pidspawn_make_template(pidfd, 0);
	close(pidfd);
	if (tmpl >= 0)
		fcntl(tmpl, F_SETFD, FD_CLOEXEC);
	return tmpl;
}

static bool selected(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	if (!list)
		return true;
	for (p = list; (p = strstr(p, name)); p += len)
		if ((p == list || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

/*
 * The system calls one spawn by @m costs: @m runs TRACED_SPAWNS times in a
 * child traced with PTRACE_SYSCALL, following the processes it forks or
 * clones until their execve() (the exec'd program's own calls are the
 * same for every method). Returns calls per spawn, or -1.
 */
static double count_syscalls(const struct method *m, struct child *c)
{
	const int opts = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			 PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL;
	long calls = 0;
	bool counting = false;
	int status, failed = 1, i;
	pid_t tracee, pid;

	fflush(stdout);
	tracee = fork();
	if (tracee < 0)
		return -1;
	if (!tracee) {
		int bad = 0;

		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(2);
		/* A template serves the process that made it, not its forks. */
		if (c->tmpl >= 0) {
			close(c->tmpl);
			c->tmpl = make_template(c);
		}
		raise(SIGSTOP);
		/* getppid() brackets what is counted: not raise() or _exit(). */
		syscall(SYS_getppid);
		for (i = 0; i < TRACED_SPAWNS; i++)
			bad |= m->spawn(c);
		syscall(SYS_getppid);
		_exit(bad ? 1 : 0);
	}
	if (waitpid(tracee, &status, 0) != tracee || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, tracee, NULL, (void *)(long)opts) ||
	    ptrace(PTRACE_SYSCALL, tracee, NULL, NULL)) {
		kill(tracee, SIGKILL);
		waitpid(tracee, NULL, 0);
		return -1;
	}
	while ((pid = waitpid(-1, &status, __WALL)) > 0) {
		int sig = 0;

		if (!WIFSTOPPED(status)) {
			if (pid == tracee)
				failed = !WIFEXITED(status) || WEXITSTATUS(status);
			continue;
		}
		if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			struct __ptrace_syscall_info info;

			if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(info), &info) > 0 &&
			    info.op == PTRACE_SYSCALL_INFO_ENTRY) {
				if (pid == tracee && info.entry.nr == SYS_getppid)
					counting = !counting;
				else
					calls += counting;
			}
		} else if (status >> 8 == (SIGTRAP | PTRACE_EVENT_EXEC << 8)) {
			/* Its execve() is counted; what it runs is not the spawn's. */
			ptrace(PTRACE_DETACH, pid, NULL, NULL);
			continue;
		} else if (WSTOPSIG(status) != SIGTRAP && WSTOPSIG(status) != SIGSTOP) {
			sig = WSTOPSIG(status);	/* a real signal, SIGCHLD: deliver it */
		}
		ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig);
	}
	return failed ? -1 : (double)calls / TRACED_SPAWNS;
}

/*
 * The mean of the spawns in ns without the slowest TRIM_PERCENT: in
 * counted mode an interrupt or a kernel thread that runs during a spawn
 * is counted in it; this mean leaves such bursts out. Sorts @samples.
 */
#define TRIM_PERCENT	5

static double trimmed_mean_ns(double *samples, int n)
{
	int keep = n - n * TRIM_PERCENT / 100, i;
	double sum = 0;

	qsort(samples, n, sizeof(double), cmp_double);
	for (i = 0; i < keep; i++)
		sum += samples[i];
	return keep ? sum * 1e3 / keep : 0;
}

static long minflt(int who)
{
	struct rusage ru;

	return getrusage(who, &ru) ? 0 : ru.ru_minflt;
}

static const char *clock_name = "wall";

static int run(const char *scenario, struct child *c, int spawns, int rep,
	       const char *method_list, FILE *csv)
{
	static double *samples[NR_METHODS];
	double total[NR_METHODS] = { 0 }, phases[NR_METHODS][NR_PHASES] = { { 0 } };
	long child_faults[NR_METHODS] = { 0 }, parent_faults[NR_METHODS] = { 0 };
	double syscalls[NR_METHODS], trimmed[NR_METHODS];
	bool use[NR_METHODS];
	int per_round = spawns / ROUNDS, round, i, n;
	struct shape shape;
	unsigned int m;

	if (shape_setup(&shape, scenario)) {
		fprintf(stderr, "%s: setting up: %s\n", scenario, strerror(errno));
		shape_undo(&shape);
		return -1;
	}
	c->tmpl = make_template(c);
	for (m = 0; m < NR_METHODS; m++) {
		use[m] = selected(method_list, methods[m].name) &&
			 !(with_actions && methods[m].no_actions) &&
			 !(methods[m].template && c->tmpl < 0) &&
			 !(methods[m].elf_cache_off && !elf_cache_set(true));
		free(samples[m]);
		samples[m] = calloc(per_round * ROUNDS, sizeof(double));
	}
	/*
	 * Untimed first: a method's first spawns pay for lazy binding and its
	 * library's first-use work, once per process, not per spawn.
	 */
	for (m = 0; m < NR_METHODS; m++) {
		if (use[m] && methods[m].elf_cache_off)
			elf_cache_set(false);
		for (i = 0; use[m] && i < WARMUP_SPAWNS; i++)
			methods[m].spawn(c);	/* a failure is reported below */
		if (use[m] && methods[m].elf_cache_off)
			elf_cache_set(true);
	}
	for (round = 0; round < ROUNDS; round++) {
		for (m = 0; m < NR_METHODS; m++) {
			if (!use[m])
				continue;
			if (methods[m].elf_cache_off)
				elf_cache_set(false);
			for (i = 0; i < per_round; i++) {
				long child_before = minflt(RUSAGE_CHILDREN);
				long parent_before = minflt(RUSAGE_SELF);
				double start, took, from, end;
				int ph;

				for (ph = 0; ph < NR_MARKS; ph++)
					marks[ph] = 0;
				start = now_us();
				from = start;
				if (methods[m].spawn(c)) {
					fprintf(stderr, "%s/%s/%s failed: %s\n", scenario,
						methods[m].name, c->name, strerror(errno));
					use[m] = false;
					break;
				}
				end = now_us();
				child_faults[m] += minflt(RUSAGE_CHILDREN) - child_before;
				parent_faults[m] += minflt(RUSAGE_SELF) - parent_before;
				took = end - start;
				samples[m][round * per_round + i] = took;
				total[m] += took;
				for (ph = 0; ph < NR_MARKS; ph++) {
					if (!marks[ph])
						continue;	/* 0: the next takes it */
					phases[m][ph] += marks[ph] - from;
					from = marks[ph];
				}
				phases[m][PH_REAP] += end - from;
			}
			if (methods[m].elf_cache_off)
				elf_cache_set(true);
		}
	}
	for (m = 0; m < NR_METHODS; m++)
		syscalls[m] = use[m] ? count_syscalls(&methods[m], c) : -1;
	n = per_round * ROUNDS;
	printf("\n%s, child %s, %d spawns per method, %d rounds, repetition %d, clock %s\n",
	       scenario, c->name, n, ROUNDS, rep, clock_name);
	printf("  %-18s %12s %10s %10s %10s %10s %8s %8s %8s\n", "method", "spawns/s", "p50 us",
	       "p99 us", "ns/spawn", "vs vfork", "childflt", "ownflt", "syscalls");
	for (m = 0; m < NR_METHODS; m++)
		if (use[m])
			trimmed[m] = trimmed_mean_ns(samples[m], n);
	for (m = 0; m < NR_METHODS; m++) {
		double rate, p50, p99, ratio = use[VFORK] ? total[VFORK] / total[m] : 0;
		double trimmed_ratio = use[VFORK] ? trimmed[VFORK] / trimmed[m] : 0;

		if (!use[m])
			continue;
		rate = n / (total[m] / 1e6);
		p50 = samples[m][n / 2];
		p99 = samples[m][n * 99 / 100];
		printf("  %-18s %12.1f %10.0f %10.0f %10.0f %9.3fx %8.1f %8.1f %8.1f\n",
		       methods[m].name, rate, p50, p99, total[m] * 1e3 / n, ratio,
		       (double)child_faults[m] / n, (double)parent_faults[m] / n, syscalls[m]);
		if (csv)
			fprintf(csv, "%s,%s,%s,%.2f,%.1f,%.1f,%s,%d,%.0f,%.4f,%.2f,%.2f,%.2f,%.0f,%.4f\n",
				scenario, methods[m].name, c->name, rate, p50, p99, clock_name,
				rep, total[m] * 1e3 / n, ratio, (double)child_faults[m] / n,
				(double)parent_faults[m] / n, syscalls[m], trimmed[m],
				trimmed_ratio);
	}
	printf("  without the slowest %d%% of each method's spawns:", TRIM_PERCENT);
	for (m = 0; m < NR_METHODS; m++)
		if (use[m] && use[VFORK])
			printf(" %s %.0f ns %.3fx;", methods[m].name, trimmed[m],
			       trimmed[VFORK] / trimmed[m]);
	putchar('\n');
	printf("  where the time goes, mean us:");
	for (i = 0; i < NR_PHASES; i++)
		printf(" %10s", phase_names[i]);
	putchar('\n');
	for (m = 0; m < NR_METHODS; m++) {
		if (!use[m])
			continue;
		printf("  %-18s%12s", methods[m].name, "");
		for (i = 0; i < NR_PHASES; i++)
			printf(" %10.0f", phases[m][i] / n);
		putchar('\n');
	}
	if (csv)
		fflush(csv);
	if (c->tmpl >= 0)
		close(c->tmpl);
	c->tmpl = -1;
	shape_undo(&shape);
	return 0;
}

/*
 * Each case in a process of its own, forked from this one while it is
 * small: closing fds does not shrink a file table, so a case run after
 * 100k-fds in the same process would copy a table of 100k slots.
 */
static int run_apart(const char *scenario, struct child *c, int spawns, int rep,
		     const char *method_list, FILE *csv)
{
	int status;
	pid_t pid;

	fflush(stdout);
	if (csv)
		fflush(csv);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid)
		_exit(run(scenario, c, spawns, rep, method_list, csv) ? 1 : 0);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/* The kernel's slab in use, in kB, from /proc/meminfo; -1 if unknown. */
static long slab_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * Memory per template: the growth of the kernel's slab over NR_TEMPLATES
 * templates of @c held at once (their files, frozen configuration, ELF
 * cache and program headers are all slab objects).
 */
#define NR_TEMPLATES	1000

static void template_memory(struct child *c)
{
	struct rlimit rl = { NR_TEMPLATES + 64, NR_TEMPLATES + 64 };
	static int fds[NR_TEMPLATES];
	long before, after;
	int i, n;

	if (setrlimit(RLIMIT_NOFILE, &rl))
		return;
	before = slab_kb();
	for (n = 0; n < NR_TEMPLATES; n++)
		if ((fds[n] = make_template(c)) < 0)
			break;
	after = slab_kb();
	for (i = 0; i < n; i++)
		close(fds[i]);
	if (n < NR_TEMPLATES || before < 0 || after < 0) {
		printf("\nmemory per template (%s): not measured (%d templates made)\n",
		       c->name, n);
		return;
	}
	printf("\nmemory per template (%s): %ld bytes (slab growth over %d templates)\n",
	       c->name, (after - before) * 1024 / n, n);
}

/* One system call's entry and exit: getppid(), which does next to nothing. */
static double syscall_ns(void)
{
	const int calls = 10000;
	double start = now_us();
	int i;

	for (i = 0; i < calls; i++)
		syscall(SYS_getppid);
	return (now_us() - start) * 1e3 / calls;
}

/* Copy @from into a new folder @dir (a mkdtemp() template) as @to. */
static int copy_child(const char *from, char *dir, char *to, size_t size)
{
	char buf[65536];
	int in, out = -1, ret = -1;
	ssize_t n;

	if (!mkdtemp(dir))
		return -1;
	snprintf(to, size, "%s/exit0", dir);
	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in >= 0)
		out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			break;
	if (out >= 0 && !n && !close(out)) {
		out = -1;
		ret = 0;
	}
	if (out >= 0)
		close(out);
	if (in >= 0)
		close(in);
	return ret;
}

/*
 * Counted runs: fork's cost follows this process's layout, which ASLR
 * draws anew in each run (4.5% apart over three processes, against 0.8%
 * without it: docs/measurements.md). Lay this process out without
 * randomization, by executing itself once with ADDR_NO_RANDOMIZE, then
 * give the flag up before any spawn: children inherit a personality, and
 * theirs are randomized as usual.
 */
static void fixed_layout(char **argv)
{
	int pers = personality(0xffffffff);

	if (pers < 0)
		return;
	if (!(pers & ADDR_NO_RANDOMIZE)) {
		if (personality(pers | ADDR_NO_RANDOMIZE) < 0)
			return;
		execv("/proc/self/exe", argv);
		/* Still the randomized process: run as it is. */
		personality(pers);
		return;
	}
	personality(pers & ~ADDR_NO_RANDOMIZE);
}

int main(int argc, char **argv)
{
	const char *scenario_list = NULL, *method_list = NULL, *child_list = NULL;
	const char *csv_path = NULL;
	static char static_path[4096], local_path[4096];
	char local_dir[] = "/var/tmp/pidspawn-bench.XXXXXX";
	int spawns = 200, reps = 1, opt, i, r;
	unsigned int s;
	FILE *csv = NULL;
	char *slash;

	while ((opt = getopt(argc, argv, "n:r:s:m:c:k:o:")) != -1) {
		switch (opt) {
		case 'n':
			spawns = atoi(optarg);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 'k':
			clock_name = optarg;
			break;
		case 's':
			scenario_list = optarg;
			break;
		case 'm':
			method_list = optarg;
			break;
		case 'c':
			child_list = optarg;
			break;
		case 'o':
			csv_path = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-n spawns] [-r repetitions] [-s scenarios] [-m methods] [-c children] [-k clock] [-o csv]\n",
				argv[0]);
			return 2;
		}
	}
	if (spawns < ROUNDS)
		spawns = ROUNDS;
	if (!strcmp(clock_name, "icount"))
		fixed_layout(argv);
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* glibc's posix_spawn(), not the library's that this program links. */
	glibc_posix_spawn = (glibc_spawn_fn)dlvsym(RTLD_DEFAULT, "posix_spawn", "GLIBC_2.15");
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (!glibc_posix_spawn || devnull < 0) {
		fprintf(stderr, "glibc's posix_spawn or /dev/null missing\n");
		return 1;
	}
	posix_spawn_file_actions_init(&actions);

	/*
	 * The static child is built beside this program, which in the guest
	 * is the host's share (9p): every open and read there is a round trip
	 * to QEMU. It runs from a copy on the root filesystem, as /bin/true.
	 */
	if (readlink("/proc/self/exe", static_path, sizeof(static_path) - 32) < 0)
		return 1;
	slash = strrchr(static_path, '/');
	strcpy(slash + 1, "exit0");
	if (copy_child(static_path, local_dir, local_path, sizeof(local_path))) {
		fprintf(stderr, "copying %s to %s: %s\n", static_path, local_dir,
			strerror(errno));
		return 1;
	}
	children[0].path = local_path;
	for (i = 0; i < 2; i++) {
		children[i].fd = open(children[i].path, O_PATH | O_CLOEXEC);
		if (children[i].fd < 0) {
			fprintf(stderr, "%s: %s\n", children[i].path, strerror(errno));
			return 1;
		}
	}
	if (csv_path) {
		/* Appended to: runs with other arguments may share a CSV. */
		csv = fopen(csv_path, "a");
		if (!csv)
			return 1;
		if (!ftell(csv))
			fprintf(csv, "scenario,method,child,spawns_per_sec,p50_us,p99_us,clock,rep,"
				"ns_per_spawn,vs_vfork,child_minflt,parent_minflt,syscalls,"
				"trimmed_ns_per_spawn,trimmed_vs_vfork\n");
	}
	printf("%d spawns per method and case; \"vs vfork\": vfork+execve's time over the method's\n",
	       spawns / ROUNDS * ROUNDS);
	printf("a system call (getppid()): %.0f ns, clock %s\n", syscall_ns(), clock_name);
	for (s = 0; s < NR_SCENARIOS; s++) {
		if (!selected(scenario_list, scenarios[s]))
			continue;
		if (!strcmp(scenarios[s], "8-actions")) {
			for (i = 0; i < NR_ACTIONS; i++)
				posix_spawn_file_actions_adddup2(&actions, devnull, 3 + i);
			lib_actions = &actions;
		}
		for (r = 1; r <= reps; r++)
			for (i = 0; i < 2; i++)
				if (selected(child_list, children[i].name) &&
				    run_apart(scenarios[s], &children[i], spawns, r, method_list, csv))
					return 1;
		lib_actions = NULL;
	}
	if (csv)
		fclose(csv);
	for (i = 0; i < 2; i++)
		if (selected(child_list, children[i].name) &&
		    selected(method_list, "template"))
			template_memory(&children[i]);
	unlink(local_path);
	rmdir(local_dir);
	return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libpidspawn: pristine process creation with pidfd_open(0, PIDFD_EMPTY)
 * and pidfd_config(), with glibc-compatible posix_spawn() on top.
 *
 * Three layers, one header:
 *  - the raw layer: pidspawn_create() and pidspawn_config(), the two
 *    system calls as they are;
 *  - the builder: one function per pidfd_config() command, each taking
 *    the empty pidfd, then pidspawn_start(), pidspawn_wait() and
 *    pidspawn_error().  They need the kernel (no fallback) and return
 *    like system calls: -1 with errno set on failure;
 *  - the posix_spawn family of <spawn.h>, glibc's types and behaviour,
 *    plus glibc 2.39's pidfd_spawn(), pidfd_spawnp() and cgroup
 *    attribute.  They return an error number, never -1, and fall back
 *    to clone(CLONE_VM | CLONE_VFORK) where the kernel lacks
 *    pidfd_config() (environment PIDSPAWN_BACKEND=native|fallback
 *    forces the choice).
 *
 * Spawn templates (kernels with PIDFD_CONFIG_MAKE_TEMPLATE): a builder
 * frozen into a template fd, from which each spawn takes a new empty
 * process with the executable already opened, pinned and its ELF headers
 * read.  Raw: pidspawn_make_template() and pidspawn_template_new().
 * Convenience: struct pidspawn_template, made from an absolute path, which
 * spawns as pidfd_spawn() does and makes its template again when the kernel
 * says it is stale (ESTALE) or not the caller's (EACCES, after fork() or a
 * credential change); by path, without a template, where the kernel has
 * none.  And an opt-in cache of templates under the posix_spawn family
 * (PIDSPAWN_TEMPLATES=1 or POSIX_SPAWN_TEMPLATE_NP), see
 * pidspawn_template_create(3).
 */
#ifndef PIDSPAWN_H
#define PIDSPAWN_H

#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The raw layer.  The commands and the structures for
 * pidspawn_config() are in the kernel's <linux/pidfd.h>; this header does
 * not include it because <linux/pidfd.h> pulls in <linux/fcntl.h>, which
 * cannot share a file with the C library's <fcntl.h>.
 */
int pidspawn_create(unsigned int flags);
int pidspawn_config(int pidfd, unsigned int cmd, const char *key,
		    const void *value, int aux);

/* The builder: what the child runs. */
int pidspawn_set_exec_fd(int pidfd, int fd);
int pidspawn_set_exec_path(int pidfd, int dirfd, const char *path);
int pidspawn_set_exec_search(int pidfd, char *const paths[]);
int pidspawn_set_argv(int pidfd, char *const argv[]);
int pidspawn_set_envp(int pidfd, char *const envp[]);
int pidspawn_set_cwd(int pidfd, int dirfd, const char *path);

/* The child's file table: pristine (0, 1, 2) unless inherited. */
int pidspawn_inherit_fds(int pidfd);
/*
 * dup2() in the child: onto itself, nothing changes unless flags has
 * PIDFD_FD_CLEAR_CLOEXEC (1 in <linux/pidfd.h>), which clears FD_CLOEXEC.
 */
int pidspawn_act_dup2(int pidfd, int fd, int newfd);
int pidspawn_act_dup2_flags(int pidfd, int fd, int newfd, unsigned int flags);
int pidspawn_act_close(int pidfd, int fd);
int pidspawn_act_open(int pidfd, int fd, const char *path, int flags,
		      mode_t mode);
int pidspawn_act_close_range(int pidfd, unsigned int first, unsigned int last,
			     unsigned int flags);
int pidspawn_act_give_fd(int pidfd, int fd, int newfd);
int pidspawn_act_chdir(int pidfd, const char *path);
int pidspawn_act_fchdir(int pidfd, int fd);
int pidspawn_act_tcsetpgrp(int pidfd, int fd);

/* Signals and attributes. */
int pidspawn_set_sigmask(int pidfd, const sigset_t *set);
int pidspawn_set_sigdefault(int pidfd, const sigset_t *set);
int pidspawn_setsid(int pidfd);
int pidspawn_setpgid(int pidfd, pid_t pgid);
int pidspawn_resetids(int pidfd);
int pidspawn_set_scheduler(int pidfd, int policy,
			   const struct sched_param *param);
int pidspawn_set_cgroup(int pidfd, int cgroupfd);

/* What the child sets for itself before it runs its program. */
int pidspawn_set_rlimit(int pidfd, int resource, const struct rlimit *rlim);
int pidspawn_set_umask(int pidfd, mode_t mask);
int pidspawn_set_pdeathsig(int pidfd, int sig);
int pidspawn_set_no_new_privs(int pidfd);

/*
 * Set by the child as personality(), a write to /proc/self/oom_score_adj
 * and sched_setaffinity() would set them; the mask is a cpu_set_t of
 * size bytes (CPU_ALLOC_SIZE() for a dynamic one).
 */
int pidspawn_set_personality(int pidfd, unsigned long persona);
int pidspawn_set_oom_score_adj(int pidfd, int adj);
int pidspawn_set_cpu_affinity(int pidfd, size_t size, const void *mask);

/*
 * The child's sandbox: a Landlock ruleset (a descriptor from
 * landlock_create_ruleset()), then a classic BPF seccomp filter, installed
 * as seccomp(SECCOMP_SET_MODE_FILTER, flags, prog) would; with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER it returns the listener.
 */
struct sock_fprog;
int pidspawn_set_landlock(int pidfd, int rulesetfd);
int pidspawn_set_seccomp_filter(int pidfd, unsigned int flags,
				const struct sock_fprog *prog);

/*
 * New namespaces for the child (CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWNET,
 * CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP), created as clone() would
 * create them; for a new user namespace, its uid and gid maps as written
 * to /proc/PID/uid_map and gid_map, and "deny" to /proc/PID/setgroups,
 * written before the child runs with the caller's credentials.
 */
int pidspawn_set_namespaces(int pidfd, int flags);
int pidspawn_set_uid_map(int pidfd, const char *map);
int pidspawn_set_gid_map(int pidfd, const char *map);
int pidspawn_deny_setgroups(int pidfd);

/*
 * The child's identity, for privileged launchers, set as setgroups(),
 * setresgid(), setresuid(), capset() (the sets as 64-bit masks of
 * CAP_* bits) and prctl() with PR_SET_SECUREBITS, PR_CAPBSET_DROP and
 * PR_CAP_AMBIENT would set it, with their checks, in that order after
 * securebits and the bounding set; -1 leaves an id as it is.
 */
int pidspawn_set_groups(int pidfd, size_t size, const gid_t *list);
int pidspawn_set_resuid(int pidfd, uid_t ruid, uid_t euid, uid_t suid);
int pidspawn_set_resgid(int pidfd, gid_t rgid, gid_t egid, gid_t sgid);
int pidspawn_set_caps(int pidfd, uint64_t effective, uint64_t permitted,
		      uint64_t inheritable);
int pidspawn_set_securebits(int pidfd, unsigned int bits);
int pidspawn_capbset_drop(int pidfd, int cap);
int pidspawn_cap_ambient_raise(int pidfd, int cap);
int pidspawn_cap_ambient_clear(int pidfd);

/*
 * The child's lifetime, as clone3()'s CLONE_AUTOREAP and
 * CLONE_PIDFD_AUTOKILL: reaped as it exits (no zombie, no SIGCHLD, the
 * pidfd polls readable; no status to collect), and killed when the last
 * reference to its pidfd goes (needs autoreap, and no_new_privs or
 * CAP_SYS_ADMIN; checked at start).
 */
int pidspawn_set_autoreap(int pidfd);
int pidspawn_set_autokill(int pidfd);

/*
 * The child's root directory, path under dirfd or dirfd itself for a NULL
 * path, changed as chroot() would (CAP_SYS_CHROOT in the child's user
 * namespace, checked at start), with the working directory.
 */
int pidspawn_set_root(int pidfd, int dirfd, const char *path);

/*
 * The common sandbox of a tool, on a builder: no_new_privs; the file
 * system read-only but beneath writable_dir (NULL: nowhere), by Landlock
 * (ENOTSUP where Landlock is off: it never runs the tool unconfined); the
 * ndeny system calls of deny failing with EPERM, by a seccomp filter that
 * also kills calls of other ABIs; with PIDSPAWN_SANDBOX_NO_NETWORK no
 * socket but AF_UNIX (EAFNOSUPPORT) and no io_uring (ENOSYS); with
 * PIDSPAWN_SANDBOX_NETNS a new network namespace, with no interface but
 * its loopback, down, in a new user namespace in which the caller's uid
 * and gid map to themselves.  Resource limits are pidspawn_set_rlimit()'s.
 */
#define PIDSPAWN_SANDBOX_NO_NETWORK	(1U << 0)
#define PIDSPAWN_SANDBOX_NETNS		(1U << 1)
int pidspawn_sandbox(int pidfd, const char *writable_dir, const long *deny,
		     size_t ndeny, unsigned int flags);

/*
 * Templates, raw: PIDFD_CONFIG_MAKE_TEMPLATE on a configured empty pidfd
 * (flags: 0) returns a template fd, close-on-exec;
 * PIDFD_CONFIG_NEW_EMPTY on a template fd (flags: 0 or PIDFD_NONBLOCK)
 * returns a new empty pidfd with the template's configuration.
 */
int pidspawn_make_template(int pidfd, unsigned int flags);
int pidspawn_template_new(int tfd, unsigned int flags);

/*
 * Templates, the convenience layer.  pidspawn_template_create() takes an
 * absolute path and flags 0; NULL with errno EINVAL (relative path, flags),
 * ENAMETOOLONG or ENOMEM.  Other failures to make the kernel template are
 * not reported: the object then spawns by path, as posix_spawn() does, and
 * tries again later.  pidspawn_template_spawn() is pidfd_spawn() (pidfd
 * not NULL) or posix_spawn() (pid) of the template's executable: 0 or an
 * error number, *pid and *pidfd set on success only.  Thread-safe.
 * pidspawn_template_fd() is the template fd now, -1 when there is none.
 */
struct pidspawn_template;
struct pidspawn_template *pidspawn_template_create(const char *path,
						   unsigned int flags);
int pidspawn_template_spawn(struct pidspawn_template *tmpl, pid_t *pid,
			    int *pidfd, const posix_spawn_file_actions_t *fa,
			    const posix_spawnattr_t *attr, char *const argv[],
			    char *const envp[]);
int pidspawn_template_fd(const struct pidspawn_template *tmpl);
void pidspawn_template_free(struct pidspawn_template *tmpl);

/*
 * A builder from a template, for callers that configure the child
 * themselves: a new empty pidfd with the executable of @tmpl's template
 * (made again when stale), or with @tmpl NULL with that of the template
 * cache's for the absolute @path, counted as one spawn of it (the cache
 * on: PIDSPAWN_TEMPLATES=1 or @flags POSIX_SPAWN_TEMPLATE_NP).  -1 with
 * errno ENOENT when there is none now (EINVAL for bad arguments): build
 * by path then.  The pidfd takes every builder command but those of the
 * executable; a START from it that fails may be made again by path.
 */
int pidspawn_template_builder(struct pidspawn_template *tmpl,
			      const char *path, unsigned int flags);

/*
 * A libpidspawn attribute flag: this spawn may use the template cache,
 * as PIDSPAWN_TEMPLATES=1 lets every spawn of the process.  glibc's
 * posix_spawnattr_setflags() refuses it with EINVAL.
 */
#define POSIX_SPAWN_TEMPLATE_NP	0x4000

/* Start, wait, and why a start failed. */
pid_t pidspawn_start(int pidfd);
int pidspawn_wait(int pidfd, int *status);
ssize_t pidspawn_error(int pidfd, char *buf, size_t size);

/* Which implementation the posix_spawn family uses in this process. */
#define PIDSPAWN_NATIVE		1
#define PIDSPAWN_FALLBACK	2
int pidspawn_backend(void);

/* glibc 2.39 additions, for older C libraries. */
#ifndef POSIX_SPAWN_SETCGROUP
#define POSIX_SPAWN_SETCGROUP	0x100
#endif
#if !defined(__GLIBC__) || __GLIBC__ < 2 || \
    (__GLIBC__ == 2 && __GLIBC_MINOR__ < 39)
int pidfd_spawn(int *__restrict pidfd, const char *__restrict path,
		const posix_spawn_file_actions_t *file_actions,
		const posix_spawnattr_t *__restrict attrp,
		char *const argv[], char *const envp[]);
int pidfd_spawnp(int *__restrict pidfd, const char *__restrict file,
		 const posix_spawn_file_actions_t *file_actions,
		 const posix_spawnattr_t *__restrict attrp,
		 char *const argv[], char *const envp[]);
int posix_spawnattr_getcgroup_np(const posix_spawnattr_t *__restrict attr,
				 int *__restrict cgroup);
int posix_spawnattr_setcgroup_np(posix_spawnattr_t *attr, int cgroup);
#endif

#ifdef __cplusplus
}
#endif

#endif /* PIDSPAWN_H */

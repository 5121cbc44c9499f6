// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Linked into the LD_PRELOAD shim only.  LD_PRELOAD is inherited, and
 * loading any library costs a program more than a spawn through the shim
 * saves: for Debian's /bin/true, an empty preloaded library adds about 11%
 * of its instructions (docs/measurements.md).  So the shim serves the
 * program it was preloaded into and takes itself out of LD_PRELOAD in the
 * environment of the children that program spawns through it; with
 * PIDSPAWN_PRELOAD_CHILDREN=1 in the program's environment, children keep
 * it.  Nothing runs at load: the first spawn looks up our own name.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* The shim's file name as the dynamic loader has it; "" when unknown. */
static const char *shim_name(void)
{
	static const char *name;
	const char *n = __atomic_load_n(&name, __ATOMIC_ACQUIRE);
	const char *keep;
	Dl_info info;

	if (n)
		return n;
	keep = getenv("PIDSPAWN_PRELOAD_CHILDREN");
	if (keep && !strcmp(keep, "1"))
		n = "";
	else if (dladdr((void *)shim_name, &info) && info.dli_fname)
		n = info.dli_fname;
	else
		n = "";
	__atomic_store_n(&name, n, __ATOMIC_RELEASE);
	return n;
}

/* Is the LD_PRELOAD element @e (@len bytes) this shim? */
static int is_shim(const char *e, size_t len, const char *name)
{
	static const char base[] = "libpidspawn-preload.so";
	const char *slash = memrchr(e, '/', len);
	size_t blen = len - (slash ? (size_t)(slash + 1 - e) : 0);

	if (strlen(name) == len && !memcmp(e, name, len))
		return 1;
	return blen == sizeof(base) - 1 &&
	       !memcmp(e + len - blen, base, blen);
}

/*
 * @envp with the shim taken out of LD_PRELOAD (and LD_PRELOAD dropped if
 * nothing else is left), in one allocation to free(), or NULL when @envp
 * stays as it is: no LD_PRELOAD naming the shim, PIDSPAWN_PRELOAD_CHILDREN,
 * or no memory (the child then keeps the shim, as before).
 */
char **shim_child_envp(char *const envp[])
{
	static const char var[] = "LD_PRELOAD=";
	const size_t vlen = sizeof(var) - 1;
	const char *name = shim_name(), *p, *value;
	size_t n, at = 0, keep = 0, len;
	char **v, *out;
	int found = 0;

	if (!*name || !envp)
		return NULL;
	for (n = 0; envp[n]; n++)
		if (!found && !strncmp(envp[n], var, vlen)) {
			found = 1;
			at = n;
		}
	if (!found)
		return NULL;
	/* ld.so splits LD_PRELOAD at spaces and colons. */
	value = envp[at] + vlen;
	for (p = value; *p; p += len) {
		p += strspn(p, " :");
		len = strcspn(p, " :");
		if (len && !is_shim(p, len, name))
			keep++;
		else if (len)
			found = 2;
	}
	if (found != 2)
		return NULL;
	v = malloc((n + 1) * sizeof(*v) + vlen + strlen(value) + 1);
	if (!v)
		return NULL;
	memcpy(v, envp, (n + 1) * sizeof(*v));
	if (!keep) {
		memmove(v + at, v + at + 1, (n - at) * sizeof(*v));
		return v;
	}
	out = (char *)(v + n + 1);
	v[at] = out;
	out = mempcpy(out, var, vlen);
	for (p = value; *p; p += len) {
		p += strspn(p, " :");
		len = strcspn(p, " :");
		if (!len || is_shim(p, len, name))
			continue;
		if (out != v[at] + vlen)
			*out++ = ':';
		out = mempcpy(out, p, len);
	}
	*out = '\0';
	return v;
}

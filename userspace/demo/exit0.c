// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's static child: no libc, no dynamic linker, nothing but
 * exit(0), so that a spawn measures the process and not the program.
 */
void _start(void)
{
#if defined(__x86_64__)
	__asm__ volatile("mov $60, %eax\n\txor %edi, %edi\n\tsyscall");
#else
#error "only x86-64 is wired up"
#endif
}

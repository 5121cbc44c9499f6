/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * long spawn_clone3(struct clone_args *args, size_t size,
 *		     int (*fn)(void *), void *arg);
 *
 * clone3() onto the stack that @args names: the parent gets the child's
 * pid or -errno, the child runs fn(arg) there and exits with its value.
 * C cannot do this (the child must not return through the parent's
 * frames), and glibc 2.36 exports no clone3().  x86_64 only.
 */
#include <sys/syscall.h>

#ifdef __x86_64__
	.text
	.globl	spawn_clone3
	.hidden	spawn_clone3
	.type	spawn_clone3, @function
	.p2align 4
spawn_clone3:
	.cfi_startproc
	mov	%rcx, %r8		/* syscall clobbers rcx */
	mov	$SYS_clone3, %eax
	syscall
	test	%rax, %rax
	jz	1f
	ret
1:
	.cfi_undefined rip		/* the child's outermost frame */
	xor	%ebp, %ebp
	mov	%r8, %rdi
	call	*%rdx
	mov	%eax, %edi
	mov	$SYS_exit_group, %eax
	syscall
	hlt
	.cfi_endproc
	.size	spawn_clone3, .-spawn_clone3
#endif
	.section .note.GNU-stack, "", @progbits

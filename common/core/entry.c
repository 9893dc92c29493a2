// SPDX-License-Identifier: GPL-2.0
/*
 * Run a traced child from its exec to its program's entry point. At the
 * exec stop only the executable and ld.so are mapped; at the entry point
 * ld.so has mapped every library the program needs, so their symbols
 * and unwind tables can be read before the program runs a line.
 */
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "collect.h"

#if defined(__x86_64__)
#define TRAP_INSN     0xccUL /* int3, one byte */
#define TRAP_MASK     0xffUL
#define PC(r)	      ((r).rip)
#define PC_AFTER_TRAP 1 /* the trap reports the next byte */
typedef struct user_regs_struct entry_regs;
#elif defined(__aarch64__)
#define TRAP_INSN     0xd4200000UL /* brk #0, four bytes */
#define TRAP_MASK     0xffffffffUL
#define PC(r)	      ((r).pc)
#define PC_AFTER_TRAP 0
typedef struct user_regs_struct entry_regs;
#endif

/* AT_ENTRY from /proc/PID/auxv, or 0. */
static unsigned long entry_of(pid_t pid)
{
	char path[64];
	size_t len = 0;
	unsigned long *av, entry = 0;

	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	av = (unsigned long *)read_file(path, &len);
	for (size_t i = 0; av && i + 1 < len / sizeof(*av); i += 2)
		if (av[i] == AT_ENTRY)
			entry = av[i + 1];
	free(av);
	return entry;
}

#ifdef TRAP_INSN
static int regs_io(pid_t pid, int req, entry_regs *r)
{
	struct iovec io = {r, sizeof(*r)};

	return ptrace(req, pid, (void *)NT_PRSTATUS, &io);
}

int collect_run_to_entry(pid_t pid, int *status)
{
	unsigned long entry = entry_of(pid), word, trapped;
	entry_regs regs;
	int st;

	errno = 0;
	word = entry ? ptrace(PTRACE_PEEKTEXT, pid, (void *)entry, NULL) : 0;
	if (!entry || errno)
		return 0;
	trapped = (word & ~TRAP_MASK) | TRAP_INSN;
	if (ptrace(PTRACE_POKETEXT, pid, (void *)entry, (void *)trapped))
		return 0;
	for (int sig = 0;; sig = WSTOPSIG(st)) {
		/* the first time nothing; then its own signals, delivered */
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig) ||
		    waitpid(pid, &st, 0) != pid)
			return 0;
		if (!WIFSTOPPED(st)) { /* it exited on the way */
			*status = st;
			return -1;
		}
		if (WSTOPSIG(st) == SIGTRAP)
			break;
	}
	ptrace(PTRACE_POKETEXT, pid, (void *)entry, (void *)word);
	if (regs_io(pid, PTRACE_GETREGSET, &regs) ||
	    PC(regs) - PC_AFTER_TRAP != entry)
		return 0;
	PC(regs) = entry;
	return regs_io(pid, PTRACE_SETREGSET, &regs) ? 0 : 1;
}
#else
int collect_run_to_entry(pid_t pid, int *status)
{
	return 0;
}
#endif

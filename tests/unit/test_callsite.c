// SPDX-License-Identifier: GPL-2.0
// layer: sym
/* callsite_target: direct calls decode to their target, nothing else does. */
#include <elf.h>

#include "check.h"
#include "syms.h"

static void check_target(const char *name, unsigned machine,
			 const uint8_t *code, size_t n, uint64_t ret,
			 bool want_ok, uint64_t want)
{
	uint64_t t = 0;
	bool ok = callsite_target(machine, code, n, ret, &t);

	CHECK(name, ok == want_ok && (!ok || t == want),
	      "ok %d target 0x%llx, want ok %d 0x%llx", ok,
	      (unsigned long long)t, want_ok, (unsigned long long)want);
}

int main(void)
{
	/* x86_64: call rel32 forward (+0x10) and backward (-0x100) */
	const uint8_t fwd[] = {0x90, 0x90, 0x90, 0xe8, 0x10, 0, 0, 0};
	const uint8_t back[] = {0x90, 0x90, 0x90, 0xe8, 0x00, 0xff, 0xff, 0xff};
	/* call *%rax (ff d0) and call *0x10(%rip) (ff 15 ...) */
	const uint8_t reg[] = {0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0xff, 0xd0};
	const uint8_t mem[] = {0x90, 0x90, 0xff, 0x15, 0x10, 0, 0, 0};
	/* arm64: bl +8 (0x94000002), bl -4 (0x97ffffff), blr x1 */
	const uint8_t bl_fwd[] = {0x1f, 0x20, 0x03, 0xd5, 0x02, 0, 0, 0x94};
	const uint8_t bl_back[] = {0x1f, 0x20, 0x03, 0xd5,
				   0xff, 0xff, 0xff, 0x97};
	const uint8_t blr[] = {0x1f, 0x20, 0x03, 0xd5, 0x20, 0x00, 0x3f, 0xd6};

	check_target("x86 call forward", EM_X86_64, fwd, 8, 0x401005, true,
		     0x401015);
	check_target("x86 call backward", EM_X86_64, back, 8, 0x401005, true,
		     0x400f05);
	check_target("x86 call *%rax is not decoded", EM_X86_64, reg, 8,
		     0x401005, false, 0);
	check_target("x86 call *mem is not decoded", EM_X86_64, mem, 8,
		     0x401005, false, 0);
	check_target("x86 too few bytes", EM_X86_64, fwd + 4, 4, 0x401005,
		     false, 0);
	check_target("arm64 bl forward", EM_AARCH64, bl_fwd, 8, 0x400104, true,
		     0x400108);
	check_target("arm64 bl backward", EM_AARCH64, bl_back, 8, 0x400104,
		     true, 0x4000fc);
	check_target("arm64 blr is not decoded", EM_AARCH64, blr, 8, 0x400104,
		     false, 0);
	check_target("other machines are not decoded", EM_386, fwd, 8, 0x401005,
		     false, 0);
	return 0;
}

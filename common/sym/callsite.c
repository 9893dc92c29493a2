// SPDX-License-Identifier: GPL-2.0
/*
 * Which function a return address returns from: decode the call
 * instruction just before it. Only direct calls name their target; an
 * indirect call (through a register or memory) answers nothing, and
 * nothing is guessed.
 */
#include <elf.h>
#include <string.h>

#include "syms.h"

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

bool callsite_target(unsigned machine, const uint8_t *code, size_t n,
		     uint64_t ret, uint64_t *target)
{
	uint32_t insn;

	switch (machine) {
	case EM_X86_64:
		/* call rel32: e8 and a displacement from ret */
		if (n < 5 || code[n - 5] != 0xe8)
			return false;
		*target = ret + (int64_t)(int32_t)le32(code + n - 4);
		return true;
	case EM_AARCH64:
		/* bl imm26: 100101 and a word displacement from the bl */
		if (n < 4)
			return false;
		insn = le32(code + n - 4);
		if (insn >> 26 != 0x25)
			return false;
		*target = ret - 4 +
			  (uint64_t)((int64_t)((int32_t)(insn << 6) >> 6) * 4);
		return true;
	}
	return false;
}

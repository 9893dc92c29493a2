// SPDX-License-Identifier: GPL-2.0
// layer: core
/* stackcount's format-file reader and --filter compiler: the fields a
 * real format file gives, and the postfix comparisons expressions
 * compile to. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stackbox.h"
#include "stackcount/stackcount_common.h"

/* This 6.18 kernel's syscalls/sys_enter_write and sched/sched_switch
 * formats, cut to what matters. */
static const char write_format[] =
	"name: sys_enter_write\n"
	"ID: 700\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * buf;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"fd: 0x%08lx\", ((unsigned long)(REC->fd))\n";

static const char switch_format[] =
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:28;\tsize:4;\tsigned:0;\n";

static void parse(const char *text, struct tp_format *fmt)
{
	char *copy = xstrdup(text);

	tp_format_parse(copy, fmt);
	free(copy);
}

static void test_format(void)
{
	struct tp_format fmt;

	parse(write_format, &fmt);
	CHECK_INT("format: sys_enter_write has 6 fields", fmt.n, 6);
	CHECK_STR("format: the 6th is count", fmt.fields[5].name, "count");
	CHECK_INT("format: count at 32", fmt.fields[5].off, 32);
	CHECK_INT("format: count is 8 bytes", fmt.fields[5].size, 8);
	CHECK_INT("format: __syscall_nr is signed", fmt.fields[2].sign, 1);
	CHECK_STR("format: a pointer's name", fmt.fields[4].name, "buf");
	CHECK_INT("format: the record ends at 40", fmt.size, 40);
	tp_format_free(&fmt);
	parse(switch_format, &fmt);
	CHECK_STR("format: char[16]'s name", fmt.fields[0].name, "prev_comm");
	CHECK_INT("format: char[16] is a string", fmt.fields[0].chars, 1);
	CHECK_INT("format: pid_t is not", fmt.fields[1].chars, 0);
	CHECK_INT("format: __data_loc is marked", fmt.fields[2].data_loc, 1);
	CHECK_STR("format: __data_loc char[]'s name", fmt.fields[2].name,
		  "name");
	tp_format_free(&fmt);
}

/* The compiled program as text: "cmp@32/8>100 str@8 and or not". */
static const char *program(const struct sc_slot *s)
{
	static char buf[512];
	static const char *const cmp[] = {"==", "!=", "<", "<=", ">", ">="};
	size_t n = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < s->ninsns; i++) {
		const struct sc_insn *in = &s->insns[i];

		n += snprintf(buf + n, sizeof(buf) - n, "%s", i ? " " : "");
		if (in->op == SC_OP_CMP)
			n += snprintf(buf + n, sizeof(buf) - n,
				      "cmp@%u/%u%s%s%lld", in->off, in->size,
				      in->sign ? "s" : "", cmp[in->cmp],
				      (long long)in->val);
		else if (in->op == SC_OP_STR_EQ)
			n += snprintf(buf + n, sizeof(buf) - n, "str@%u/%u=%s",
				      in->off, in->size, in->str);
		else
			n += snprintf(buf + n, sizeof(buf) - n, "%s",
				      in->op == SC_OP_AND  ? "and"
				      : in->op == SC_OP_OR ? "or"
							   : "not");
	}
	return buf;
}

static void compiles(const char *expr, const char *fmt_text, const char *want)
{
	struct sc_slot slot = {0};
	struct tp_format fmt;
	char name[256];

	parse(fmt_text, &fmt);
	sc_filter_compile(expr, "t:x:y", &fmt, &slot);
	snprintf(name, sizeof(name), "filter: %s", expr);
	CHECK_STR(name, program(&slot), want);
	tp_format_free(&fmt);
}

static void compiles_args(const char *expr, bool ret, const char *want)
{
	struct sc_slot slot = {0};
	struct tp_format fmt;
	char name[256];

	tp_format_args(ret, &fmt);
	sc_filter_compile(expr, "u:x:y", &fmt, &slot);
	snprintf(name, sizeof(name), "filter on a probe: %s", expr);
	CHECK_STR(name, program(&slot), want);
	tp_format_free(&fmt);
}

static void test_filter(void)
{
	struct sc_slot slot = {0};
	struct tp_format fmt;

	compiles("count > 100", write_format, "cmp@32/8>100");
	compiles("count>100&&fd==1", write_format,
		 "cmp@32/8>100 cmp@16/8==1 and");
	/* && binds tighter than ||; ! applies to what follows */
	compiles("fd == 1 || fd == 2 && count < 0x10", write_format,
		 "cmp@16/8==1 cmp@16/8==2 cmp@32/8<16 and or");
	compiles("!(fd == 1 || fd == 2) && __syscall_nr >= -1", write_format,
		 "cmp@16/8==1 cmp@16/8==2 or not cmp@8/4s>=-1 and");
	compiles("prev_comm == \"gst\"", switch_format, "str@8/16=gst");
	compiles("prev_comm != \"gst\"", switch_format, "str@8/16=gst not");
	compiles("comm == \"sh\"", write_format, "str@512/16=sh");
	parse(write_format, &fmt);
	sc_value_field("count", "t:x:y", &fmt, &slot);
	CHECK_INT("--value count: its offset", slot.value_off, 32);
	CHECK_INT("--value count: its size", slot.value_size, 8);
	CHECK_INT("--value: the record read up to its end", slot.rec_size, 40);
	tp_format_free(&fmt);
	tp_format_args(false, &fmt);
	CHECK_INT("probe fields: arg0..arg5", fmt.n, 6);
	CHECK_STR("probe fields: the last is arg5", fmt.fields[5].name, "arg5");
	tp_format_free(&fmt);
	compiles_args("arg1 == 7 && arg5 > 0", false,
		      "cmp@8/8==7 cmp@40/8>0 and");
	compiles_args("ret < 0", true, "cmp@48/8s<0");
}

int main(void)
{
	applet_name = "test_stackcount_filter";
	test_format();
	test_filter();
	return 0;
}

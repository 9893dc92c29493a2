// SPDX-License-Identifier: GPL-2.0
/*
 * stackcount --filter: a tracepoint's fields compared with constants,
 * joined with &&, || and !, compiled to the postfix list of comparisons
 * that stackcount.bpf.c runs in a bounded loop. The fields' offsets,
 * sizes and signs come from the tracepoint's format file, so the
 * kernel version does not matter.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "stackbox.h"
#include "stackcount_common.h"

/* ---- the format file ---- */

/* "\tfield:unsigned int count;\toffset:24;\tsize:8;\tsigned:0;" */
static bool format_line(const char *line, struct tp_field *f)
{
	const char *decl = strstr(line, "field:"), *semi, *p, *name;
	size_t len;

	if (!decl || !(semi = strchr(decl, ';')))
		return false;
	p = strstr(semi, "offset:");
	if (!p || sscanf(p, "offset:%u;", &f->off) != 1)
		return false;
	p = strstr(semi, "size:");
	if (!p || sscanf(p, "size:%u;", &f->size) != 1)
		return false;
	p = strstr(semi, "signed:");
	f->sign = p && p[7] == '1';
	decl += 6;
	f->data_loc = !strncmp(decl, "__data_loc", 10);
	/* the name is the last identifier, before its [N] if it has one
	 * ("char comm[16]"; "__data_loc char[] name" has it before) */
	p = semi;
	while (p > decl && isspace((unsigned char)p[-1]))
		p--;
	if (p > decl && p[-1] == ']')
		while (p > decl && *--p != '[')
			;
	f->chars = !f->data_loc && !strncmp(decl, "char ", 5) && *p == '[';
	while (p > decl && !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))
		p--;
	name = p;
	while (name > decl &&
	       (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
		name--;
	len = p - name;
	if (!len || len >= sizeof(f->name))
		return false;
	memcpy(f->name, name, len);
	f->name[len] = 0;
	return true;
}

static char *format_text(const char *category, const char *name)
{
	static const char *const roots[] = {"/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing"};
	char path[512], *text = NULL;

	kernel_tracepoint_exists(category, name); /* mounts tracefs */
	for (size_t i = 0; i < ARRAY_SIZE(roots) && !text; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", roots[i],
			 category, name);
		text = read_file(path, NULL);
	}
	return text;
}

void tp_format_read(const char *category, const char *name,
		    struct tp_format *fmt)
{
	char *text = format_text(category, name);

	if (!text)
		error_exit("t:%s:%s: no such tracepoint (no format file in "
			   "tracefs)",
			   category, name);
	tp_format_parse(text, fmt);
	free(text);
}

void tp_format_parse(char *text, struct tp_format *fmt)
{
	char *line, *save = NULL;
	size_t cap = 0;

	memset(fmt, 0, sizeof(*fmt));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct tp_field f = {0};

		if (!format_line(line, &f))
			continue;
		fmt->fields =
			grow_array(fmt->fields, &cap, fmt->n + 1, sizeof(f));
		fmt->fields[fmt->n++] = f;
		if (f.off + f.size > fmt->size)
			fmt->size = f.off + f.size;
	}
}

void tp_format_args(bool ret, struct tp_format *fmt)
{
	memset(fmt, 0, sizeof(*fmt));
	fmt->fields = xzalloc(6 * sizeof(*fmt->fields));
	for (unsigned i = 0; i < 6 && !ret; i++) {
		struct tp_field *f = &fmt->fields[fmt->n++];

		snprintf(f->name, sizeof(f->name), "arg%u", i);
		f->off = 8 * i;
		f->size = 8;
	}
	if (ret)
		fmt->fields[fmt->n++] =
			(struct tp_field){"ret", SC_ARGS_RET, 8, true};
	fmt->size = SC_ARGS_SIZE;
}

void tp_format_free(struct tp_format *fmt)
{
	free(fmt->fields);
	memset(fmt, 0, sizeof(*fmt));
}

/* ---- the compiler ---- */

struct parser {
	const char *expr, *p, *event;
	const struct tp_format *fmt;
	struct sc_slot *slot;
};

_Noreturn static void bad(struct parser *ps, const char *what)
{
	error_exit("--filter '%s': %s at column %d", ps->expr, what,
		   (int)(ps->p - ps->expr) + 1);
}

static void skip_space(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static bool take(struct parser *ps, const char *tok)
{
	skip_space(ps);
	if (strncmp(ps->p, tok, strlen(tok)))
		return false;
	ps->p += strlen(tok);
	return true;
}

static struct sc_insn *emit(struct parser *ps, enum sc_op op)
{
	struct sc_insn *in;

	if (ps->slot->ninsns == SC_MAX_INSNS)
		bad(ps, "more than 16 comparisons and operators");
	in = &ps->slot->insns[ps->slot->ninsns++];
	memset(in, 0, sizeof(*in));
	in->op = op;
	return in;
}

/* Every field of the format, for the error that names a wrong one. */
static const char *field_list(const struct tp_format *fmt, char *buf,
			      size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < fmt->n && n < len; i++)
		if (strncmp(fmt->fields[i].name, "common_", 7))
			n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
				      fmt->fields[i].name);
	return buf;
}

/* "comm", where the record has none: the current task's. */
static const struct tp_field task_comm = {
	.name = "comm", .off = SC_COMM_OFF, .size = SB_COMM_LEN, .chars = true};

static const struct tp_field *field_named(const struct tp_format *fmt,
					  const char *name)
{
	for (unsigned i = 0; i < fmt->n; i++)
		if (!strcmp(fmt->fields[i].name, name))
			return &fmt->fields[i];
	return strcmp(name, "comm") ? NULL : &task_comm;
}

/* The field whose name starts here; exits naming an unknown one. */
static const struct tp_field *field(struct parser *ps, const char *opt)
{
	const struct tp_field *f;
	char name[64], list[512];
	size_t n = 0;

	skip_space(ps);
	while ((isalnum((unsigned char)ps->p[n]) || ps->p[n] == '_') &&
	       n < sizeof(name) - 1) {
		name[n] = ps->p[n];
		n++;
	}
	name[n] = 0;
	if (!n)
		bad(ps, "expected a field name");
	if (!(f = field_named(ps->fmt, name)))
		error_exit("%s: %s has no field '%s' (its fields: %s; and "
			   "comm, the task's)",
			   opt, ps->event, name,
			   field_list(ps->fmt, list, sizeof(list)));
	if (f->data_loc)
		error_exit("%s: %s's field '%s' is a __data_loc string, which "
			   "filters cannot read",
			   opt, ps->event, name);
	ps->p += n;
	return f;
}

static int comparison(struct parser *ps)
{
	static const char *const ops[] = {"==", "!=", "<=", ">=", "<", ">"};
	static const enum sc_cmp cmps[] = {SC_EQ, SC_NE, SC_LE,
					   SC_GE, SC_LT, SC_GT};

	for (size_t i = 0; i < ARRAY_SIZE(ops); i++)
		if (take(ps, ops[i]))
			return cmps[i];
	bad(ps, "expected ==, !=, <, <=, > or >=");
}

static void string_compare(struct parser *ps, const struct tp_field *f, int cmp)
{
	struct sc_insn *in;
	const char *end;
	size_t len;

	if (!f->chars)
		bad(ps, "a string compared with a field that is not char[]");
	if (cmp != SC_EQ && cmp != SC_NE)
		bad(ps, "strings compare with == and != only");
	end = strchr(++ps->p, '"');
	if (!end)
		bad(ps, "a string without its closing quote");
	len = end - ps->p;
	if (len >= SC_STR_LEN || len >= f->size)
		bad(ps, "a string longer than the field");
	in = emit(ps, SC_OP_STR_EQ);
	in->off = f->off;
	in->size = f->size < SC_STR_LEN ? f->size : SC_STR_LEN;
	memcpy(in->str, ps->p, len);
	ps->p = end + 1;
	if (cmp == SC_NE)
		emit(ps, SC_OP_NOT);
}

static void number_compare(struct parser *ps, const struct tp_field *f, int cmp)
{
	struct sc_insn *in;
	char *end;
	long long v;

	if (f->chars || !f->size || f->size > 8 || (f->size & (f->size - 1)))
		bad(ps, "a number compared with a field that is not one");
	errno = 0;
	v = *ps->p == '-' ? strtoll(ps->p, &end, 0)
			  : (long long)strtoull(ps->p, &end, 0);
	if (end == ps->p || errno || isalnum((unsigned char)*end))
		bad(ps, "expected a number or a \"string\"");
	in = emit(ps, SC_OP_CMP);
	in->cmp = cmp;
	in->off = f->off;
	in->size = f->size;
	in->sign = f->sign;
	in->val = v;
	ps->p = end;
}

static void or_expr(struct parser *ps);

static void unary(struct parser *ps)
{
	const struct tp_field *f;
	int cmp;

	if (take(ps, "!")) {
		unary(ps);
		emit(ps, SC_OP_NOT);
		return;
	}
	if (take(ps, "(")) {
		or_expr(ps);
		if (!take(ps, ")"))
			bad(ps, "expected ')'");
		return;
	}
	f = field(ps, "--filter");
	cmp = comparison(ps);
	skip_space(ps);
	if (*ps->p == '"')
		string_compare(ps, f, cmp);
	else
		number_compare(ps, f, cmp);
}

static void and_expr(struct parser *ps)
{
	unary(ps);
	while (take(ps, "&&")) {
		unary(ps);
		emit(ps, SC_OP_AND);
	}
}

static void or_expr(struct parser *ps)
{
	and_expr(ps);
	while (take(ps, "||")) {
		and_expr(ps);
		emit(ps, SC_OP_OR);
	}
}

static void need_record(const struct tp_format *fmt, unsigned end,
			const char *event)
{
	if (end > SC_REC_MAX)
		error_exit("%s: a field ends at byte %u of its record; filters "
			   "read the first %d",
			   event, end, SC_REC_MAX);
	(void)fmt;
}

void sc_filter_compile(const char *expr, const char *event,
		       const struct tp_format *fmt, struct sc_slot *slot)
{
	struct parser ps = {expr, expr, event, fmt, slot};

	slot->ninsns = 0;
	or_expr(&ps);
	skip_space(&ps);
	if (*ps.p)
		bad(&ps, "unexpected text");
	for (unsigned i = 0; i < slot->ninsns; i++)
		if (slot->insns[i].op <= SC_OP_STR_EQ &&
		    slot->insns[i].off != SC_COMM_OFF)
			need_record(fmt,
				    slot->insns[i].off + slot->insns[i].size,
				    event);
	slot->rec_size = fmt->size < SC_REC_MAX ? fmt->size : SC_REC_MAX;
}

void sc_value_field(const char *name, const char *event,
		    const struct tp_format *fmt, struct sc_slot *slot)
{
	struct parser ps = {name, name, event, fmt, slot};
	const struct tp_field *f = field(&ps, "--value");

	if (*ps.p)
		error_exit("--value '%s': not a field name", name);
	if (f->chars || !f->size || f->size > 8 || (f->size & (f->size - 1)))
		error_exit("--value: %s's field '%s' is not a number", event,
			   name);
	need_record(fmt, f->off + f->size, event);
	slot->value_off = f->off;
	slot->value_size = f->size;
	slot->value_sign = f->sign;
	slot->rec_size = fmt->size < SC_REC_MAX ? fmt->size : SC_REC_MAX;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The option parser. An applet's option table is the only declaration of
 * its options: names, argument, parser, range, default and conflicts, so
 * everything is validated before the applet's main runs.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stackbox.h"

static const char *name_of(const struct opt *o)
{
	static char buf[2][64];
	static int i;

	i ^= 1;
	if (o->short_name)
		snprintf(buf[i], sizeof(buf[i]), "-%c", o->short_name);
	else
		snprintf(buf[i], sizeof(buf[i]), "--%s", o->long_name);
	return buf[i];
}

const char *opt_flag(const struct opt *o, const char *arg, void *dst)
{
	(*(int *)dst)++;
	return NULL;
}

static const char *check_range(const struct opt *o, long long v)
{
	static char msg[96];

	if (o->min == o->max || (v >= o->min && v <= o->max))
		return NULL;
	snprintf(msg, sizeof(msg), "must be between %lld and %lld", o->min,
		 o->max);
	return msg;
}

const char *opt_int(const struct opt *o, const char *arg, void *dst)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (end == arg || *end || errno)
		return "not a whole number";
	*(long long *)dst = v;
	return check_range(o, v);
}

const char *parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *suffix;
		double scale;
	} units[] = {
		{"", 1e9}, {"s", 1e9},	{"ms", 1e6},   {"us", 1e3},
		{"ns", 1}, {"m", 60e9}, {"h", 3600e9},
	};
	char *end;
	double v;

	if (*s == '-' || *s == '+' || !*s)
		return "not a duration (10, 10s, 500ms, 1.5m)";
	errno = 0;
	v = strtod(s, &end);
	/* strtod skips leading spaces: " -5" is negative too */
	if (end == s || errno || !isfinite(v) || v < 0)
		return "not a duration (10, 10s, 500ms, 1.5m)";
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		v *= units[i].scale;
		if (v >= 1.8e19)
			return "too long";
		*ns = (uint64_t)(v + 0.5);
		return NULL;
	}
	return "unknown unit (use ns, us, ms, s, m or h)";
}

char *format_duration(char *buf, size_t len, uint64_t ns)
{
	static const struct {
		const char *suffix;
		double scale;
	} units[] = {{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1}};
	size_t i = 0;

	while (i + 1 < ARRAY_SIZE(units) && ns < units[i].scale)
		i++;
	snprintf(buf, len, "%g%s", ns / units[i].scale, units[i].suffix);
	return buf;
}

/* An error that carries its own fix: said in one line, without the
 * pointer to --help (take()). */
static char hinted[96];

/* A number without a unit; 0 is 0 in every unit, so not one of them. */
static bool bare_number(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	return end != s && !*end && v != 0;
}

const char *opt_duration(const struct opt *o, const char *arg, void *dst)
{
	static char msg[96];
	uint64_t ns;
	const char *err;

	if ((o->flags & OPT_UNIT) && bare_number(arg)) {
		snprintf(hinted, sizeof(hinted),
			 "needs a unit (%s 1ms, 500us, 2s)", name_of(o));
		return hinted;
	}
	if ((err = parse_duration(arg, &ns)))
		return err;
	if (o->min != o->max &&
	    (ns < (uint64_t)o->min || ns > (uint64_t)o->max)) {
		if (!ns)
			return "must be longer than 0";
		char lo[32], hi[32];

		snprintf(msg, sizeof(msg), "must be between %s and %s",
			 format_duration(lo, sizeof(lo), o->min),
			 format_duration(hi, sizeof(hi), o->max));
		return msg;
	}
	*(uint64_t *)dst = ns;
	return NULL;
}

const char *opt_string(const struct opt *o, const char *arg, void *dst)
{
	if (!*arg)
		return "must not be empty";
	*(const char **)dst = arg;
	return NULL;
}

int name_index(const struct opt_names *t, const char *s)
{
	for (unsigned i = 0; i < t->n; i++)
		if (t->name[i] && !strcmp(s, t->name[i]))
			return i;
	return -1;
}

const char *opt_name(const struct opt *o, const char *arg, void *dst)
{
	const struct opt_names *t = o->data;
	int i = name_index(t, arg);

	if (i < 0)
		return t->err;
	*(int *)dst = i;
	return NULL;
}

const char *opt_name_list(const struct opt *o, const char *arg, void *dst)
{
	const struct opt_names *t = o->data;
	char *copy = xstrdup(arg), *tok = copy, *comma;
	int mask = 0, i;

	do {
		comma = strchr(tok, ',');
		if (comma)
			*comma = 0;
		i = name_index(t, tok);
		mask = i < 0 ? 0 : mask | 1 << i;
		tok = comma + 1;
	} while (comma && mask);
	free(copy);
	if (!mask)
		return t->err;
	*(int *)dst = mask;
	return NULL;
}

const char *opt_pids(const struct opt *o, const char *arg, void *dst)
{
	struct pid_list *p = dst;
	size_t cap = p->n;

	for (const char *s = arg; *s;) {
		char *end;
		long v;

		errno = 0;
		v = strtol(s, &end, 10);
		if (end == s || (*end && *end != ',') || v <= 0 ||
		    v > 0x3fffffff || errno)
			return "not a process id (PID[,PID...])";
		p->pid = grow_array(p->pid, &cap, p->n + 1, sizeof(*p->pid));
		p->pid[p->n++] = v;
		s = *end ? end + 1 : end;
	}
	return p->n ? NULL : "no process id given";
}

const char *opt_format(const struct opt *o, const char *arg, void *dst)
{
	static const char *const names[] = {
		[FORMAT_TEXT] = "text", [FORMAT_FOLDED] = "folded",
		[FORMAT_BIN] = "bin",	[FORMAT_PPROF] = "pprof",
		[FORMAT_SVG] = "svg",	[FORMAT_JSON] = "json",
		[FORMAT_HTML] = "html",
	};
	static const bool built[] = {
		[FORMAT_TEXT] = ENABLE_FORMAT_TEXT,
		[FORMAT_FOLDED] = ENABLE_FORMAT_FOLDED,
		[FORMAT_BIN] = ENABLE_FORMAT_BIN,
		[FORMAT_PPROF] = true,
		[FORMAT_SVG] = ENABLE_FORMAT_FOLDED,
		[FORMAT_JSON] = true,
		[FORMAT_HTML] = ENABLE_FORMAT_FOLDED,
	};
	const struct opt_formats *f = o->data;
	const struct opt_names t = {names, ARRAY_SIZE(names)};
	int i = name_index(&t, arg);

	if (i < 0 || !(f->mask & 1u << i))
		return f->err;
	if ((i == FORMAT_SVG || i == FORMAT_HTML) && !built[i])
		return "svg and html need the folded format in the build";
	if (!built[i])
		return "not in this build (see its configuration)";
	*(int *)dst = i;
	return NULL;
}

double parse_size(const char *s, char **end)
{
	double v = strtod(s, end);

	switch (**end) {
	case 'k':
	case 'K':
		v *= 1024, (*end)++;
		break;
	case 'm':
	case 'M':
		v *= 1024 * 1024, (*end)++;
		break;
	case 'g':
	case 'G':
		v *= 1024 * 1024 * 1024, (*end)++;
		break;
	}
	return v;
}

/* Options are found through nested tables; base is the args struct. */
struct found {
	const struct opt *o;
	char *dst;
};

static int find(const struct opt *tbl, char *base, char s, const char *l,
		size_t llen, struct found *f)
{
	for (; tbl->parse || tbl->include; tbl++) {
		if (tbl->include) {
			if (find(tbl->include, base + tbl->offset, s, l, llen,
				 f))
				return 1;
			continue;
		}
		if ((s && tbl->short_name == s) ||
		    (l && tbl->long_name && strlen(tbl->long_name) == llen &&
		     !strncmp(tbl->long_name, l, llen))) {
			f->o = tbl;
			f->dst = base + tbl->offset;
			return 1;
		}
	}
	return 0;
}

static void apply_defaults(const struct opt *tbl, char *base)
{
	for (; tbl->parse || tbl->include; tbl++) {
		if (tbl->include)
			apply_defaults(tbl->include, base + tbl->offset);
		else if (tbl->dflt &&
			 tbl->parse(tbl, tbl->dflt, base + tbl->offset))
			error_exit("bad default for option %s", tbl->long_name);
	}
}

/* The help at the end of the first table tbl includes, or "". */
static const char *included_help(const struct opt *tbl)
{
	for (; tbl->parse || tbl->include; tbl++) {
		if (tbl->include) {
			const struct opt *end = tbl->include;

			while (end->parse || end->include)
				end++;
			return end->help ? end->help : "";
		}
	}
	return "";
}

static void print_usage(const struct opt *tbl, const char *usage)
{
	const char *p = usage, *nl;

	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		/* "@COMMON" stands for the options every collector takes */
		if (nl - p == 7 && !strncmp(p, "@COMMON", 7))
			fputs(included_help(tbl), stdout);
		else
			fwrite(p, 1, nl - p + (*nl == '\n'), stdout);
		if (!*nl)
			break;
	}
}

/* One command line per process (the applet's), so one string: the
 * collector reads it once its header is written (collect.c). */
static char shown[512];

const char *opts_shown(void)
{
	return shown;
}

/* An OPT_SHOWN option as given; a value equal to the default filters
 * nothing (--state S,D,R) and is left out. */
static void show(const struct opt *o, const char *arg)
{
	size_t n = strlen(shown);

	if (arg && o->dflt && !strcmp(arg, o->dflt))
		return;
	snprintf(shown + n, sizeof(shown) - n, "%s%s%s%s", n ? " " : "",
		 name_of(o), arg ? " " : "", arg ? arg : "");
}

static void take(struct found *f, const char *arg, const struct opt **seen,
		 size_t *nseen)
{
	const char *err = f->o->parse(f->o, arg, f->dst);

	if (err == hinted) {
		error_msg("%s %s: %s", name_of(f->o), arg, err);
		exit(2);
	}
	if (err)
		help_exit("%s %s: %s", name_of(f->o), arg ? arg : "", err);
	if (f->o->flags & OPT_SHOWN)
		show(f->o, arg);
	seen[(*nseen)++] = f->o;
}

static void check_conflicts(const struct opt **seen, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!seen[i]->conflicts)
			continue;
		for (size_t j = 0; j < n; j++)
			if (seen[j]->short_name &&
			    strchr(seen[i]->conflicts, seen[j]->short_name))
				help_exit("%s and %s cannot be used together",
					  name_of(seen[i]), name_of(seen[j]));
	}
}

int opts_parse(const struct opt *tbl, void *args, int argc, char **argv,
	       const char *usage)
{
	const struct opt **seen;
	size_t nseen = 0, most = 1;
	struct found f;
	int i;

	/* one option per argument, or per letter of -abc */
	for (i = 1; i < argc; i++)
		most += strlen(argv[i]) + 1;
	seen = xmalloc(most * sizeof(*seen));
	shown[0] = 0;

	apply_defaults(tbl, args);
	for (i = 1; i < argc; i++) {
		char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "--help")) {
			print_usage(tbl, usage);
			exit(fflush(stdout) ? 1 : 0);
		}
		if (a[0] != '-' || !a[1])
			break;
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			if (!find(tbl, args, 0, name, len, &f))
				help_exit("unknown option '%s'", a);
			if (!f.o->arg_name) {
				if (eq)
					help_exit("%s takes no value",
						  name_of(f.o));
				take(&f, NULL, seen, &nseen);
			} else if (eq) {
				take(&f, eq + 1, seen, &nseen);
			} else if (i + 1 < argc) {
				take(&f, argv[++i], seen, &nseen);
			} else {
				help_exit("%s needs a value (%s)", name_of(f.o),
					  f.o->arg_name);
			}
			continue;
		}
		/* -abc flags, -F99 or -F 99 */
		for (char *c = a + 1; *c; c++) {
			if (!find(tbl, args, *c, NULL, 0, &f))
				help_exit("unknown option '-%c'", *c);
			if (!f.o->arg_name) {
				take(&f, NULL, seen, &nseen);
				continue;
			}
			if (c[1])
				take(&f, c + 1, seen, &nseen);
			else if (i + 1 < argc)
				take(&f, argv[++i], seen, &nseen);
			else
				help_exit("%s needs a value (%s)", name_of(f.o),
					  f.o->arg_name);
			break;
		}
	}
	check_conflicts(seen, nseen);
	free(seen);
	return i;
}

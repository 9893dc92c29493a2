// SPDX-License-Identifier: GPL-2.0
/* check: what the running kernel offers each applet, before it runs.
 *
//config:config CHECK
//config:	bool "check: which applets this kernel runs, and how"
//config:	default y
//config:	help
//config:	  For the running kernel: the way each collector applet
//config:	  attaches to each of its hooks, what the better ways lack,
//config:	  and the optional kernel features with what stackbox does
//config:	  without them. Exits 0 when every configured applet can run:
//config:	  what an integrator runs on a new kernel or BSP.
//usage:usage: check [-v] [--tsv] [--btf FILE]
//usage:
//usage:One table for the running kernel. Per applet and hook: the way it
//usage:attaches (the first its kernel offers, best first), what the better
//usage:ways lack, and the ways left to fall back to; hooks an option turns
//usage:on are marked with it. Then each optional kernel feature: here or
//usage:not, what it needs and what stackbox does without it. Without root,
//usage:what only root can tell says "needs root to tell".
//usage:Exit status 0 when every configured applet can run here, else 1,
//usage:and the last line says which cannot and why.
//usage:
//usage:  --btf FILE       kernel types from FILE, as the applets' --btf
//usage:  -v               what each probe found, on stderr
//usage:  --tsv            tab-separated rows: attach APPLET HOOK WAY NOTES,
//usage:                   feature NAME yes|no|needs-root NEEDS WITHOUT,
//usage:                   verdict ok|no|needs-root TEXT
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "collector.h"
#include "kfeatures.h"
#include "mapmem.h"

struct check_args {
	int verbose;
	int tsv;
	const char *btf;
};

static const struct opt check_opts[] = {
	OPT_FLAG('v', "verbose", struct check_args, verbose),
	OPT_FLAG(0, "tsv", struct check_args, tsv),
	OPT_STRING(0, "btf", "FILE", struct check_args, btf, NULL),
	OPT_END,
};

enum verdict { RUNS, CANNOT, UNSURE };

static bool tsv;

/* One row: text pads the columns, --tsv tabs them. */
static void row(const char *kind, const char *a, const char *b, const char *c,
		const char *d)
{
	if (tsv)
		printf("%s\t%s\t%s\t%s\t%s\n", kind, a, b, c, d);
	else if (!strcmp(kind, "attach"))
		printf("%-9s %-28s %-13s %s\n", a, b, c, d);
	else
		printf("%-46s %s%s%s\n", a, b, *d ? ": " : "", d);
}

/* The ceilings no option may pass on this machine (mapmem.c). */
static void limits(void)
{
	char mib[32];

	snprintf(mib, sizeof(mib), "%.0f MiB", mem_ceiling() / (1024.0 * 1024));
	row("limit", "memory for maps and the recorder", mib, "",
	    "1/8 of RAM, at most 256 MiB");
}

/* Append to a "; "-separated list. */
static void add(char *buf, size_t len, const char *fmt, const char *a,
		const char *b)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s", n ? "; " : "");
	n = strlen(buf);
	snprintf(buf + n, len - n, fmt, a, b);
}

/* Why the kernel does not offer an alternative, in a few words. */
static const char *why_not(struct collector *c, const struct attach_alt *alt,
			   char *buf, size_t len)
{
	enum feature_answer k = collect_alt_kernel(c, alt);

	if (k == FEATURE_NEEDS_ROOT)
		return "needs root to tell";
	if (k == FEATURE_YES) /* the applet's requires() said no */
		return "the kernel lacks a field it reads";
	switch (alt->needs) {
	case KF_BTF:
		return "no kernel BTF";
	case KF_LAYOUT:
		return "no kernel types (--btf FILE)";
	case KF_TRACEPOINT:
		snprintf(buf, len, "no tracepoint %s:%s", alt->category,
			 alt->name);
		return buf;
	case KF_FENTRY:
		if (feature_usable(SB_F_FENTRY))
			break;
		return kbtf_available() ? "no fentry" : "no kernel BTF";
	case KF_KPROBE:
		if (feature_usable(SB_F_KPROBES))
			break;
		return "no kprobes";
	case KF_NONE:
		return "refused";
	}
	snprintf(buf, len, "no %s in the kernel", alt->name);
	return buf;
}

/* Was a label already named in this row (alternatives of one way to
 * attach, for other kernels' function names)? */
static bool seen(const struct attach_hook *hk, unsigned i)
{
	for (unsigned j = 0; j < i; j++)
		if (!strcmp(hk->alts[j].label, hk->alts[i].label))
			return true;
	return false;
}

/* Append alternative i of hk to a ", "-separated list, with why the
 * kernel does not offer it when it does not. */
static void list_alt(char *to, size_t len, struct collector *c,
		     const struct attach_hook *hk, int i, enum feature_answer a)
{
	char buf[160];
	size_t n = strlen(to);

	snprintf(to + n, len - n, "%s%s", n ? ", " : "", hk->alts[i].label);
	if (a != FEATURE_YES) {
		n = strlen(to);
		snprintf(to + n, len - n, " (%s)",
			 why_not(c, &hk->alts[i], buf, sizeof(buf)));
	}
}

/*
 * One hook's row, chosen as the plan chooses (collect_pick_alt): the
 * way, or the first this user cannot tell about marked '?'; why each
 * better way is not offered; the ways left to fall back to.
 */
static enum verdict check_hook(const char *applet, struct collector *c,
			       const struct attach_hook *hk, const char *option)
{
	char what[128], way[64], notes[1536] = "", buf[160];
	char fallback[512] = "", elsewhere[512] = "";
	int unsure, pick = collect_pick_alt(c, hk, 0, &unsure);
	int end = unsure >= 0 ? unsure : pick;

	option = hk->option ? hk->option : option;
	snprintf(what, sizeof(what), "%s%s%s%s", hk->what, option ? " (" : "",
		 option ? option : "", option ? ")" : "");
	if (hk->enabled && !hk->option && !hk->enabled(c, c->args)) {
		row("attach", applet, what, "-",
		    unsure >= 0 ? "needs root to tell"
				: "not needed on this kernel");
		return RUNS;
	}
	snprintf(way, sizeof(way), "%s%s",
		 end >= 0 ? hk->alts[end].label : "none",
		 unsure >= 0 ? "?" : "");
	if (unsure >= 0)
		add(notes, sizeof(notes), "%s needs root to tell%s",
		    hk->alts[unsure].label, "");
	for (int i = 0; i < end || (end < 0 && hk->alts[i].prog); i++)
		if (!seen(hk, i))
			add(notes, sizeof(notes), "no %s: %s",
			    hk->alts[i].label,
			    why_not(c, &hk->alts[i], buf, sizeof(buf)));
	for (int i = end + 1; end >= 0 && hk->alts[i].prog; i++) {
		enum feature_answer a = collect_alt_answer(c, &hk->alts[i]);

		if (!seen(hk, i) &&
		    strcmp(hk->alts[i].label, hk->alts[end].label))
			list_alt(a == FEATURE_NO ? elsewhere : fallback,
				 sizeof(fallback), c, hk, i, a);
	}
	if (*fallback)
		add(notes, sizeof(notes), "fallback %s%s", fallback, "");
	if (*elsewhere)
		add(notes, sizeof(notes), "not here: %s%s", elsewhere, "");
	row("attach", applet, what, way, *notes ? notes : "-");
	return pick >= 0 ? RUNS : unsure >= 0 ? UNSURE : CANNOT;
}

/* The features the applet's own code chooses with. */
static void check_features(const char *applet, const enum sb_feature *f)
{
	for (; f && *f != SB_F_END; f++) {
		enum feature_answer a = feature_answer(*f);
		char way[64], notes[160];

		if (!feature_built(*f))
			continue;
		if (!feature_hook(*f)) {
			row("attach", applet, feature_name(*f),
			    a == FEATURE_YES  ? "yes"
			    : a == FEATURE_NO ? "no"
					      : "?",
			    a == FEATURE_YES  ? "-"
			    : a == FEATURE_NO ? feature_without(*f)
					      : "needs root to tell");
			continue;
		}
		snprintf(way, sizeof(way), "%s%s",
			 feature_way(*f, a != FEATURE_NO),
			 a == FEATURE_NEEDS_ROOT ? "?" : "");
		if (a == FEATURE_YES)
			snprintf(notes, sizeof(notes), "fallback %s",
				 feature_way(*f, false));
		else if (a == FEATURE_NO)
			snprintf(notes, sizeof(notes), "no %s: no %s",
				 feature_way(*f, true), feature_name(*f));
		else
			snprintf(notes, sizeof(notes),
				 "%s needs root to tell; else %s",
				 feature_way(*f, true), feature_way(*f, false));
		row("attach", applet, feature_hook(*f), way, notes);
	}
}

/* Every hook of every collector the applet has; what decides whether
 * it runs is its default collector's hooks that no option turns on. */
static enum verdict check_applet(const struct applet *ap, char *why, size_t len)
{
	void *args = xzalloc(ap->args_size);
	char *argv[] = {(char *)ap->name, NULL};
	enum verdict v = RUNS;

	opts_parse(ap->opts, args, 1, argv, ap->usage); /* its defaults */
	for (const struct collector_ops *const *ops = ap->collectors; *ops;
	     ops++) {
		struct collector c = {.ops = *ops, .args = args};
		const struct attach_hook *hk = (*ops)->hooks;

		for (; hk && hk->what; hk++) {
			enum verdict h =
				check_hook(ap->name, &c, hk, (*ops)->option);

			if (h == RUNS || (*ops)->option || hk->option || v)
				continue;
			v = h;
			snprintf(why, len, "%s: %s", hk->what,
				 h == CANNOT ? "no way to attach is left"
					     : "needs root to tell");
		}
		check_features(ap->name, (*ops)->features);
	}
	free(args);
	return v;
}

/* The last line: tsv tags it with ok, no or needs-root. */
static void verdict(const char *word, const char *fmt, const char *a,
		    const char *b)
{
	if (tsv)
		printf("verdict\t%s\t", word);
	printf(fmt, a, b);
	putchar('\n');
}

static const char *answer_word(enum feature_answer a)
{
	return a == FEATURE_YES ? "yes" : a == FEATURE_NO ? "no" : "needs-root";
}

static int check_main(void *a, int argc, char **argv)
{
	struct check_args *args = a;
	char cannot[1024] = "", unsure[1024] = "", why[256];
	enum sb_feature blocker = SB_F_END;
	struct utsname u;

	if (argc)
		help_exit("unexpected argument '%s'", argv[0]);
	verbose_level = args->verbose;
	tsv = args->tsv;
	kbtf_use(args->btf);
	libbpf_log_start(); /* libbpf's own words only under -v */
	uname(&u);
	if (!tsv)
		printf("Linux %s %s, %s\n\n%-9s %-28s %-13s %s\n", u.release,
		       u.machine,
		       feature_usable(SB_F_PRIVS)
			       ? "with BPF privileges"
			       : "without BPF privileges: what is marked ? "
				 "needs root to tell",
		       "applet", "hook", "way", "missing here; fallbacks");
	for (size_t i = 0; i < applets_n; i++) {
		enum verdict v;

		if (!applets[i]->collectors)
			continue;
		why[0] = 0;
		v = check_applet(applets[i], why, sizeof(why));
		if (v != RUNS)
			add(v == CANNOT ? cannot : unsure,
			    v == CANNOT ? sizeof(cannot) : sizeof(unsure),
			    "%s (%s)", applets[i]->name, why);
	}
	if (!tsv)
		printf("\n%-46s %s\n", "feature", "here");
	for (enum sb_feature f = 0; f < SB_F_COUNT; f++) {
		enum feature_answer ans = feature_answer(f);

		if (!feature_built(f))
			continue;
		if (feature_required(f) && ans != FEATURE_YES &&
		    blocker == SB_F_END)
			blocker = f;
		if (tsv)
			row("feature", feature_name(f), answer_word(ans),
			    feature_needs(f), feature_without(f));
		else
			row("feature", feature_name(f),
			    ans == FEATURE_YES	? "yes"
			    : ans == FEATURE_NO ? "no"
						: "needs root to tell",
			    "", ans == FEATURE_YES ? "" : feature_refusal(f));
	}
	limits();
	if (!tsv)
		putchar('\n');
	if (blocker != SB_F_END)
		verdict("no", "no applet can run %s: %s",
			blocker == SB_F_PRIVS ? "as this user" : "here",
			feature_refusal(blocker));
	else if (*cannot)
		verdict("no", "cannot run here: %s%s", cannot, "");
	else if (*unsure)
		verdict("needs-root", "needs root to tell: %s%s", unsure, "");
	else
		verdict("ok", "every configured applet can run here%s%s", "",
			"");
	return fflush(stdout) || blocker != SB_F_END || *cannot || *unsure;
}

APPLET_DEFINE(check, check_main, check_opts, struct check_args);

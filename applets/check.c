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
//usage:usage: check [-v] [--tsv] [--btf FILE] [--kernel-config FILE] [--binary FILE...]
//usage:
//usage:First, per applet: whether it runs here, why not, and the kernel
//usage:memory its maps take with the default options. Then, per applet and hook: the way it
//usage:attaches (the first its kernel offers, best first), what the better
//usage:ways lack, and the ways left to fall back to; hooks an option turns
//usage:on are marked with it. Then each optional kernel feature: here or
//usage:not, what it needs and what stackbox does without it. Then the
//usage:kernel's config against the options stackbox.config asks for, and
//usage:what the binaries given (by default /sbin/init and libc) offer stack
//usage:walking: frame pointers, unwind tables, symbols, build-id. Without
//usage:root, what only root can tell says "needs root to tell".
//usage:Exit status 0 when every configured applet can run here, else 1,
//usage:and the last line says which cannot and why.
//usage:
//usage:  --btf FILE       kernel types from FILE, as the applets' --btf
//usage:  --kernel-config FILE  the kernel's config from FILE (else
//usage:                   /proc/config.gz, else /boot/config-RELEASE)
//usage:  --binary FILE... look at these files instead of /sbin/init and libc
//usage:  -v               what each probe found, on stderr
//usage:  --tsv            tab-separated rows: applet NAME ok|no|needs-root
//usage:                   MAP_BYTES WHY, attach APPLET HOOK WAY NOTES,
//usage:                   feature NAME yes|no|needs-root NEEDS WITHOUT,
//usage:                   limit ..., kconfig OPTION set|missing|unknown
//usage:                   required|optional WHAT_FOR, binary FILE FP EH_FRAME
//usage:                   DEBUG_FRAME SYMBOLS DEBUGDATA BUILD_ID UNWIND,
//usage:                   verdict ok|no|needs-root TEXT
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "applet.h"
#include "collect.h"
#include "kconfig.h"
#include "kfeatures.h"
#include "libbpf_log.h"
#include "mapmem.h"
#include "syms.h"
#include "unwind.h"
#include "unwind_walk.h"

struct check_args {
	int verbose;
	int tsv;
	const char *btf;
	const char *kconfig;
	int binary;
};

static const struct opt check_opts[] = {
	OPT_FLAG('v', "verbose", struct check_args, verbose),
	OPT_FLAG(0, "tsv", struct check_args, tsv),
	OPT_STRING(0, "btf", "FILE", struct check_args, btf, NULL),
	OPT_STRING(0, "kernel-config", "FILE", struct check_args, kconfig,
		   NULL),
	OPT_FLAG(0, "binary", struct check_args, binary),
	OPT_END,
};

enum verdict { RUNS, CANNOT, UNSURE };

/* One applet's answer, said before the table it comes from. */
struct applet_verdict {
	enum verdict v;
	char why[256];
	uint64_t maps; /* bytes with the default options; 0: unknown */
};

static bool tsv;
/* Where the attach table goes: it is written while the applets are
 * judged, and printed after their verdicts. */
static FILE *out;

/* One row: text pads the columns, --tsv tabs them. */
static void print_row(const char *kind, const char *a, const char *b,
		      const char *c, const char *d)
{
	FILE *f = out ? out : stdout;

	if (tsv)
		fprintf(f, "%s\t%s\t%s\t%s\t%s\n", kind, a, b, c, d);
	else if (!strcmp(kind, "attach"))
		fprintf(f, "%-10s %-28s %-13s %s\n", a, b, c, d);
	else
		fprintf(f, "%-46s %s%s%s\n", a, b, *d ? ": " : "", d);
}

/* The ceilings no option may pass on this machine (mapmem.c). */
static void limits(void)
{
	char mib[32];

	snprintf(mib, sizeof(mib), "%.0f MiB", mem_ceiling() / (1024.0 * 1024));
	print_row("limit", "memory for maps and the recorder", mib, "",
		  "1/8 of RAM, at most 256 MiB");
}

/* The user-stack walk the default takes for code without frame pointers
 * (unwind_walk.h): the same words as -v's. */
static void unwind_row(bool tsv)
{
	static const char name[] = "user stacks without frame pointers";
	const char *lacks = ENABLE_UNWIND_EH_FRAME ? unwind_missing() : NULL;
	struct unwind_walk w;
	char words[256] = "";

	if (!ENABLE_UNWIND_EH_FRAME) {
		snprintf(words, sizeof(words),
			 "frame pointers: this build has no table walk "
			 "(CONFIG_UNWIND_EH_FRAME)");
	} else if (lacks) {
		snprintf(words, sizeof(words),
			 "frame pointers: this kernel lacks %s, so callers in "
			 "code without frame pointers are lost",
			 lacks);
	} else if (!unwind_walk_choose(&w)) {
		strcpy(words, "the table walk: ");
		unwind_walk_words(&w, words + strlen(words),
				  sizeof(words) - strlen(words));
	}
	print_row("feature", name,
		  ENABLE_UNWIND_EH_FRAME && !lacks ? "yes" : "no",
		  tsv ? "bpf_loop (Linux 5.17) and where the user's "
			"registers are (kernel BTF, --btf, or the built-in "
			"minimal BTF)"
		      : "",
		  words);
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
	const char *sym;

	if (k == FEATURE_NEEDS_ROOT)
		return "needs root to tell";
	if (k == FEATURE_YES && alt->when) { /* not with these options */
		snprintf(buf, len, "taken with %s", alt->when);
		return buf;
	}
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
		if (!feature_usable(SB_F_FENTRY))
			return kbtf_available() ? "no fentry" : "no kernel BTF";
		if (!kbtf_has_func(alt->name) ||
		    !(sym = collect_kernel_symbol(c, alt->name)))
			break;
		/* fentry finds its function by name: not a copy's */
		snprintf(buf, len, "%s is %s here", alt->name, sym);
		return buf;
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
static bool named_before(const struct attach_hook *hk, unsigned i)
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
			       void *args, const struct attach_hook *hk,
			       const char *option)
{
	char what[128], way[64], notes[1536] = "", buf[160];
	char fallback[512] = "", elsewhere[512] = "";
	int unsure, pick = collect_pick_alt(c, hk, 0, &unsure);
	int end = unsure >= 0 ? unsure : pick;

	option = hk->option ? hk->option : option;
	snprintf(what, sizeof(what), "%s%s%s%s", hk->what, option ? " (" : "",
		 option ? option : "", option ? ")" : "");
	if (hk->enabled && !hk->option && !hk->enabled(c, args)) {
		print_row("attach", applet, what, "-",
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
		if (!named_before(hk, i))
			add(notes, sizeof(notes), "no %s: %s",
			    hk->alts[i].label,
			    why_not(c, &hk->alts[i], buf, sizeof(buf)));
	for (int i = end + 1; end >= 0 && hk->alts[i].prog; i++) {
		enum feature_answer a = collect_alt_answer(c, &hk->alts[i]);

		if (!named_before(hk, i) &&
		    strcmp(hk->alts[i].label, hk->alts[end].label))
			list_alt(a == FEATURE_NO ? elsewhere : fallback,
				 sizeof(fallback), c, hk, i, a);
	}
	if (*fallback)
		add(notes, sizeof(notes), "fallback %s%s", fallback, "");
	if (*elsewhere)
		add(notes, sizeof(notes), "not here: %s%s", elsewhere, "");
	print_row("attach", applet, what, way, *notes ? notes : "-");
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
			print_row("attach", applet, feature_name(*f),
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
		print_row("attach", applet, feature_hook(*f), way, notes);
	}
}

/* The common options in an applet's args: where its table includes
 * collect_options. */
static struct collect_opts *common_opts(const struct applet *ap, void *args)
{
	for (const struct opt *o = ap->opts; o->parse || o->include; o++)
		if (o->include == collect_options)
			return (struct collect_opts *)((char *)args +
						       o->offset);
	return NULL;
}

/* Its default collector's maps, and whether the ceiling lets them be. */
static void check_memory(const struct applet *ap, void *args,
			 struct applet_verdict *av)
{
	struct collect_opts *o = common_opts(ap, args);
	uint64_t ceiling = mem_ceiling();

	av->maps = o ? collect_maps_bytes(ap->collectors[0], o, args) : 0;
	if (av->maps <= ceiling || av->v == CANNOT)
		return;
	av->v = CANNOT;
	snprintf(av->why, sizeof(av->why),
		 "its maps take %.1f MiB, over the ceiling of %.0f MiB: "
		 "lower --stacks, --rows",
		 av->maps / 1048576.0, ceiling / 1048576.0);
}

/* Every hook of every collector the applet has; what decides whether
 * it runs is its default collector's hooks that no option turns on. */
static void check_applet(const struct applet *ap, struct applet_verdict *av)
{
	void *args = xzalloc(ap->args_size);
	char *argv[] = {(char *)ap->name, NULL};
	enum verdict v = RUNS;

	opts_parse(ap->opts, args, 1, argv, ap->usage); /* its defaults */
	for (const struct collector_ops *const *ops = ap->collectors; *ops;
	     ops++) {
		struct collector *c = collect_asking(*ops, args);
		const struct attach_hook *hk = (*ops)->hooks;

		for (; hk && hk->what; hk++) {
			enum verdict h = check_hook(ap->name, c, args, hk,
						    (*ops)->option);

			if (h == RUNS || (*ops)->option || hk->option || v)
				continue;
			v = h;
			snprintf(av->why, sizeof(av->why), "%s: %s", hk->what,
				 h == CANNOT ? "no way to attach is left"
					     : "needs root to tell");
		}
		check_features(ap->name, (*ops)->features);
		collect_asking_free(c);
	}
	av->v = v;
	check_memory(ap, args, av);
	free(args);
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

/* ---- the kernel's config against stackbox.config ---- */

struct kconfig_tally {
	unsigned set[2], all[2]; /* [required] */
	char missing[4096];
};

static void kconfig_row(const struct kconfig_want *w, bool set, void *arg)
{
	struct kconfig_tally *t = arg;
	size_t n = strlen(t->missing);

	t->all[w->required]++;
	t->set[w->required] += set;
	if (tsv)
		printf("kconfig\t%s\t%s\t%s\t%s\n", w->option,
		       set ? "set" : "missing",
		       w->required ? "required" : "optional", w->why);
	else if (!set)
		snprintf(t->missing + n, sizeof(t->missing) - n,
			 "  missing %s (%s): %s\n", w->option,
			 w->required ? "required" : "optional", w->why);
}

/* Which of the options we ship a fragment for the kernel was built
 * without, and what each costs; one line when its config is not to be
 * had (no CONFIG_IKCONFIG_PROC, no /boot). */
static void check_kconfig(const char *given)
{
	struct kconfig_tally t = {0};
	char buf[300];
	const char *path = kconfig_find(given, buf, sizeof(buf));

	if (!path || kconfig_each(path, kconfig_row, &t)) {
		snprintf(buf, sizeof(buf),
			 "%s%s: not known which options this kernel has",
			 given ? "cannot read "
			       : "no /proc/config.gz or "
				 "/boot/config-RELEASE",
			 given ? given : "");
		if (tsv)
			printf("kconfig\t-\tunknown\t-\t%s\n", buf);
		else
			printf("\nkernel config: %s\n", buf);
		return;
	}
	if (!tsv)
		printf("\nkernel config %s: %u of %u required, %u of %u "
		       "optional options of stackbox.config set\n%s",
		       path, t.set[1], t.all[1], t.set[0], t.all[0], t.missing);
}

/* ---- what the binaries offer stack walking ---- */

/* Frame records at most entries (leaf functions may go without). */
static bool has_fp(const struct elf_facts *f)
{
	return f->functions && f->fp_prologue * 2 >= f->functions;
}

/* Told only where the prologue is known, from function symbols. */
static bool fp_known(const struct elf_facts *f)
{
	return (f->machine == EM_X86_64 || f->machine == EM_AARCH64) &&
	       f->functions;
}

/* The --unwind its stacks need: fp, eh_frame or none (lost either way). */
static const char *unwind_need(const struct elf_facts *f)
{
	if (has_fp(f))
		return "fp";
	return f->eh_frame ? "eh_frame" : "none";
}

static void unwind_words(const struct elf_facts *f, char *buf, size_t len)
{
	const char *lacks = ENABLE_UNWIND_EH_FRAME ? unwind_missing()
						   : "this build "
						     "(CONFIG_UNWIND_EH_FRAME)";

	if (has_fp(f))
		snprintf(buf, len, "frame pointers walk it (--unwind fp)");
	else if (f->eh_frame && !fp_known(f))
		snprintf(buf, len,
			 "its .eh_frame table walks it, with or "
			 "without frame pointers (--unwind eh_frame)");
	else if (f->eh_frame && !lacks)
		snprintf(buf, len,
			 "its .eh_frame table (the default picks it, as "
			 "--unwind eh_frame): frame pointers lose its "
			 "functions' callers");
	else if (f->eh_frame)
		snprintf(buf, len,
			 "needs its .eh_frame table walked, which %s "
			 "lacks: its functions' callers are lost",
			 lacks);
	else
		snprintf(buf, len,
			 "its functions' callers are lost: no frame "
			 "pointers, no .eh_frame%s",
			 f->debug_frame ? " (.debug_frame is not read)" : "");
}

static void symbol_words(const struct elf_facts *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s",
		 f->symtab   ? ".symtab: every function named"
		 : f->dynsym ? ".dynsym only: exported functions named; a "
			       "debug file (build-id, .gnu_debuglink) names "
			       "the rest"
			     : "none: addresses only",
		 !f->debugdata		? ""
		 : ENABLE_MINIDEBUGINFO ? "; MiniDebugInfo (.gnu_debugdata) "
					  "names its other functions"
					: "; MiniDebugInfo (.gnu_debugdata), "
					  "which this build does not read "
					  "(MINIDEBUGINFO)");
}

static void binary_text(const char *path, const struct elf_facts *f)
{
	char buf[256];

	printf("%s\n", path);
	if (!fp_known(f))
		printf("  frame pointers   not told: %s\n",
		       f->functions ? "not an architecture whose prologue "
				      "stackbox knows"
				    : "no function symbols to look at");
	else
		printf("  frame pointers   %s: %u of %u functions set one up\n",
		       has_fp(f) ? "yes" : "no", f->fp_prologue, f->functions);
	printf("  unwind tables    .eh_frame %s, .debug_frame %s\n",
	       f->eh_frame ? "yes" : "no", f->debug_frame ? "yes" : "no");
	symbol_words(f, buf, sizeof(buf));
	printf("  symbols          %s\n", buf);
	printf("  build-id         %s\n", *f->build_id ? f->build_id : "none");
	unwind_words(f, buf, sizeof(buf));
	printf("  stacks           %s\n", buf);
}

static void check_binary(const char *path)
{
	struct elf_facts f;

	if (elf_facts(path, &f)) {
		if (tsv)
			printf("binary\t%s\terror\t%s\n", path,
			       strerror(errno));
		else
			printf("%s\n  cannot read: %s\n", path,
			       strerror(errno));
		return;
	}
	if (!tsv) {
		binary_text(path, &f);
		return;
	}
	printf("binary\t%s\t%s\t%u/%u\t%s\t%s\t%s\t%s\t%s\t%s\n", path,
	       !fp_known(&f) ? "unknown"
	       : has_fp(&f)  ? "yes"
			     : "no",
	       f.fp_prologue, f.functions, f.eh_frame ? "yes" : "no",
	       f.debug_frame ? "yes" : "no",
	       f.symtab	  ? "symtab"
	       : f.dynsym ? "dynsym"
			  : "none",
	       f.debugdata ? "yes" : "no", *f.build_id ? f.build_id : "-",
	       unwind_need(&f));
}

/* The C library a process maps: this one's, or (a static stackbox maps
 * none) init's. NULL when neither can be read. */
static char *mapped_libc(const char *maps)
{
	FILE *f = fopen(maps, "r");
	char *line = NULL, *found = NULL, *p;
	size_t cap = 0;

	while (f && !found && getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = 0;
		p = strchr(line, '/');
		if (p && (strstr(p, "/libc.so") || strstr(p, "/libc-") ||
			  strstr(p, "/ld-musl-")))
			found = xstrdup(p);
	}
	free(line);
	if (f)
		fclose(f);
	return found;
}

/* /sbin/init's file and libc: what most of the device's stacks pass. */
static void check_default_binaries(void)
{
	char *init = realpath("/sbin/init", NULL);
	char *libc = mapped_libc("/proc/self/maps");

	if (!libc)
		libc = mapped_libc("/proc/1/maps");
	if (!init && !libc)
		printf("%sno /sbin/init or libc to look at: name files with "
		       "--binary FILE...\n",
		       tsv ? "binary\t-\tunknown\t" : "");
	if (init)
		check_binary(init);
	if (libc && (!init || strcmp(init, libc)))
		check_binary(libc);
	free(init);
	free(libc);
}

static void check_binaries(int argc, char **argv)
{
	if (!tsv)
		printf("\nbinaries: what their stacks need\n");
	if (!ENABLE_SYMBOLIZE && !ENABLE_MEMSTACK) {
		printf("%sthis build reads no ELF files (CONFIG_SYMBOLIZE)\n",
		       tsv ? "binary\t-\tunknown\t" : "");
		return;
	}
	if (!argc)
		check_default_binaries();
	for (int i = 0; i < argc; i++)
		check_binary(argv[i]);
}

/* A blocking feature (no BPF privileges) answers for every applet. */
static enum sb_feature find_blocker(void)
{
	for (enum sb_feature f = 0; f < SB_F_COUNT; f++)
		if (feature_built(f) && feature_required(f) &&
		    feature_answer(f) != FEATURE_YES)
			return f;
	return SB_F_END;
}

/* The verdict rows first: what an integrator reads before the table. */
static void print_verdicts(const struct applet_verdict *av,
			   enum sb_feature blocker)
{
	static const char *const word[] = {"ok", "no", "needs-root"};
	static const char *const here[] = {"runs", "cannot", "?"};
	char mib[32], why[256];

	if (!tsv)
		printf("%-10s %-7s %10s  %s\n", "applet", "here", "maps",
		       "why not");
	for (size_t i = 0; i < applets_n; i++) {
		const struct applet_verdict *a = &av[i];
		enum verdict v = a->v;

		if (!applets[i]->collectors)
			continue;
		snprintf(why, sizeof(why), "%s", *a->why ? a->why : "-");
		if (blocker != SB_F_END) {
			v = CANNOT;
			snprintf(why, sizeof(why), "no %s",
				 feature_name(blocker));
		}
		if (tsv)
			snprintf(mib, sizeof(mib), "%llu",
				 (unsigned long long)a->maps);
		else if (a->maps)
			snprintf(mib, sizeof(mib), "%.1f MiB",
				 a->maps / 1048576.0);
		else
			snprintf(mib, sizeof(mib), "?");
		if (tsv)
			printf("applet\t%s\t%s\t%s\t%s\n", applets[i]->name,
			       word[v], mib, why);
		else
			printf("%-10s %-7s %10s%s%s\n", applets[i]->name,
			       here[v], mib, v == RUNS ? "" : "  ",
			       v == RUNS ? "" : why);
	}
}

/* Judge every applet, its attach rows kept for after the verdicts. */
static char *judge_applets(struct applet_verdict *av, size_t *len)
{
	char *table = NULL;

	out = open_memstream(&table, len);
	if (!out)
		perror_exit("open_memstream");
	if (!tsv)
		fprintf(out, "%-10s %-28s %-13s %s\n", "applet", "hook", "way",
			"missing here; fallbacks");
	for (size_t i = 0; i < applets_n; i++)
		if (applets[i]->collectors)
			check_applet(applets[i], &av[i]);
	fclose(out);
	out = NULL;
	return table;
}

static void print_features(void)
{
	if (!tsv)
		printf("\n%-46s %s\n", "feature", "here");
	for (enum sb_feature f = 0; f < SB_F_COUNT; f++) {
		enum feature_answer ans = feature_answer(f);

		if (!feature_built(f))
			continue;
		if (tsv)
			print_row("feature", feature_name(f), answer_word(ans),
				  feature_needs(f), feature_without(f));
		else
			print_row("feature", feature_name(f),
				  ans == FEATURE_YES  ? "yes"
				  : ans == FEATURE_NO ? "no"
						      : "needs root to tell",
				  "",
				  ans == FEATURE_YES ? "" : feature_refusal(f));
	}
	unwind_row(tsv);
	limits();
}

/* The last line, and the exit status: 0 when every applet can run. */
static int final_verdict(const struct applet_verdict *av,
			 enum sb_feature blocker)
{
	char cannot[1024] = "", unsure[1024] = "";

	for (size_t i = 0; i < applets_n; i++)
		if (applets[i]->collectors && av[i].v != RUNS)
			add(av[i].v == CANNOT ? cannot : unsure,
			    av[i].v == CANNOT ? sizeof(cannot) : sizeof(unsure),
			    "%s (%s)", applets[i]->name, av[i].why);
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
	return blocker != SB_F_END || *cannot || *unsure;
}

static int check_main(void *a, int argc, char **argv)
{
	struct check_args *args = a;
	struct applet_verdict *av = xzalloc(applets_n * sizeof(*av));
	enum sb_feature blocker;
	struct utsname u;
	size_t len;
	char *table;
	int rc;

	if (argc && !args->binary)
		help_exit("unexpected argument '%s'", argv[0]);
	if (args->binary && !argc)
		help_exit("--binary: name at least one FILE");
	verbose_level = args->verbose;
	tsv = args->tsv;
	kbtf_use(args->btf);
	libbpf_log_start(); /* libbpf's own words only under -v */
	uname(&u);
	if (!tsv)
		printf("Linux %s %s, %s\n\n", u.release, u.machine,
		       feature_usable(SB_F_PRIVS)
			       ? "with BPF privileges"
			       : "without BPF privileges: what is marked ? "
				 "needs root to tell");
	blocker = find_blocker();
	table = judge_applets(av, &len);
	print_verdicts(av, blocker);
	if (!tsv)
		putchar('\n');
	fwrite(table, 1, len, stdout);
	free(table);
	print_features();
	check_kconfig(args->kconfig);
	check_binaries(argc, argv);
	rc = final_verdict(av, blocker);
	free(av);
	return fflush(stdout) || rc;
}

APPLET_DEFINE(check, check_main, check_opts, struct check_args);

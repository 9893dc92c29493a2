// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols from /proc/kallsyms.
 *
 * A kallsyms line is "ADDR TYPE NAME" or "ADDR TYPE NAME\t[MODULE]". Only
 * text symbols (t T w W, from vmlinux, modules and [bpf] alike) name
 * functions; every other symbol still marks where the function before it
 * stops, so an address in rodata after _etext does not come out as
 * "_etext+0x1f4000". The table is two parallel arrays sorted by address
 * (addresses for the binary search, name offsets into one string pool):
 * about 12 bytes a symbol plus its name, with no per-symbol allocation.
 * Loading holds little more than the table (3.3 MB for 122k lines): 32
 * bytes for each line out of address order while those are sorted. It
 * happens at the first kernel frame, on top of every process's symbols.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stackbox.h"
#include "syms.h"
#include "u64map.h"

/* Name offset of an entry that only ends the function before it. */
#define KSYM_GAP UINT32_MAX
/*
 * While loading, an entry's name word also carries its class (the top 4
 * bits of ksym_rank(): underscores and kind; 15 is a gap), so names are
 * offsets below 256 MiB: kallsyms has some 3 MiB of them.
 */
#define KSYM_CLASS_SHIFT 28
#define KSYM_OFFSET_MASK ((1u << KSYM_CLASS_SHIFT) - 1)
/*
 * The biggest functions of a distribution kernel are some 20 KiB. Past
 * this offset an address is in something kallsyms does not list (a BPF
 * program without kallsyms, padding after an end marker, the area past
 * the last module), not in the symbol before it.
 */
#define KSYM_MAX_REACH (256 * 1024)

struct ksyms {
	uint64_t *addr; /* sorted, one entry per address */
	uint32_t *name; /* offset in pool, or KSYM_GAP */
	size_t n;
	char *pool;
	/* ksyms_exact(): the caller's, instead of the arrays above */
	const struct u64map *index;
	const char *const *names;
};

/* A line of the unsorted tail while it is sorted; rank as ksym_rank(). */
struct kraw {
	uint64_t addr;
	uint32_t name;
	uint32_t rank;
};

/*
 * Lines go straight into the table's own arrays, in file order: kallsyms
 * lists vmlinux sorted by address, so only what follows the first step
 * back (modules, BPF programs, trampolines) needs sorting, and the table
 * is never copied whole while it loads.
 */
struct kload {
	struct ksyms *ks;
	size_t cap;
	size_t sorted; /* ks->addr[0, sorted) is in order */
	size_t pool_len, pool_cap;
	size_t last, last_len; /* the name stored last, with its NUL */
};

/*
 * Several names at one address (_stext, _text and the first function):
 * prefer text to gaps, then fewer leading underscores (markers and
 * internal aliases have them), then global over weak over local, then
 * file order. Lower is better.
 */
static uint32_t ksym_rank(char type, const char *name, size_t seq)
{
	uint32_t kind = 0, u = 0;

	switch (type) {
	case 'T':
		break;
	case 'W':
		kind = 1;
		break;
	case 't':
	case 'w':
		kind = 2;
		break;
	default:
		kind = 3;
		break;
	}
	while (name[u] == '_' && u < 3)
		u++;
	if (kind == 3)
		u = 3;
	/* 2 bits gap-or-underscores, 2 bits kind, then file order */
	return u << 30 | kind << 28 | (uint32_t)(seq & KSYM_OFFSET_MASK);
}

static uint32_t ksym_class(uint32_t word)
{
	return word >> KSYM_CLASS_SHIFT;
}

/* The name word as the table keeps it: without the class. */
static uint32_t ksym_final(uint32_t word)
{
	return word == KSYM_GAP ? KSYM_GAP : word & KSYM_OFFSET_MASK;
}

static bool ksym_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/*
 * Split "ADDR TYPE NAME[\t[MODULE]]" in place. Anything else (short,
 * non-hex, a type that is not a single letter) is not a symbol line.
 */
static bool ksym_parse(char *line, uint64_t *addr, char *type, char **name)
{
	char *p, *end;

	if (!isxdigit((unsigned char)line[0]))
		return false;
	errno = 0;
	*addr = strtoull(line, &end, 16);
	if (errno || *end != ' ')
		return false;
	p = end + 1;
	if (!isalpha((unsigned char)p[0]) || p[1] != ' ')
		return false;
	*type = p[0];
	p += 2;
	end = p + strcspn(p, " \t\r\n");
	if (end == p)
		return false;
	*end = 0;
	*name = p;
	return true;
}

/* The pool offset of NAME, stored unless it ends the name stored last. */
static uint32_t ksym_name(struct kload *ld, const char *name, size_t len)
{
	struct ksyms *ks = ld->ks;

	/*
	 * Since 6.2 almost every function follows its own "__pfx_" padding
	 * symbol: point into the tail of that name instead of copying it
	 * again, which saves about a third of the pool.
	 */
	if (ld->last_len >= len &&
	    !memcmp(ks->pool + ld->last + ld->last_len - len, name, len))
		return ld->last + ld->last_len - len;
	ks->pool = grow_array(ks->pool, &ld->pool_cap, ld->pool_len + len, 1);
	memcpy(ks->pool + ld->pool_len, name, len);
	ld->last = ld->pool_len;
	ld->last_len = len;
	ld->pool_len += len;
	return ld->last;
}

static void ksym_add(struct kload *ld, uint64_t addr, char type,
		     const char *name)
{
	struct ksyms *ks = ld->ks;
	size_t len = strlen(name) + 1;
	uint32_t word = ksym_rank(type, name, 0);

	if (ld->pool_len + len > KSYM_OFFSET_MASK || ks->n >= KSYM_OFFSET_MASK)
		return;
	if (ksym_is_text(type))
		word |= ksym_name(ld, name, len);
	else
		word = KSYM_GAP;
	if (ks->n == ld->cap) {
		ks->addr = grow_array(ks->addr, &ld->cap, ks->n + 1,
				      sizeof(*ks->addr));
		ks->name = xrealloc(ks->name, ld->cap * sizeof(*ks->name));
	}
	if (ld->sorted == ks->n && (!ks->n || ks->addr[ks->n - 1] <= addr))
		ld->sorted++;
	ks->addr[ks->n] = addr;
	ks->name[ks->n] = word;
	ks->n++;
}

static int kraw_cmp(const void *a, const void *b)
{
	const struct kraw *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/*
 * Sort the tail after the sorted head (kallsyms' modules and BPF
 * programs: a few hundred lines to a few tens of thousands), then merge
 * the two from the back. At one address the head's entries come first:
 * they were first in the file.
 */
static void ksym_sort_tail(struct ksyms *ks, size_t head)
{
	size_t tail = ks->n - head, i = head, j = tail, k = ks->n;
	struct kraw *raw;

	if (!tail)
		return;
	raw = xmalloc(tail * sizeof(*raw));
	for (size_t t = 0; t < tail; t++) {
		uint32_t word = ks->name[head + t];

		raw[t].addr = ks->addr[head + t];
		raw[t].name = word;
		raw[t].rank = ksym_class(word) << KSYM_CLASS_SHIFT | t;
	}
	qsort(raw, tail, sizeof(*raw), kraw_cmp);
	while (j) {
		if (i && ks->addr[i - 1] > raw[j - 1].addr) {
			i--;
			ks->addr[--k] = ks->addr[i];
			ks->name[k] = ks->name[i];
		} else {
			j--;
			ks->addr[--k] = raw[j].addr;
			ks->name[k] = raw[j].name;
		}
	}
	free(raw);
}

/*
 * Keep the best entry of each address (lowest class, then first), and of
 * a run of gaps only the first: a gap matters only as the end of the
 * function before it. In place: the table only shrinks.
 */
static void ksym_build(struct kload *ld)
{
	struct ksyms *ks = ld->ks;
	size_t i = 0, j, best, n = 0;

	ksym_sort_tail(ks, ld->sorted);
	while (i < ks->n) {
		for (best = j = i; j < ks->n && ks->addr[j] == ks->addr[i]; j++)
			if (ksym_class(ks->name[j]) <
			    ksym_class(ks->name[best]))
				best = j;
		if (ks->name[best] != KSYM_GAP ||
		    (n && ks->name[n - 1] != KSYM_GAP)) {
			ks->addr[n] = ks->addr[i];
			ks->name[n] = ksym_final(ks->name[best]);
			n++;
		}
		i = j;
	}
	ks->n = n;
	ks->addr = xrealloc(ks->addr, n * sizeof(*ks->addr));
	ks->name = xrealloc(ks->name, n * sizeof(*ks->name));
	ks->pool = xrealloc(ks->pool, ld->pool_len);
}

struct ksyms *ksyms_load(const char *path)
{
	struct kload ld = {0};
	char *line = NULL, *name;
	size_t line_cap = 0;
	uint64_t addr;
	char type;
	FILE *f = fopen(path, "re");

	if (!f)
		return NULL;
	ld.ks = xzalloc(sizeof(*ld.ks));
	while (getline(&line, &line_cap, f) > 0) {
		/* kptr_restrict shows every address as zero: nothing to keep */
		if (ksym_parse(line, &addr, &type, &name) && addr)
			ksym_add(&ld, addr, type, name);
	}
	free(line);
	fclose(f);
	ksym_build(&ld);
	verbose("%s: %zu kernel symbols", path, ld.ks->n);
	return ld.ks;
}

const char *ksyms_lookup(const struct ksyms *ks, uint64_t addr,
			 uint64_t *offset)
{
	size_t lo = 0, hi = ks ? ks->n : 0, mid;
	uint64_t i;

	if (ks && ks->index) {
		if (!u64map_get(ks->index, addr, &i))
			return NULL;
		if (offset)
			*offset = 0;
		return ks->names[i - 1];
	}
	/* the last entry whose address is <= addr */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ks->addr[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || ks->name[lo - 1] == KSYM_GAP ||
	    addr - ks->addr[lo - 1] >= KSYM_MAX_REACH)
		return NULL;
	if (offset)
		*offset = addr - ks->addr[lo - 1];
	return ks->pool + ks->name[lo - 1];
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->addr);
	free(ks->name);
	free(ks->pool);
	free(ks);
}

struct ksyms *ksyms_exact(const struct u64map *index, const char *const *names)
{
	struct ksyms *ks = xzalloc(sizeof(*ks));

	ks->index = index;
	ks->names = names;
	return ks;
}

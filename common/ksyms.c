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
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stackbox.h"
#include "syms.h"

/* Name offset of an entry that only ends the function before it. */
#define KSYM_GAP UINT32_MAX
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
};

/* One parsed line while loading; rank orders aliases, best first. */
struct kraw {
	uint64_t addr;
	uint32_t name;
	uint32_t rank;
};

struct kload {
	struct kraw *raw;
	size_t n, cap;
	char *pool;
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
	return u << 30 | kind << 28 | (uint32_t)(seq & 0x0fffffff);
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

static void ksym_add(struct kload *ld, uint64_t addr, char type,
		     const char *name)
{
	struct kraw *r;
	size_t len = strlen(name) + 1;

	/* Offsets are 32 bits: 4 GiB of names is not a kallsyms file. */
	if (ld->pool_len + len >= KSYM_GAP || ld->n >= 0x0fffffff)
		return;
	ld->raw = grow_array(ld->raw, &ld->cap, ld->n + 1, sizeof(*ld->raw));
	r = &ld->raw[ld->n];
	r->addr = addr;
	r->rank = ksym_rank(type, name, ld->n);
	r->name = KSYM_GAP;
	ld->n++;
	if (!ksym_is_text(type))
		return;
	/*
	 * Since 6.2 almost every function follows its own "__pfx_" padding
	 * symbol: point into the tail of that name instead of copying it
	 * again, which saves about a third of the pool.
	 */
	if (ld->last_len >= len &&
	    !memcmp(ld->pool + ld->last + ld->last_len - len, name, len)) {
		r->name = ld->last + ld->last_len - len;
		return;
	}
	ld->pool = grow_array(ld->pool, &ld->pool_cap, ld->pool_len + len, 1);
	memcpy(ld->pool + ld->pool_len, name, len);
	r->name = ld->last = ld->pool_len;
	ld->last_len = len;
	ld->pool_len += len;
}

static int kraw_cmp(const void *a, const void *b)
{
	const struct kraw *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/*
 * Keep the best entry of each address, and of a run of gaps only the
 * first: a gap matters only as the end of the function before it.
 */
static void ksym_build(struct ksyms *ks, struct kload *ld)
{
	size_t i, n = 0;

	if (ld->n)
		qsort(ld->raw, ld->n, sizeof(*ld->raw), kraw_cmp);
	ks->addr = xmalloc(ld->n * sizeof(*ks->addr));
	ks->name = xmalloc(ld->n * sizeof(*ks->name));
	for (i = 0; i < ld->n; i++) {
		const struct kraw *r = &ld->raw[i];

		if (n && ks->addr[n - 1] == r->addr)
			continue;
		if (r->name == KSYM_GAP && (!n || ks->name[n - 1] == KSYM_GAP))
			continue;
		ks->addr[n] = r->addr;
		ks->name[n] = r->name;
		n++;
	}
	ks->n = n;
	ks->addr = xrealloc(ks->addr, n * sizeof(*ks->addr));
	ks->name = xrealloc(ks->name, n * sizeof(*ks->name));
	ks->pool = xrealloc(ld->pool, ld->pool_len);
	ld->pool = NULL;
}

struct ksyms *ksyms_load(const char *path)
{
	struct kload ld = {0};
	struct ksyms *ks;
	char *line = NULL, *name;
	size_t line_cap = 0;
	uint64_t addr;
	char type;
	FILE *f = fopen(path, "re");

	if (!f)
		return NULL;
	while (getline(&line, &line_cap, f) > 0) {
		/* kptr_restrict shows every address as zero: nothing to keep */
		if (ksym_parse(line, &addr, &type, &name) && addr)
			ksym_add(&ld, addr, type, name);
	}
	free(line);
	fclose(f);
	ks = xzalloc(sizeof(*ks));
	ksym_build(ks, &ld);
	free(ld.raw);
	free(ld.pool);
	verbose("%s: %zu kernel symbols", path, ks->n);
	return ks;
}

const char *ksyms_lookup(const struct ksyms *ks, uint64_t addr,
			 uint64_t *offset)
{
	size_t lo = 0, hi = ks ? ks->n : 0, mid;

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

struct ksyms *ksyms_from_pairs(const uint64_t *addr, const char *const *name,
			       size_t n)
{
	struct kload ld = {0};
	struct ksyms *ks = xzalloc(sizeof(*ks));

	for (size_t i = 0; i < n; i++) {
		ksym_add(&ld, addr[i], 'T', name[i]);
		/* a gap right after: no other address falls into it */
		ksym_add(&ld, addr[i] + 1, 'd', "-");
	}
	ksym_build(ks, &ld);
	free(ld.raw);
	free(ld.pool);
	return ks;
}

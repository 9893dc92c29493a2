// SPDX-License-Identifier: GPL-2.0
/*
 * .eh_frame to rows: run every FDE's call frame program (DWARF 4, section
 * 6.4, as the LSB amends it for .eh_frame) and write down the rule for
 * the CFA, the frame pointer and the return address at every address
 * where it changes. Only what an unwinder can follow cheaply is kept:
 * the CFA as a register plus an offset, and registers saved at an offset
 * from the CFA; anything else is marked so the unwinder stops there
 * instead of guessing.
 *
 * Files are untrusted: every read is bounded by the section, every
 * count by what is left of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ehframe.h"
#include "rootfs.h"
#include "stackbox.h"

#define STATE_STACK 8 /* DW_CFA_remember_state nesting kept */

/* DWARF register numbers of the three registers followed */
struct regs {
	unsigned sp, fp, ra;
};

enum rule_kind { RULE_SAME, RULE_OFFSET, RULE_UNDEF, RULE_OTHER };
struct rule {
	enum rule_kind kind;
	int64_t off;
};

struct cfa_state {
	unsigned cfa_reg;
	int64_t cfa_off;
	bool cfa_other; /* an expression */
	struct rule fp, ra;
};

struct cursor {
	const uint8_t *p, *end;
	uint64_t vaddr; /* the vaddr of p, for pc-relative pointers */
	bool bad;
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	unsigned ra_reg;
	uint8_t fde_enc;
	bool has_aug_data; /* "z": FDEs carry an augmentation length */
	const uint8_t *insns, *insns_end;
};

struct table {
	struct cfa_row *rows;
	size_t n, cap;
};

static void skip(struct cursor *c, uint64_t n)
{
	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		c->p = c->end;
		return;
	}
	c->p += n;
	c->vaddr += n;
}

static uint64_t u(struct cursor *c, unsigned size)
{
	uint64_t v = 0;

	if (c->bad || size > (size_t)(c->end - c->p)) {
		c->bad = true;
		return 0;
	}
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)c->p[i] << (8 * i); /* both targets: little */
	skip(c, size);
	return v;
}

/* LEB128's 7-bit groups; *shift and *last tell sleb where the sign is. */
static uint64_t leb(struct cursor *c, unsigned *shift, uint8_t *last)
{
	uint64_t v = 0;

	*shift = 0;
	do {
		*last = u(c, 1);
		if (*shift < 64)
			v |= (uint64_t)(*last & 0x7f) << *shift;
		*shift += 7;
	} while (*last & 0x80 && !c->bad);
	return v;
}

static uint64_t uleb(struct cursor *c)
{
	unsigned shift;
	uint8_t last;

	return leb(c, &shift, &last);
}

static int64_t sleb(struct cursor *c)
{
	unsigned shift;
	uint8_t last;
	uint64_t v = leb(c, &shift, &last);

	if (shift < 64 && (last & 0x40))
		v |= ~0ULL << shift;
	return (int64_t)v;
}

/* A DW_EH_PE_* encoded pointer: absolute or pc-relative only. */
static uint64_t encoded(struct cursor *c, uint8_t enc)
{
	uint64_t base = c->vaddr, v;

	if (enc == 0xff) /* DW_EH_PE_omit */
		return 0;
	switch (enc & 0x0f) {
	case 0x00:
		v = u(c, 8);
		break;
	case 0x01:
		v = uleb(c);
		break;
	case 0x02:
		v = u(c, 2);
		break;
	case 0x03:
		v = u(c, 4);
		break;
	case 0x04:
		v = u(c, 8);
		break;
	case 0x09:
		v = sleb(c);
		break;
	case 0x0a:
		v = (uint64_t)(int16_t)u(c, 2);
		break;
	case 0x0b:
		v = (uint64_t)(int32_t)u(c, 4);
		break;
	case 0x0c:
		v = u(c, 8);
		break;
	default:
		c->bad = true;
		return 0;
	}
	switch (enc & 0x70) {
	case 0x00:
		return v;
	case 0x10:
		return v + base;
	}
	c->bad = true; /* datarel, textrel, funcrel: not used for FDEs */
	return 0;
}

static bool parse_cie(struct cursor c, struct cie *cie)
{
	uint8_t version = u(&c, 1);
	const char *aug = (const char *)c.p;
	size_t auglen = strnlen(aug, c.end - c.p);

	skip(&c, auglen + 1);
	if (c.bad || (version != 1 && version != 3))
		return false;
	memset(cie, 0, sizeof(*cie));
	if (auglen >= 2 && aug[0] == 'e' && aug[1] == 'h')
		skip(&c, 8); /* an old GCC's pointer */
	cie->code_align = uleb(&c);
	cie->data_align = sleb(&c);
	cie->ra_reg = version == 1 ? u(&c, 1) : uleb(&c);
	cie->fde_enc = 0; /* absptr unless 'R' says otherwise */
	if (aug[0] == 'z') {
		uint64_t len = uleb(&c);
		struct cursor a = c;

		skip(&c, len);
		a.end = c.p;
		cie->has_aug_data = true;
		for (size_t i = 1; i < auglen && !a.bad; i++) {
			switch (aug[i]) {
			case 'R':
				cie->fde_enc = u(&a, 1);
				break;
			case 'L':
				u(&a, 1);
				break;
			case 'P':
				encoded(&a, u(&a, 1) & 0x7f);
				break;
			case 'S':
			case 'B':
			case 'G':
				break;
			default:
				i = auglen; /* unknown: the rest is skipped */
			}
		}
	} else if (auglen && strcmp(aug, "eh")) {
		return false; /* unknown augmentation without a length */
	}
	cie->insns = c.p;
	cie->insns_end = c.end;
	return !c.bad && cie->code_align;
}

/* Rows of one FDE come in address order; from first on, a row at the
 * address of the one before replaces it (an advance by zero). */
static void add_row(struct table *t, size_t first, uint64_t addr,
		    const struct cfa_state *s, const struct regs *r)
{
	struct cfa_row row = {.addr = addr};

	if (s->ra.kind == RULE_UNDEF)
		row.cfa = CFA_END;
	else if (s->cfa_other || (s->cfa_reg != r->sp && s->cfa_reg != r->fp))
		row.cfa = CFA_OTHER;
	else
		row.cfa = s->cfa_reg == r->sp ? CFA_SP : CFA_FP;
	row.cfa_off = s->cfa_off;
	if (s->cfa_off != row.cfa_off && row.cfa != CFA_END)
		row.cfa = CFA_OTHER;
	row.fp = s->fp.kind == RULE_OFFSET  ? SAVED_AT
		 : s->fp.kind == RULE_OTHER ? SAVED_OTHER
					    : SAVED_NONE;
	row.fp_off = s->fp.kind == RULE_OFFSET ? s->fp.off : 0;
	row.ra = s->ra.kind == RULE_OFFSET  ? SAVED_AT
		 : s->ra.kind == RULE_OTHER ? SAVED_OTHER
					    : SAVED_NONE;
	row.ra_off = s->ra.kind == RULE_OFFSET ? s->ra.off : 0;
	if (t->n > first && t->rows[t->n - 1].addr == addr) {
		t->rows[t->n - 1] = row;
		return;
	}
	t->rows = grow_array(t->rows, &t->cap, t->n + 1, sizeof(*t->rows));
	t->rows[t->n++] = row;
}

static struct rule *reg_rule(struct cfa_state *s, const struct regs *r,
			     uint64_t reg)
{
	return reg == r->fp ? &s->fp : reg == r->ra ? &s->ra : NULL;
}

/*
 * Run a call frame program from *loc, leaving *loc where the last rules
 * start. With t NULL (a CIE's initial instructions) no rows are written.
 * Returns false on a malformed program.
 */
static bool run_cfa(struct cursor c, const struct cie *cie, struct cfa_state *s,
		    const struct cfa_state *init, uint64_t *loc,
		    struct table *t, const struct regs *r)
{
	size_t first = t ? t->n : 0;
	struct cfa_state stack[STATE_STACK];
	unsigned depth = 0, lost = 0;
	struct rule *rl;
	uint64_t reg, delta;
	int64_t off;

	while (c.p < c.end && !c.bad) {
		uint8_t op = u(&c, 1), lo = op & 0x3f;

		delta = 0;
		switch (op >> 6) {
		case 1: /* advance_loc */
			delta = lo * cie->code_align;
			goto advance;
		case 2: /* offset */
			if ((rl = reg_rule(s, r, lo)))
				*rl = (struct rule){RULE_OFFSET,
						    (int64_t)uleb(&c) *
							    cie->data_align};
			else
				uleb(&c);
			continue;
		case 3: /* restore */
			if ((rl = reg_rule(s, r, lo)))
				*rl = *reg_rule((struct cfa_state *)init, r,
						lo);
			continue;
		}
		switch (op) {
		case 0x00: /* nop */
			continue;
		case 0x01: /* set_loc */
			reg = encoded(&c, cie->fde_enc);
			if (reg < *loc)
				return false;
			delta = reg - *loc;
			break;
		case 0x02:
			delta = u(&c, 1) * cie->code_align;
			break;
		case 0x03:
			delta = u(&c, 2) * cie->code_align;
			break;
		case 0x04:
			delta = u(&c, 4) * cie->code_align;
			break;
		case 0x05: /* offset_extended */
		case 0x11: /* offset_extended_sf */
		case 0x14: /* val_offset */
		case 0x15: /* val_offset_sf */
			reg = uleb(&c);
			off = op == 0x05 || op == 0x14
				      ? (int64_t)uleb(&c) * cie->data_align
				      : sleb(&c) * cie->data_align;
			if ((rl = reg_rule(s, r, reg)))
				*rl = (struct rule){op <= 0x11 ? RULE_OFFSET
							       : RULE_OTHER,
						    off};
			continue;
		case 0x06: /* restore_extended */
			reg = uleb(&c);
			if ((rl = reg_rule(s, r, reg)))
				*rl = *reg_rule((struct cfa_state *)init, r,
						reg);
			continue;
		case 0x07: /* undefined */
		case 0x08: /* same_value */
			reg = uleb(&c);
			if ((rl = reg_rule(s, r, reg)))
				*rl = (struct rule){op == 0x07 ? RULE_UNDEF
							       : RULE_SAME};
			continue;
		case 0x09: /* register */
			reg = uleb(&c);
			uleb(&c);
			if ((rl = reg_rule(s, r, reg)))
				*rl = (struct rule){RULE_OTHER};
			continue;
		case 0x0a: /* remember_state */
			if (depth < STATE_STACK)
				stack[depth++] = *s;
			else
				lost++;
			continue;
		case 0x0b: /* restore_state */
			if (lost)
				lost--;
			else if (depth)
				*s = stack[--depth];
			else
				return false;
			continue;
		case 0x0c: /* def_cfa */
			s->cfa_reg = uleb(&c);
			s->cfa_off = uleb(&c);
			s->cfa_other = false;
			continue;
		case 0x12: /* def_cfa_sf */
			s->cfa_reg = uleb(&c);
			s->cfa_off = sleb(&c) * cie->data_align;
			s->cfa_other = false;
			continue;
		case 0x0d: /* def_cfa_register */
			s->cfa_reg = uleb(&c);
			continue;
		case 0x0e: /* def_cfa_offset */
			s->cfa_off = uleb(&c);
			continue;
		case 0x13: /* def_cfa_offset_sf */
			s->cfa_off = sleb(&c) * cie->data_align;
			continue;
		case 0x0f: /* def_cfa_expression */
			skip(&c, uleb(&c));
			s->cfa_other = true;
			continue;
		case 0x10: /* expression */
		case 0x16: /* val_expression */
			reg = uleb(&c);
			skip(&c, uleb(&c));
			if ((rl = reg_rule(s, r, reg)))
				*rl = (struct rule){RULE_OTHER};
			continue;
		case 0x2d: /* AArch64 negate_ra_state: signed, stripped later */
			continue;
		case 0x2e: /* GNU_args_size */
			uleb(&c);
			continue;
		case 0x2f: /* GNU_negative_offset_extended */
			reg = uleb(&c);
			delta = uleb(&c);
			if ((rl = reg_rule(s, r, reg)))
				*rl = (struct rule){RULE_OFFSET,
						    -(int64_t)delta *
							    cie->data_align};
			continue;
		default:
			return false;
		}
	advance: /* the rules so far hold from loc on */
		if (t)
			add_row(t, first, *loc, s, r);
		*loc += delta;
	}
	return !c.bad;
}

/* One FDE: its rows, then a CFA_NONE row where its range ends. */
static bool parse_fde(struct cursor c, const struct cie *cie, struct table *t,
		      const struct regs *r)
{
	struct cfa_state init = {0}, s;
	struct cursor ci = {cie->insns, cie->insns_end, 0, false};
	uint64_t begin = encoded(&c, cie->fde_enc), range, loc = begin;
	size_t first = t->n;

	range = encoded(&c, cie->fde_enc & 0x0f);
	if (cie->has_aug_data)
		skip(&c, uleb(&c));
	if (c.bad || !range || begin + range < begin)
		return !c.bad;
	init.ra = (struct rule){RULE_SAME};
	init.fp = (struct rule){RULE_SAME};
	if (!run_cfa(ci, cie, &init, &init, &loc, NULL, r))
		return false;
	s = init;
	loc = begin;
	if (!run_cfa(c, cie, &s, &init, &loc, t, r))
		return false;
	if (loc < begin + range)
		add_row(t, first, loc, &s, r);
	s.ra.kind = RULE_SAME;
	add_row(t, t->n, begin + range, &s, r);
	t->rows[t->n - 1].cfa = CFA_NONE;
	return true;
}

static int row_cmp(const void *a, const void *b)
{
	const struct cfa_row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* at one address a real row beats the end of the previous FDE */
	return (x->cfa != CFA_NONE) - (y->cfa != CFA_NONE);
}

static bool same_rule(const struct cfa_row *a, const struct cfa_row *b)
{
	return a->cfa == b->cfa && a->cfa_off == b->cfa_off && a->fp == b->fp &&
	       a->fp_off == b->fp_off && a->ra == b->ra &&
	       a->ra_off == b->ra_off;
}

/* Sort, keep the last row at each address, merge equal neighbours. */
static void finish(struct table *t)
{
	size_t i, out = 0;

	if (t->n) /* rows is NULL when there are none */
		qsort(t->rows, t->n, sizeof(*t->rows), row_cmp);
	for (i = 0; i < t->n; i++) {
		if (i + 1 < t->n && t->rows[i + 1].addr == t->rows[i].addr)
			continue;
		if (out && same_rule(&t->rows[out - 1], &t->rows[i]))
			continue;
		t->rows[out++] = t->rows[i];
	}
	t->n = out;
}

static bool parse_section(const uint8_t *data, size_t size, uint64_t vaddr,
			  struct table *t, const struct regs *r)
{
	struct cursor c = {data, data + size, vaddr, false};

	while (c.p < c.end && !c.bad) {
		struct cursor e = c, body;
		uint64_t len = u(&e, 4), id_at;
		uint32_t id;
		struct cie cie;

		if (len == 0) /* a terminator */
			break;
		if (len == 0xffffffff)
			len = u(&e, 8);
		body = e;
		skip(&e, len);
		if (e.bad)
			return false;
		body.end = e.p;
		id_at = body.vaddr;
		id = u(&body, 4);
		c = e;
		if (!id)
			continue; /* a CIE, read when an FDE points at it */
		/* the CIE pointer counts back from its own field */
		if (id > id_at - vaddr)
			return false;
		{
			size_t cie_off = id_at - vaddr - id;
			struct cursor ce = {data + cie_off, data + size,
					    vaddr + cie_off, false};
			uint64_t clen = u(&ce, 4);

			if (clen == 0xffffffff)
				clen = u(&ce, 8);
			if (ce.bad || clen > (uint64_t)(ce.end - ce.p))
				return false;
			ce.end = ce.p + clen;
			if (u(&ce, 4) != 0 || !parse_cie(ce, &cie))
				return false;
		}
		if (!parse_fde(body, &cie, t, r))
			return false;
	}
	return !c.bad;
}

/* Rows keyed by file offset: through the PT_LOAD segment holding each
 * address; rows outside every segment go. */
static void to_file_offsets(Elf *elf, struct table *t)
{
	size_t nph, i, out = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nph))
		nph = 0;
	for (i = 0; i < t->n; i++) {
		struct cfa_row *r = &t->rows[i];

		for (size_t k = 0; k < nph; k++) {
			if (!gelf_getphdr(elf, k, &ph) ||
			    ph.p_type != PT_LOAD || r->addr < ph.p_vaddr ||
			    r->addr - ph.p_vaddr > ph.p_filesz)
				continue;
			r->addr = r->addr - ph.p_vaddr + ph.p_offset;
			t->rows[out++] = *r;
			break;
		}
	}
	t->n = out;
}

int ehframe_read(const char *path, bool file_offsets, size_t max_rows,
		 struct cfa_row **rows, size_t *n, unsigned *machine)
{
	struct table t = {0};
	struct regs r;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	Elf_Data *d;
	size_t shstr;
	int fd, err = ENOENT;
	Elf *elf;

	elf_version(EV_CURRENT);
	/* regular files only, bounded, read rather than mapped (rootfs.h) */
	fd = rootfs_open("", path);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstr)) {
		err = ENOEXEC;
		goto out;
	}
	*machine = eh.e_machine;
	if (eh.e_machine == EM_X86_64)
		r = (struct regs){7, 6, 16};
	else if (eh.e_machine == EM_AARCH64)
		r = (struct regs){31, 29, 30};
	else {
		err = ENOEXEC;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstr, sh.sh_name);
		if (!name || strcmp(name, ".eh_frame"))
			continue;
		/* measured: a row per 5 bytes (glibc, GLib, qemu); one per
		 * 8 is the fewest a table this size will have */
		if (max_rows && sh.sh_size / 8 > max_rows) {
			err = EFBIG;
			goto out;
		}
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf) {
			err = ENOEXEC;
			goto out;
		}
		err = parse_section(d->d_buf, d->d_size, sh.sh_addr, &t, &r)
			      ? 0
			      : ENOEXEC;
		break;
	}
out:
	if (!err) {
		/* converted first: a crafted file's segments need not keep
		 * the order, and BPF's binary search needs it */
		if (file_offsets)
			to_file_offsets(elf, &t);
		finish(&t);
		*rows = t.rows;
		*n = t.n;
	} else {
		free(t.rows);
	}
	elf_end(elf);
	close(fd);
	errno = err;
	return err ? -1 : 0;
}

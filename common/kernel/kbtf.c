// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel types (kernel.h), read without holding them. The kernel's BTF
 * is 5.5 MB here, and libbpf's parse of it holds 11 MB at its peak (the
 * file read whole, then copied) and takes some 18 ms. stackbox asks it
 * a few dozen questions a run: where task_struct keeps pid, a kfunc's
 * id, an enum's value. So this keeps only where each type starts, its
 * kind and its name's offset (8 bytes a type) and a hash table of where
 * each name is (4 bytes a slot, at most half full), and reads records
 * and names from the file when asked: about 2 MB for the kernel's.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <linux/btf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kernel.h"
#include "stackbox.h"

/* A type's place in the type section, its kind and its name. */
struct type_at {
	uint32_t off : 27, kind : 5;
	uint32_t name_off;
};

/* One run's source of kernel types: a file (at base: a raw BTF file, or
 * the .BTF section of an ELF file) or bytes built in. */
static struct {
	int fd;
	const unsigned char *mem;
	uint64_t base, size;
	struct btf_header hdr;
	struct type_at *types; /* [id], id 1..ntypes */
	uint32_t ntypes;
	uint32_t *names; /* string offsets by hash; 0 is empty */
	uint32_t names_mask;
	bool tried, mapped;
	unsigned parses;
	const char *path; /* --btf */
} kt = {.fd = -1};

/* CONFIG_BTF_EMBED: gen/btf_embed.c, linked in only then. */
extern const unsigned char sb_btf_embedded[] __attribute__((weak));
extern const unsigned sb_btf_embedded_size __attribute__((weak));

bool kbtf_available(void)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	char c;
	bool ok = fd >= 0 && read(fd, &c, 1) == 1; /* not an empty file */

	if (fd >= 0)
		close(fd);
	return ok;
}

void kbtf_use(const char *path)
{
	kt.path = path;
}

/* len bytes at off from the start of the BTF (its header). */
static bool read_at(uint64_t off, void *buf, size_t len)
{
	if (off > kt.size || len > kt.size - off)
		return false;
	if (kt.mem) {
		memcpy(buf, kt.mem + off, len);
		return true;
	}
	for (size_t done = 0; done < len;) {
		ssize_t n = pread(kt.fd, (char *)buf + done, len - done,
				  kt.base + off + done);

		if (n <= 0)
			return false;
		done += n;
	}
	return true;
}

/* len bytes at off: where the source is in memory, else read into buf;
 * NULL when they are not all in the source. */
static const void *view_at(uint64_t off, void *buf, size_t len)
{
	if (kt.mem && off <= kt.size && len <= kt.size - off)
		return kt.mem + off;
	return read_at(off, buf, len) ? buf : NULL; /* (NULL when outside) */
}

/* ---- opening a source ---- */

/* Where the .BTF section of an ELF file (a vmlinux) is; false if none. */
static bool elf_btf_section(int fd, uint64_t *off, uint64_t *size)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	bool found = false;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return false;
	if (!elf_getshdrstrndx(e, &shstrndx)) {
		while (!found && (scn = elf_nextscn(e, scn))) {
			const char *name;

			if (!gelf_getshdr(scn, &sh))
				break;
			name = elf_strptr(e, shstrndx, sh.sh_name);
			found = name && !strcmp(name, ".BTF") &&
				sh.sh_type != SHT_NOBITS;
		}
	}
	elf_end(e);
	if (found) {
		*off = sh.sh_offset;
		*size = sh.sh_size;
	}
	return found;
}

/*
 * The kernel's own file maps its BTF as it is (Linux 6.15): no read()
 * of 4 KiB at a time (1,900 calls for 6.18's), no copy, and pages that
 * are the kernel's, in no RSS. Any other file is read: its pages would
 * count as ours.
 */
static void map_kernel_file(void)
{
	struct statfs fs;
	void *p;

	if (kt.base || fstatfs(kt.fd, &fs) || fs.f_type != SYSFS_MAGIC)
		return;
	p = mmap(NULL, kt.size, PROT_READ, MAP_PRIVATE, kt.fd, 0);
	if (p == MAP_FAILED)
		return;
	kt.mem = p;
	kt.mapped = true;
}

/* Open path as kernel types: a raw BTF file or an ELF file's .BTF;
 * NULL, or why not. */
static const char *open_file(const char *path)
{
	struct stat st;
	uint16_t magic = 0;

	kt.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (kt.fd < 0)
		return strerror(errno);
	kt.base = 0;
	if (!fstat(kt.fd, &st) && pread(kt.fd, &magic, 2, 0) == 2) {
		kt.size = st.st_size;
		if (magic == BTF_MAGIC ||
		    elf_btf_section(kt.fd, &kt.base, &kt.size)) {
			map_kernel_file();
			return NULL;
		}
	}
	close(kt.fd);
	kt.fd = -1;
	return "not kernel types (a raw BTF file, or an ELF file with a "
	       ".BTF section)";
}

/* Where libbpf looks for a vmlinux of this release when the kernel has
 * no /sys/kernel/btf/vmlinux (distributions' debug packages). */
static bool open_vmlinux_file(const char **from)
{
	static const char *const where[] = {
		"/boot/vmlinux-%1$s",
		"/lib/modules/%1$s/vmlinux-%1$s",
		"/lib/modules/%1$s/build/vmlinux",
		"/usr/lib/modules/%1$s/kernel/vmlinux",
		"/usr/lib/debug/boot/vmlinux-%1$s",
		"/usr/lib/debug/boot/vmlinux-%1$s.debug",
		"/usr/lib/debug/lib/modules/%1$s/vmlinux",
	};
	static char path[PATH_MAX];
	struct utsname u;

	if (uname(&u))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(where); i++) {
		snprintf(path, sizeof(path), where[i], u.release);
		if (!open_file(path)) {
			*from = path;
			return true;
		}
	}
	return false;
}

/* The first source that has kernel types: --btf, the kernel's own (or
 * a vmlinux of this release), the built-in one. */
static bool open_source(const char **from)
{
	const char *why;

	if (kt.path) {
		if ((why = open_file(kt.path)))
			error_exit("--btf %s: %s", kt.path, why);
		*from = kt.path;
		return true;
	}
	if (kbtf_available() && !open_file("/sys/kernel/btf/vmlinux")) {
		*from = "/sys/kernel/btf/vmlinux";
		return true;
	}
	if (open_vmlinux_file(from))
		return true;
	if (sb_btf_embedded) {
		kt.mem = sb_btf_embedded;
		kt.size = sb_btf_embedded_size;
		*from = "the minimal BTF built in (CONFIG_BTF_EMBED)";
		return true;
	}
	return false;
}

/* ---- the index ---- */

/* Bytes after a type's struct btf_type; -1 for a kind not known here. */
static long type_extra(unsigned kind, unsigned vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	}
	return -1;
}

enum { WINDOW = 64 << 10 }; /* the sections are read through this */

/* One pass over the type section. */
static bool index_types(void)
{
	unsigned char *buf = xmalloc(WINDOW);
	const unsigned char *win = NULL;
	uint64_t start = kt.hdr.hdr_len + kt.hdr.type_off;
	uint64_t at = 0, win_at = 0, win_len = 0;
	size_t cap = 0;
	bool ok = true;

	while (ok && at < kt.hdr.type_len) {
		struct btf_type t;
		long extra;

		if (at < win_at || at + sizeof(t) > win_at + win_len) {
			win_at = at;
			win_len = kt.hdr.type_len - at < WINDOW
					  ? kt.hdr.type_len - at
					  : WINDOW;
			if (win_len < sizeof(t) ||
			    !(win = view_at(start + at, buf, win_len)))
				break;
		}
		memcpy(&t, win + (at - win_at), sizeof(t));
		extra = type_extra(BTF_INFO_KIND(t.info),
				   BTF_INFO_VLEN(t.info));
		ok = extra >= 0 && at < 1u << 27;
		if (!ok)
			break;
		kt.types = grow_array(kt.types, &cap, kt.ntypes + 2,
				      sizeof(*kt.types));
		kt.types[++kt.ntypes] = (struct type_at){
			(uint32_t)at, BTF_INFO_KIND(t.info), t.name_off};
		at += sizeof(t) + extra;
	}
	free(buf);
	return ok && at == kt.hdr.type_len;
}

static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/*
 * One pass over the string section: fn(arg, offset, string, length)
 * for each string but the empty one at 0. False when one is not ended
 * inside the section (or longer than the window).
 */
static bool each_string(void (*fn)(void *arg, uint32_t off, const char *s,
				   size_t len),
			void *arg)
{
	char *buf = xmalloc(WINDOW);
	const char *win = NULL;
	uint64_t start = kt.hdr.hdr_len + kt.hdr.str_off, len = kt.hdr.str_len;
	uint64_t at = 0, win_at = 0, win_len = 0;
	bool ok = true;

	while (ok && at < len) {
		const char *p = NULL, *nul = NULL;

		if (win && at < win_at + win_len) {
			p = win + (at - win_at);
			nul = memchr(p, 0, win_at + win_len - at);
		}
		if (!nul) {
			/* not ended in the window: read on from at */
			ok = at != win_at || win_len == 0;
			win_at = at;
			win_len = len - at < WINDOW ? len - at : WINDOW;
			ok = ok && (win = view_at(start + at, buf, win_len));
			continue;
		}
		if (at)
			fn(arg, (uint32_t)at, p, nul - p);
		at += nul - p + 1;
	}
	free(buf);
	return ok;
}

static void count_string(void *arg, uint32_t off, const char *s, size_t len)
{
	(void)off, (void)s, (void)len;
	++*(size_t *)arg;
}

static void add_string(void *arg, uint32_t off, const char *s, size_t len)
{
	uint32_t i = name_hash(s, len) & kt.names_mask;

	(void)arg;
	while (kt.names[i])
		i = (i + 1) & kt.names_mask;
	kt.names[i] = off;
}

/*
 * The table's pages mapped at once: each insert reads its slot before
 * writing it, so a page first touched there faults twice (the zero
 * page, then a copy of it). Mapped at once, the index of 6.18's BTF
 * takes 8 ms of CPU here, not 14 (prefetching slots ahead saved none).
 */
static uint32_t *names_table(size_t slots)
{
	void *p = mmap(NULL, slots * sizeof(uint32_t), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return check_alloc(p == MAP_FAILED ? NULL : p);
}

/* The hash table of names: twice as many slots as strings, at least. */
static bool index_strings(void)
{
	size_t n = 0, slots = 16;

	if (!each_string(count_string, &n))
		return false;
	while (slots < 2 * n)
		slots *= 2;
	kt.names = names_table(slots);
	kt.names_mask = slots - 1;
	return each_string(add_string, NULL);
}

/* Read the header and index the types and names; NULL, or why the
 * source is not BTF this reader knows. */
static const char *index_source(void)
{
	static char why[96];
	struct btf_header *h = &kt.hdr;

	if (!read_at(0, h, sizeof(*h)) || h->magic != BTF_MAGIC ||
	    h->hdr_len < sizeof(*h) ||
	    (uint64_t)h->hdr_len + h->type_off + h->type_len > kt.size ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > kt.size)
		return "not BTF of this byte order, or cut short";
	if (!index_types()) {
		snprintf(why, sizeof(why),
			 "type %u is of a kind this stackbox does not know, or "
			 "cut short",
			 kt.ntypes + 1);
		return why;
	}
	if (!index_strings())
		return "a name is not ended";
	return NULL;
}

static void close_source(void)
{
	if (kt.fd >= 0)
		close(kt.fd);
	kt.fd = -1;
	if (kt.mapped)
		munmap((void *)kt.mem, kt.size);
	kt.mapped = false;
	kt.mem = NULL;
	free(kt.types);
	kt.types = NULL;
	kt.ntypes = 0;
	if (kt.names)
		munmap(kt.names, (kt.names_mask + 1) * sizeof(*kt.names));
	kt.names = NULL;
}

bool kbtf_layouts(void)
{
	const char *from, *why;

	if (kt.tried)
		return kt.types != NULL;
	kt.tried = true;
	if (!open_source(&from))
		return false;
	if ((why = index_source())) {
		close_source();
		if (kt.path) /* named by the user: not to be passed over */
			error_exit("--btf %s: %s", kt.path, why);
		error_msg("kernel types from %s: %s: going on without them",
			  from, why);
		return false;
	}
	if (!kt.parses++)
		verbose("kernel types from %s", from);
	return true;
}

void kbtf_release(void)
{
	close_source();
	kt.tried = false;
}

unsigned kbtf_parses(void)
{
	return kt.parses;
}

/* ---- questions ---- */

/* Is the string at name_off exactly name? */
static bool name_is(uint32_t name_off, const char *name)
{
	size_t len = strlen(name) + 1;
	char buf[128];

	if (len > sizeof(buf) || name_off >= kt.hdr.str_len)
		return false;
	if (len > kt.hdr.str_len - name_off)
		return false;
	return read_at((uint64_t)kt.hdr.hdr_len + kt.hdr.str_off + name_off,
		       buf, len) &&
	       !memcmp(buf, name, len);
}

/* copies of one name told apart (BTF that was not deduplicated) */
enum { MAX_SAME = 4 };

/* Where name is in the string section: up to MAX_SAME offsets into
 * offs; how many. */
static int name_offsets(const char *name, uint32_t *offs)
{
	uint32_t i;
	int n = 0;

	if (!kbtf_layouts() || !*name)
		return 0;
	i = name_hash(name, strlen(name)) & kt.names_mask;
	for (; kt.names[i] && n < MAX_SAME; i = (i + 1) & kt.names_mask)
		if (name_is(kt.names[i], name))
			offs[n++] = kt.names[i];
	return n;
}

static bool is_one_of(uint32_t off, const uint32_t *offs, int n)
{
	for (int i = 0; i < n; i++)
		if (offs[i] == off)
			return true;
	return false;
}

/* The type record of id with its vlen entries (free it); NULL if none. */
static struct btf_type *type_read(uint32_t id)
{
	struct btf_type t, *full;
	uint64_t at;
	long extra;

	if (!kbtf_layouts() || id == 0 || id > kt.ntypes)
		return NULL;
	at = (uint64_t)kt.hdr.hdr_len + kt.hdr.type_off + kt.types[id].off;
	if (!read_at(at, &t, sizeof(t)))
		return NULL;
	extra = type_extra(BTF_INFO_KIND(t.info), BTF_INFO_VLEN(t.info));
	full = xmalloc(sizeof(t) + extra);
	if (!read_at(at, full, sizeof(t) + extra)) {
		free(full);
		return NULL;
	}
	return full;
}

/* The first type of kind named name; 0 when none. */
static uint32_t type_named(const char *name, unsigned kind)
{
	uint32_t offs[MAX_SAME];
	int n = name_offsets(name, offs);

	for (uint32_t id = 1; n && id <= kt.ntypes; id++)
		if (kt.types[id].kind == kind &&
		    is_one_of(kt.types[id].name_off, offs, n))
			return id;
	return 0;
}

/* Past typedefs and qualifiers to the type they name. */
static uint32_t type_resolved(uint32_t id)
{
	for (int depth = 0; depth < 32 && id && id <= kt.ntypes; depth++) {
		struct btf_type *t;

		switch (kt.types[id].kind) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			t = type_read(id);
			id = t ? t->type : 0;
			free(t);
			continue;
		}
		return id;
	}
	return 0;
}

/* Size in bytes of a value of type id; 0 when it has none. */
static uint64_t type_size(uint32_t id)
{
	struct btf_type *t = type_read(id = type_resolved(id));
	uint64_t size = 0;

	if (!t)
		return 0;
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FLOAT:
		size = t->size;
		break;
	case BTF_KIND_PTR:
		size = sizeof(void *); /* the kernel's own word */
		break;
	case BTF_KIND_ARRAY: {
		struct btf_array *a = (struct btf_array *)(t + 1);

		size = a->nelems * type_size(a->type);
		break;
	}
	}
	free(t);
	return size;
}

/* Offset in bits of the member named at one of offs inside the struct
 * or union id, or -1. */
static long find_member(uint32_t id, const uint32_t *offs, int noffs,
			unsigned *size, int depth)
{
	struct btf_type *t = depth <= 8 ? type_read(id) : NULL;
	struct btf_member *m;
	long off = -1;
	unsigned kind = t ? BTF_INFO_KIND(t->info) : 0;

	if (kind != BTF_KIND_STRUCT && kind != BTF_KIND_UNION)
		goto out;
	m = (struct btf_member *)(t + 1);
	for (unsigned i = 0; off < 0 && i < BTF_INFO_VLEN(t->info); i++) {
		/* a bitfield's offset is its low 24 bits in kind_flag structs */
		long at = BTF_INFO_KFLAG(t->info)
				  ? BTF_MEMBER_BIT_OFFSET(m[i].offset)
				  : m[i].offset;

		if (m[i].name_off) {
			if (!is_one_of(m[i].name_off, offs, noffs))
				continue;
			if (size)
				*size = type_size(m[i].type);
			off = at;
		} else {
			/* anonymous: its members are the struct's own */
			long in = find_member(type_resolved(m[i].type), offs,
					      noffs, size, depth + 1);

			if (in >= 0)
				off = in + at;
		}
	}
out:
	free(t);
	return off;
}

int kbtf_member(const char *type, const char *member, unsigned *size)
{
	uint32_t id = type_named(type, BTF_KIND_STRUCT), offs[MAX_SAME];
	int n = id ? name_offsets(member, offs) : 0;
	long bits = n ? find_member(id, offs, n, size, 0) : -1;

	return bits < 0 ? -1 : (int)(bits / 8);
}

int kbtf_func_id(const char *name)
{
	uint32_t id = type_named(name, BTF_KIND_FUNC);

	return id ? (int)id : -1;
}

bool kbtf_has_member(const char *type, const char *member)
{
	return kbtf_available() && !kt.path &&
	       kbtf_member(type, member, NULL) >= 0;
}

bool kbtf_has_func(const char *name)
{
	/* the kernel attaches fentry through its own BTF, not a file's */
	return kbtf_available() && kbtf_func_id(name) > 0;
}

long long kbtf_enum_value(const char *type, const char *name)
{
	uint32_t id = type_named(type, BTF_KIND_ENUM);
	struct btf_type *t = id ? type_read(id) : NULL;
	struct btf_enum *e;
	long long v = -1;

	if (!t)
		return -1;
	e = (struct btf_enum *)(t + 1);
	v = 0;
	for (unsigned i = 0; i < BTF_INFO_VLEN(t->info); i++) {
		if (e[i].name_off && name_is(e[i].name_off, name)) {
			v = e[i].val;
			break;
		}
	}
	free(t);
	return v;
}

int kbtf_proto_params(const char *type)
{
	uint32_t id = type_named(type, BTF_KIND_TYPEDEF);
	struct btf_type *t = id ? type_read(id) : NULL;
	int n = -1;

	/* typedef -> pointer -> prototype */
	for (int hop = 0; t && hop < 2; hop++) {
		id = t->type;
		free(t);
		t = type_read(id);
	}
	if (t && BTF_INFO_KIND(t->info) == BTF_KIND_FUNC_PROTO)
		n = BTF_INFO_VLEN(t->info);
	free(t);
	return n;
}

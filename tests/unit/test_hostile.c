// SPDX-License-Identifier: GPL-2.0
// layer: sym
/*
 * Files a container plants for us, built here in a scratch directory:
 *   - a root with links that point out of it (absolute, "..", loops, a
 *     FIFO, a chain of 41 links): rootfs_open, both by openat2 and by our
 *     own walk, must stay inside and never block;
 *   - the same root as a process's /proc/PID/root: each mapping the
 *     collectors read (eh_frame tables, uprobe sites) is opened inside it;
 *   - crafted ELF files (huge section counts, offsets and sizes out of
 *     the file, overlapping sections, bad links and names, notes that lie,
 *     debuglinks to themselves, to each other and to a FIFO, a .eh_frame
 *     that lies): no crash, and each costs at most HOSTILE_READ_MAX bytes
 *     read and HOSTILE_MEM_MAX of memory (the figures are printed).
 * Run from the tests build directory.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "ehframe.h"
#include "rootfs.h"
#include "stackbox.h"
#include "syms.h"

/* What one crafted file may cost: the file is a few hundred bytes. */
#define HOSTILE_READ_MAX (256 * 1024)
#define HOSTILE_MEM_MAX	 (8 * 1024) /* kB of peak RSS growth */

static char dir[PATH_MAX - 64];

static void put(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		perror_exit("writing %s", path);
}

/* ---- rootfs ---- */

static void build_root(void)
{
	char p[3 * PATH_MAX];

	snprintf(p, sizeof(p), "rm -rf %s && mkdir -p %s/root/lib %s/root/etc",
		 dir, dir, dir);
	if (system(p))
		error_exit("cannot build %s", dir);
	snprintf(p, sizeof(p), "%s/root/lib/good", dir);
	put(p, "inside\n", 7);
	snprintf(p, sizeof(p), "%s/outside", dir);
	put(p, "outside\n", 8);
	snprintf(p, sizeof(p), "%s/root/lib/abs", dir);
	symlink("/lib/good", p);
	snprintf(p, sizeof(p), "%s/root/lib/up", dir);
	symlink("../../../../../../outside", p);
	snprintf(p, sizeof(p), "%s/root/lib/host", dir);
	{
		char t[PATH_MAX + 16];

		snprintf(t, sizeof(t), "%s/outside", dir);
		symlink(t,
			p); /* the host's absolute path of the outside file */
	}
	snprintf(p, sizeof(p), "%s/root/lib/dirlink", dir);
	symlink("/lib/../../../lib", p);
	snprintf(p, sizeof(p), "%s/root/lib/loop1", dir);
	symlink("loop2", p);
	snprintf(p, sizeof(p), "%s/root/lib/loop2", dir);
	symlink("loop1", p);
	snprintf(p, sizeof(p), "%s/root/lib/magic", dir);
	symlink("/proc/self/root/etc/hostname", p);
	snprintf(p, sizeof(p), "%s/root/lib/fifo", dir);
	mkfifo(p, 0600);
	snprintf(p, sizeof(p), "%s/root/lib/null", dir);
	symlink("/dev/zero", p);
	for (int i = 0; i <= ROOTFS_MAX_HOPS; i++) {
		char t[32];

		snprintf(p, sizeof(p), "%s/root/lib/chain%d", dir, i);
		snprintf(t, sizeof(t), "chain%d", i + 1);
		symlink(i == ROOTFS_MAX_HOPS ? "good" : t, p);
	}
}

static const char *content(int fd)
{
	static char buf[16];
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n < 0 ? 0 : n] = 0;
	return fd < 0 ? "(refused)" : buf;
}

static void check_root(const char *how, int (*open_fn)(const char *))
{
	static const struct {
		const char *path, *want;
	} cases[] = {
		{"/lib/good", "inside\n"},
		{"/lib/abs", "inside\n"},	   /* absolute: inside root */
		{"/lib/dirlink/good", "inside\n"}, /* ".." stops at root */
		{"/../../lib/good", "inside\n"},
		{"/lib/up", "(refused)"}, /* would be the host file */
		{"/lib/host", "(refused)"},
		{"/../outside", "(refused)"},
		{"/lib/loop1", "(refused)"},
		{"/lib/magic", "(refused)"},
		{"/lib/fifo", "(refused)"}, /* not opened: it would block */
		{"/lib/null", "(refused)"}, /* no /dev/zero: endless */
		{"/lib", "(refused)"},
		{"/lib/chain0", "(refused)"}, /* 41 links */
		{"/lib/chain2", "inside\n"},  /* 39 links */
	};
	char name[128];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(name, sizeof(name), "rootfs %s: %s", how,
			 cases[i].path);
		alarm(5); /* a FIFO opened for reading would hang here */
		CHECK_STR(name, content(open_fn(cases[i].path)), cases[i].want);
		alarm(0);
	}
}

static char root_path[PATH_MAX + 8];
static int root_fd;

static int by_kernel(const char *path)
{
	return rootfs_open(root_path, path);
}

static int by_walk(const char *path)
{
	return rootfs_open_walk(root_fd, path);
}

/* ---- mappings of a process in that root ---- */

struct seen {
	const char *want; /* the file's content, or "(refused)" */
	int n;
};

static void mapped(const struct proc_map *m, void *arg)
{
	struct seen *seen = arg;
	const char *path;
	char name[128];

	snprintf(name, sizeof(name), "maps in a container's root: %s", m->name);
	path = proc_map_path(m);
	CHECK_STR(name, content(path ? open(path, O_RDONLY | O_CLOEXEC) : -1),
		  seen->want);
	CHECK(name, proc_map_path(m) == path, "a second call opened again");
	seen->n++;
}

/* A procfs of one process (7) whose root is the one built above: what
 * proc_maps_each_exec gives to open is the file inside it, or nothing
 * (the eh_frame tables and uprobe sites are read from there). */
static void check_maps(void)
{
	static const struct {
		const char *path, *want;
	} cases[] = {
		{"/lib/good", "inside\n"},  {"/lib/abs", "inside\n"},
		{"/lib/host", "(refused)"}, /* the host's path of outside */
		{"/lib/up", "(refused)"},   {"/lib/fifo", "(refused)"},
	};
	char procfs[PATH_MAX], p[3 * PATH_MAX + 64], line[256];

	snprintf(procfs, sizeof(procfs), "%s/proc", dir);
	snprintf(p, sizeof(p), "mkdir -p %s/7 && ln -sfn %s/root %s/7/root",
		 procfs, dir, procfs);
	if (system(p))
		error_exit("cannot build %s", procfs);
	snprintf(p, sizeof(p), "%s/7/maps", procfs);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct seen seen = {cases[i].want, 0};

		snprintf(line, sizeof(line),
			 "1000-2000 r-xp 00000000 00:00 0 %s\n", cases[i].path);
		put(p, line, strlen(line));
		alarm(5); /* the FIFO must not be opened */
		proc_maps_each_exec(procfs, 7, mapped, &seen);
		alarm(0);
		CHECK_INT(cases[i].path, seen.n, 1); /* given once */
	}
}

/* ---- crafted ELF files ---- */

enum { S_NULL, S_TEXT, S_STRTAB, S_SYMTAB, S_LINK, S_NOTE, S_EH, S_SHSTR, NS };

struct craft {
	union {
		Elf64_Ehdr eh;
		unsigned char file[1024]; /* the header, then the sections */
	};
	Elf64_Shdr sh[NS]; /* written at the end of the file */
	size_t len;	   /* of file[] used */
};

static const char shstr[] = "\0.text\0.strtab\0.symtab\0.gnu_debuglink\0"
			    ".note.gnu.build-id\0.eh_frame\0.shstrtab";

static size_t shname(const char *n)
{
	for (size_t i = 0; i < sizeof(shstr); i += strlen(shstr + i) + 1)
		if (!strcmp(shstr + i, n))
			return i;
	return 0;
}

static size_t add(struct craft *c, unsigned s, const char *name, unsigned type,
		  const void *buf, size_t len)
{
	size_t off = c->len;

	memcpy((char *)&c->eh + off, buf, len);
	c->sh[s] = (Elf64_Shdr){.sh_name = shname(name),
				.sh_type = type,
				.sh_offset = off,
				.sh_size = len,
				.sh_addralign = 1};
	c->len = (off + len + 7) & ~7UL;
	return off;
}

/* A small valid ELF: fn_a at 0x1000 (8 bytes), fn_b at 0x1008. */
static void craft_base(struct craft *c, const char *debuglink, uint32_t crc)
{
	static const char strtab[] = "\0fn_a\0fn_b";
	Elf64_Sym syms[3] = {
		{0},
		{.st_name = 1,
		 .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		 .st_shndx = S_TEXT,
		 .st_value = 0x1000,
		 .st_size = 8},
		{.st_name = 6,
		 .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
		 .st_shndx = S_TEXT,
		 .st_value = 0x1008,
		 .st_size = 8},
	};
	unsigned char text[16] = {0xc3}, link[64] = {0}, note[36] = {0};
	unsigned char eh[64];
	size_t n;

	memset(c, 0, sizeof(*c));
	c->len = sizeof(c->eh);
	add(c, S_TEXT, ".text", SHT_PROGBITS, text, sizeof(text));
	c->sh[S_TEXT].sh_addr = 0x1000;
	c->sh[S_TEXT].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	add(c, S_STRTAB, ".strtab", SHT_STRTAB, strtab, sizeof(strtab));
	add(c, S_SYMTAB, ".symtab", SHT_SYMTAB, syms, sizeof(syms));
	c->sh[S_SYMTAB].sh_link = S_STRTAB;
	c->sh[S_SYMTAB].sh_entsize = sizeof(Elf64_Sym);
	c->sh[S_SYMTAB].sh_info = 1;
	n = strlen(debuglink ? debuglink : "x");
	memcpy(link, debuglink ? debuglink : "x", n);
	memcpy(link + (n + 4) / 4 * 4, &crc, 4);
	add(c, S_LINK, debuglink ? ".gnu_debuglink" : ".text", SHT_PROGBITS,
	    link, (n + 4) / 4 * 4 + 4);
	/* namesz 4, descsz 20, NT_GNU_BUILD_ID, "GNU\0", 20 bytes */
	memcpy(note, (uint32_t[]){4, 20, 3}, 12);
	memcpy(note + 12, "GNU", 4);
	memset(note + 16, 0xab, 20);
	add(c, S_NOTE, ".note.gnu.build-id", SHT_NOTE, note, sizeof(note));
	c->sh[S_NOTE].sh_addralign = 4;
	/* .eh_frame: a CIE that claims more than the section holds */
	memset(eh, 0xff, sizeof(eh));
	memcpy(eh, (uint32_t[]){0xfffffff0, 0}, 8);
	add(c, S_EH, ".eh_frame", SHT_PROGBITS, eh, sizeof(eh));
	add(c, S_SHSTR, ".shstrtab", SHT_STRTAB, shstr, sizeof(shstr));
	memcpy(c->eh.e_ident, ELFMAG, SELFMAG);
	c->eh.e_ident[EI_CLASS] = ELFCLASS64;
	c->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	c->eh.e_ident[EI_VERSION] = EV_CURRENT;
	c->eh.e_type = ET_DYN;
	c->eh.e_machine = EM_X86_64;
	c->eh.e_version = EV_CURRENT;
	c->eh.e_ehsize = sizeof(Elf64_Ehdr);
	c->eh.e_shentsize = sizeof(Elf64_Shdr);
	c->eh.e_shnum = NS;
	c->eh.e_shstrndx = S_SHSTR;
	c->eh.e_shoff = c->len;
}

static void craft_write(struct craft *c, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(&c->eh, 1, c->len, f) != c->len ||
	    fwrite(c->sh, 1, sizeof(c->sh), f) != sizeof(c->sh) || fclose(f))
		perror_exit("writing %s", path);
}

static uint64_t rchar(void)
{
	char *s = read_file("/proc/self/io", NULL), *p;
	uint64_t n =
		s && (p = strstr(s, "rchar:")) ? strtoull(p + 6, 0, 10) : 0;

	free(s);
	return n;
}

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* Open path as symbols and as an unwinding table; bounded, no crash. */
static void cost(const char *name, const char *path, const char *want)
{
	uint64_t r0 = rchar(), read;
	long m0 = maxrss_kb(), mem;
	struct timespec t0, t1;
	struct cfa_row *rows = NULL;
	struct elf_symtab *t;
	const char *got;
	unsigned machine;
	size_t n = 0;
	char full[PATH_MAX + 64];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	alarm(20);
	t = elf_symtab_open(path, "");
	got = t ? elf_symtab_lookup(t, 0x1000, NULL) : NULL;
	snprintf(full, sizeof(full), "crafted ELF %s: symbols", name);
	CHECK_STR(full, got ? got : "(none)", want);
	elf_symtab_free(t);
	ehframe_read(path, true, 1 << 20, &rows, &n, &machine);
	free(rows);
	alarm(0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	read = rchar() - r0;
	mem = maxrss_kb() - m0;
	snprintf(full, sizeof(full), "crafted ELF %s: cost", name);
	CHECK(full, read <= HOSTILE_READ_MAX && mem <= HOSTILE_MEM_MAX,
	      "%llu bytes read, %ld kB more memory", (unsigned long long)read,
	      mem);
	printf("     %s: %llu bytes read, +%ld kB peak RSS, %.2f ms\n", name,
	       (unsigned long long)read, mem,
	       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
}

static uint32_t file_crc(const char *path)
{
	size_t len;
	char *s = read_file(path, &len);
	uint32_t c = crc32(crc32(0, Z_NULL, 0), (unsigned char *)s, len);

	free(s);
	return c;
}

static void check_crafted(void)
{
	struct craft c;
	char p[PATH_MAX + 64], q[PATH_MAX + 64];

#define CASE(name, want, mutate)                            \
	do {                                                \
		craft_base(&c, NULL, 0);                    \
		mutate;                                     \
		snprintf(p, sizeof(p), "%s/%s", dir, name); \
		craft_write(&c, p);                         \
		cost(name, p, want);                        \
	} while (0)

	CASE("valid", "fn_a", (void)0);
	CASE("e_shnum 65535", "(none)", c.eh.e_shnum = 0xffff);
	CASE("extended section count", "(none)",
	     (c.eh.e_shnum = 0, c.sh[0].sh_size = 0xffffffff));
	CASE("section headers past the end", "(none)",
	     c.eh.e_shoff = 1ULL << 40);
	/* libelf reads headers of its own size whatever e_shentsize says */
	CASE("e_shentsize 1", "fn_a", c.eh.e_shentsize = 1);
	CASE("e_shstrndx out of range", "fn_a", c.eh.e_shstrndx = 0x7fff);
	CASE("symtab size 2^40", "(none)", c.sh[S_SYMTAB].sh_size = 1ULL << 40);
	CASE("symtab offset 2^40", "(none)",
	     c.sh[S_SYMTAB].sh_offset = 1ULL << 40);
	CASE("symtab offset + size wraps", "(none)",
	     (c.sh[S_SYMTAB].sh_offset = ~0ULL - 8,
	      c.sh[S_SYMTAB].sh_size = 64));
	CASE("symtab entsize 0", "fn_a", c.sh[S_SYMTAB].sh_entsize = 0);
	CASE("symtab link to itself", "(none)",
	     c.sh[S_SYMTAB].sh_link = S_SYMTAB);
	CASE("symtab link out of range", "(none)",
	     c.sh[S_SYMTAB].sh_link = 0xfff0);
	CASE("strtab overlaps symtab", "(none)",
	     c.sh[S_STRTAB].sh_offset = c.sh[S_SYMTAB].sh_offset);
	CASE("strtab without its last NUL", "(none)",
	     c.sh[S_STRTAB].sh_size = 4);
	CASE("strtab size 2^40", "(none)", c.sh[S_STRTAB].sh_size = 1ULL << 40);
	CASE("symtab is the section headers", "(none)",
	     (c.sh[S_SYMTAB].sh_offset = c.eh.e_shoff,
	      c.sh[S_SYMTAB].sh_size = sizeof(c.sh)));
	CASE("note sizes 2^32-1", "fn_a",
	     memset((char *)&c.eh + c.sh[S_NOTE].sh_offset, 0xff, 8));
	CASE("eh_frame size 2^40", "fn_a", c.sh[S_EH].sh_size = 1ULL << 40);
	CASE("eh_frame offset past the end", "fn_a",
	     c.sh[S_EH].sh_offset = 1ULL << 33);
	CASE("every section at offset 0", "(none)",
	     for (int i = 1; i < NS; i++) c.sh[i].sh_offset = 0);

	/* debuglinks: stripped files (no .symtab) pointing at themselves,
	 * at each other, and at a FIFO whose CRC they claim */
	snprintf(p, sizeof(p), "%s/cyc-b", dir);
	craft_base(&c, "cyc-a", 0);
	c.sh[S_SYMTAB].sh_type = SHT_PROGBITS;
	craft_write(&c, p);
	snprintf(q, sizeof(q), "%s/cyc-a", dir);
	craft_base(&c, "cyc-b", file_crc(p));
	c.sh[S_SYMTAB].sh_type = SHT_PROGBITS;
	craft_write(&c, q);
	cost("debuglinks a -> b -> a", q, "(none)");
	snprintf(p, sizeof(p), "%s/self", dir);
	craft_base(&c, "self", 0);
	c.sh[S_SYMTAB].sh_type = SHT_PROGBITS;
	craft_write(&c, p);
	craft_base(&c, "self", file_crc(p));
	c.sh[S_SYMTAB].sh_type = SHT_PROGBITS;
	craft_write(&c, p);
	cost("debuglink to itself", p, "(none)");
	snprintf(p, sizeof(p), "%s/fifo.debug", dir);
	mkfifo(p, 0600);
	snprintf(p, sizeof(p), "%s/to-fifo", dir);
	craft_base(&c, "fifo.debug", 0);
	c.sh[S_SYMTAB].sh_type = SHT_PROGBITS;
	craft_write(&c, p);
	cost("debuglink to a FIFO", p, "(none)");
#undef CASE
}

int main(void)
{
	char cwd[PATH_MAX - 128];

	if (!getcwd(cwd, sizeof(cwd)))
		return 1;
	snprintf(dir, sizeof(dir), "%s/hostile", cwd);
	build_root();
	snprintf(root_path, sizeof(root_path), "%s/root", dir);
	root_fd = open(root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		perror_exit("%s", root_path);
	check_root("openat2", by_kernel);
	check_root("walk", by_walk);
	close(root_fd);
	check_maps();
	check_crafted();
	return 0;
}

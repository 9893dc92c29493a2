/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbolisation on the device: kernel addresses through /proc/kallsyms,
 * user addresses through /proc/PID/maps and the ELF files behind them.
 */
#ifndef STACKBOX_SYMS_H
#define STACKBOX_SYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- kernel ---- */
struct ksyms;
/* Load a kallsyms-format file; NULL with errno when it cannot be read.
 * Addresses that read as zero (kptr_restrict) leave an empty table. */
struct ksyms *ksyms_load(const char *path);
/* The function holding addr, or NULL; *offset is addr - its start. */
const char *ksyms_lookup(const struct ksyms *ks, uint64_t addr,
			 uint64_t *offset);
void ksyms_free(struct ksyms *ks);

/* ---- one ELF file ---- */
struct elf_symtab;
/*
 * Function symbols of an ELF file (.symtab, else .dynsym), keyed by the
 * file's virtual addresses. When the file has neither, or only .dynsym,
 * the separate debug file is tried: by build-id under
 * ROOT/usr/lib/debug/.build-id/xx/rest.debug, then by .gnu_debuglink next
 * to the file, in its .debug/ and in ROOT/usr/lib/debug/DIR/. root is ""
 * or a prefix like "/proc/42/root" so containers resolve.
 * NULL with errno when the file is unreadable or not ELF.
 */
struct elf_symtab *elf_symtab_open(const char *path, const char *root);
const char *elf_symtab_lookup(const struct elf_symtab *t, uint64_t vaddr,
			      uint64_t *offset);
/* Up to max functions inlined at vaddr (Go's inline trees), innermost
 * first, into names; how many. The function holding them is the one
 * elf_symtab_lookup gives. */
unsigned elf_symtab_inlined(const struct elf_symtab *t, uint64_t vaddr,
			    const char **names, unsigned max);
/* Hex build-id, or "" when the file has none. */
const char *elf_symtab_build_id(const struct elf_symtab *t);
/* Where its names came from, best first; the last is exported functions
 * alone (or none), which is where report asks debuginfod. */
enum elf_names {
	ELF_NAMES_SYMTAB,
	ELF_NAMES_DEBUG_FILE,
	ELF_NAMES_MINIDEBUGINFO,
	ELF_NAMES_GO,
	ELF_NAMES_DYNSYM,
};
enum elf_names elf_symtab_names(const struct elf_symtab *t);
/* Its ELF e_machine (EM_X86_64, EM_AARCH64). */
unsigned elf_symtab_machine(const struct elf_symtab *t);
/* The memory it holds, in bytes. */
size_t elf_symtab_bytes(const struct elf_symtab *t);
/* Turn a file offset of an executable mapping into the file's vaddr. */
uint64_t elf_symtab_offset_to_vaddr(const struct elf_symtab *t, uint64_t off);
/* Take from's program headers: a separate debug file's (objcopy
 * --only-keep-debug) have no file bytes, and offsets that are not the
 * binary's. */
void elf_symtab_use_loads(struct elf_symtab *t, const struct elf_symtab *from);
void elf_symtab_free(struct elf_symtab *t);
/* What a file offers stack walking and naming (stackbox check). */
struct elf_facts {
	unsigned machine;     /* e_machine */
	unsigned functions;   /* sized functions whose entry was read */
	unsigned fp_prologue; /* of them, those that set up a frame pointer */
	bool eh_frame, debug_frame;
	bool symtab, dynsym;
	bool debugdata;	    /* .gnu_debugdata: MiniDebugInfo (xz) */
	bool debuglink;	    /* .gnu_debuglink: a separate debug file named */
	char build_id[129]; /* hex, "" when none */
};
/* Fill f for the file at path; 0, or -1 with errno when it is
 * unreadable or not ELF. The frame-pointer count is a heuristic: the
 * prologue that builds a frame record, looked for at each function's
 * entry (.symtab, else .dynsym) on x86_64 and arm64. */
int elf_facts(const char *path, struct elf_facts *f);
/* fn for each global or weak function the file defines in .dynsym, then
 * .symtab (so a name may come twice), with its file offset in an
 * executable segment: where a uprobe goes. *machine is its e_machine.
 * 0, or -1 with errno when the file is unreadable or not ELF. */
typedef void (*elf_function_fn)(const char *name, uint64_t off, void *arg);
int elf_each_function(const char *path, unsigned *machine, elf_function_fn fn,
		      void *arg);

/* ---- call sites ---- */
/* The target of the direct call whose return address is ret; code holds
 * the n bytes before ret, machine is the ELF e_machine. */
bool callsite_target(unsigned machine, const uint8_t *code, size_t n,
		     uint64_t ret, uint64_t *target);

/* ---- processes ---- */
/* An executable mapping, as /proc/PID/maps lists it. */
struct mapped_file;
struct proc_map {
	uint64_t start, end, pgoff;
	uint64_t dev; /* major << 32 | minor */
	uint64_t ino;
	const char *name;	  /* as maps names it: /usr/lib/libc.so.6 */
	bool has_file;		  /* a file is mapped (not [vdso], JIT code) */
	struct mapped_file *file; /* proc_map_path() opens it */
};
/* fn for each executable mapping of tgid; 0, or -1 with errno. */
int proc_maps_each_exec(const char *procfs, uint32_t tgid,
			void (*fn)(const struct proc_map *m, void *arg),
			void *arg);
/* The same over maps text already read (NUL-terminated; its lines are
 * cut in place); procfs and tgid say where proc_map_path opens files. */
void proc_maps_text_each_exec(char *text, const char *procfs, uint32_t tgid,
			      void (*fn)(const struct proc_map *m, void *arg),
			      void *arg);
/* Where m's file opens from, inside fn: /proc/self/fd/N of the file
 * opened inside the process's root (rootfs.h) on the first call, not
 * before (most mappings of a new process are of files already known);
 * NULL when no file is mapped or none opens. */
const char *proc_map_path(const struct proc_map *m);

struct proc_syms;
/* The deepest chain of inlined calls one address expands to. */
#define USYM_INLINE_MAX 16
struct usym {
	const char *sym; /* NULL when no symbol covers the address */
	uint64_t sym_off;
	/* calls inlined into sym at the address, innermost first */
	const char *inlined[USYM_INLINE_MAX];
	unsigned ninlined;
	const char *module;  /* basename of the mapped file, or NULL */
	uint64_t module_off; /* file offset of the address */
};
/* procfs is "/proc" on a device; tests point it at a fake tree. */
struct proc_syms *proc_syms_new(const char *procfs);
/* Read the process's maps and the symbols of its files now, while it
 * lives. Cached: files by (dev, inode), shared between processes.
 * Returns 0, or -1 with errno when the process cannot be read. */
int proc_syms_capture(struct proc_syms *ps, uint32_t tgid);
/* tgid is a fork of parent (at forked_at, CLOCK_MONOTONIC ns), and
 * neither has exec'd since: copy parent's mappings. -1: they were read
 * after the fork and parent_same does not say the parent's code is the
 * same since (capture tgid). */
int proc_syms_inherit(struct proc_syms *ps, uint32_t tgid, uint32_t parent,
		      uint64_t forked_at, bool parent_same);
/* Its mappings changed (exec): capture again. */
void proc_syms_exec(struct proc_syms *ps, uint32_t tgid);
/* It exited: keep what was captured until the next proc_syms_gc(). */
void proc_syms_exit(struct proc_syms *ps, uint32_t tgid);
/* Drop processes that exited before the last gc. */
void proc_syms_gc(struct proc_syms *ps);
/* Resolve addr in tgid; captures on first use. Returns 0 when a symbol
 * was found, -1 otherwise (u->module may still be set). */
int proc_syms_lookup(struct proc_syms *ps, uint32_t tgid, uint64_t addr,
		     struct usym *u);
/* Whether addr is in a mapping of tgid (u->module set by a lookup),
 * without naming it; captures as the lookup does. */
bool proc_syms_mapped(struct proc_syms *ps, uint32_t tgid, uint64_t addr);
/*
 * Leaf repair. Code without frame records (libc, a function's prologue)
 * is invisible to a frame-pointer walk, and so is the function that
 * called it: the walk's first return address, ret, returns into the
 * leaf's caller's caller. The direct call just before ret names the
 * function that owns the frame record; when that function is not the
 * leaf's own, it is the lost caller: *entry is set to its entry address
 * and 0 returned. -1 when nothing is known for certain.
 */
int proc_syms_lost_caller(struct proc_syms *ps, uint32_t tgid, uint64_t leaf,
			  uint64_t ret, uint64_t *entry);
void proc_syms_free(struct proc_syms *ps);
/* What the cache holds now: processes, files and their symbols. */
struct proc_syms_held {
	size_t procs, files, bytes;
};
void proc_syms_held(const struct proc_syms *ps, struct proc_syms_held *h);

/* ---- processes known from a recording (report, offline) ---- */
/* A mapping as a recording carries it. */
struct rec_map {
	uint64_t start, end, pgoff;
	const char *path;     /* as maps names it: /usr/bin/x, [vdso] */
	const char *build_id; /* hex, "" when unknown */
};
/* The executable mappings captured for tgid, sorted by start; the strings
 * stay valid as struct usym's do. *maps is malloc'ed; 0 when none. */
size_t proc_syms_maps(struct proc_syms *ps, uint32_t tgid,
		      struct rec_map **maps);
/* Opens the file of a recorded mapping (report: --symfs, --debug-dir),
 * and in *code_fd the file that holds its code (for leaf repair), or -1. */
typedef struct elf_symtab *(*proc_syms_finder)(void *ctx, const char *path,
					       const char *build_id,
					       int *code_fd);
void proc_syms_set_finder(struct proc_syms *ps, proc_syms_finder find,
			  void *ctx);
/* tgid's mappings are these (replacing what was known): it is never read
 * from procfs again nor dropped by gc. Files are opened through the finder
 * and shared by (path, build-id). */
void proc_syms_record(struct proc_syms *ps, uint32_t tgid,
		      const struct rec_map *maps, size_t n);

/* Kernel symbols known from a recording: exactly the addresses in index
 * resolve, each to names[its value - 1]; any other address to nothing.
 * index and names stay the caller's, read at each lookup: kept unchanged
 * while the table is used, and not freed with it. */
struct u64map;
struct ksyms *ksyms_exact(const struct u64map *index, const char *const *names);

#endif

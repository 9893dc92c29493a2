// SPDX-License-Identifier: GPL-2.0
/* Struct member offsets from kernel BTF (see kbtf.h). */
#include <bpf/btf.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "kbtf.h"

bool kbtf_available(void)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	char c;
	bool ok = fd >= 0 && read(fd, &c, 1) == 1; /* not an empty file */

	if (fd >= 0)
		close(fd);
	return ok;
}

/* Offset in bits of member inside the struct or union id, or -1. */
static long find_member(const struct btf *btf, int id, const char *member,
			unsigned *size, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	long off;

	if (!t || depth > 8 || !(btf_is_struct(t) || btf_is_union(t)))
		return -1;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);

		if (name && *name) {
			if (strcmp(name, member))
				continue;
			if (size)
				*size = btf__resolve_size(btf, m->type);
			return btf_member_bit_offset(t, i);
		}
		/* anonymous: its members are the struct's own */
		off = find_member(btf, btf__resolve_type(btf, m->type), member,
				  size, depth + 1);
		if (off >= 0)
			return off + btf_member_bit_offset(t, i);
	}
	return -1;
}

int kbtf_member(const struct btf *btf, const char *type, const char *member,
		unsigned *size)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	long bits = id > 0 ? find_member(btf, id, member, size, 0) : -1;

	return bits < 0 ? -1 : (int)(bits / 8);
}

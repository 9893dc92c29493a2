#!/bin/sh
# skel-zip.sh OBJ < SKEL > OUT: the bpftool skeleton SKEL, its embedded
# copy of the BPF object OBJ replaced by OBJ gzip-compressed.
#
# WHY: the objects keep their BTF and function and line info, which
# compress five to six times; embedded raw they were two thirds of a
# static binary with every applet. sb_elf_inflate() (common/core/elfzip.c)
# restores the object when the skeleton is opened. Runs on the build
# host with gzip, od and awk only.
#
# skel-zip.sh --bytes NAME OBJ > OUT.c: only OBJ, compressed the same
# way, as a C file with a function NAME(size_t *sz) returning it (a
# second object that a skeleton opens in place of its own: the legacy
# programs).
set -eu
if [ "$1" = --bytes ]; then
	name=$2 obj=$3
	size=$(wc -c <"$obj")
	echo "/* $(basename "$obj"), gzip-compressed: generated, do not edit */"
	echo "#include <stddef.h>"
	echo "const void *sb_elf_inflate(const unsigned char *gz, size_t len, size_t size, size_t *sz);"
	echo "const void *$name(size_t *sz);"
	echo "const void *$name(size_t *sz)"
	echo "{"
	printf '\tstatic const unsigned char gz[] = {\n'
	gzip -9 -n -c "$obj" | od -An -v -tx1 |
		awk '{ out = "\t"; for (i = 1; i <= NF; i++) out = out "0x" $i ","; print out }'
	printf '\t};\n'
	echo
	printf '\treturn sb_elf_inflate(gz, sizeof(gz), %s, sz);\n' "$size"
	echo "}"
	exit 0
fi
obj=$1
size=$(wc -c <"$obj")
gzip -9 -n -c "$obj" | od -An -v -tx1 >"$obj.gz.hex"
awk -v size="$size" -v hex="$obj.gz.hex" '
/^static inline const void \*[a-z0-9_]*__elf_bytes\(size_t \*sz\)$/ {
	print "const void *sb_elf_inflate(const unsigned char *gz, size_t len,"
	print "\t\t\t   size_t size, size_t *sz);"
	print
	skip = 1
	next
}
skip && $0 == "{" {
	print "{"
	print "\tstatic const unsigned char gz[] = {"
	while ((getline line < hex) > 0) {
		n = split(line, b, " ")
		out = "\t"
		for (i = 1; i <= n; i++)
			out = out "0x" b[i] ","
		print out
	}
	print "\t};"
	print ""
	print "\treturn sb_elf_inflate(gz, sizeof(gz), " size ", sz);"
	print "}"
	next
}
skip && $0 == "}" { skip = 0; next }
skip { next }
{ print }
'
rm -f "$obj.gz.hex"

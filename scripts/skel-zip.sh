#!/bin/sh
# skel-zip.sh OBJ < SKEL > OUT: the bpftool skeleton SKEL, its embedded
# copy of the BPF object OBJ replaced by OBJ gzip-compressed.
#
# WHY: the objects keep their BTF and function and line info, which
# compress five to six times; embedded raw they were two thirds of a
# static binary with every applet. sb_elf_inflate() (common/elfzip.c)
# restores the object when the skeleton is opened. Runs on the build
# host with gzip, od and awk only.
set -eu
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

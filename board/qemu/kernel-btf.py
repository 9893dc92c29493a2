#!/usr/bin/python3
"""kernel-btf.py VMLINUZ OUT: write the BTF a kernel image carries to OUT.

The boards' kernels have BTF; the no-BTF boards hide it and need, as a
BSP build would have it, the kernel's BTF on the build host to make the
minimal one (make btf-min BTF=OUT). Debian ships no vmlinux, so it is
taken from the boot image: arm64's Image holds the .BTF section as is,
x86's bzImage holds the kernel compressed (lz4 before 6.12, zstd since).
The BTF header gives the blob's length: magic 0xeb9f, version 1, flags
0, header 24 bytes, then type_off, type_len, str_off, str_len.
"""
import struct
import subprocess
import sys

HEADER = struct.pack("<HBBI", 0xEB9F, 1, 0, 24)
DECOMPRESSORS = [
    (b"\x02\x21\x4c\x18", ["lz4", "-dc"]),
    (b"\x28\xb5\x2f\xfd", ["zstd", "-dcq"]),
    (b"\x1f\x8b\x08", ["gzip", "-dc"]),
    (b"\xfd7zXZ\x00", ["xz", "-dc"]),
]


def find_btf(data):
    """The first well-formed BTF blob in data, or None."""
    i = data.find(HEADER)
    while i >= 0:
        type_off, type_len, str_off, str_len = struct.unpack_from("<4I", data, i + 8)
        end = i + 24 + str_off + str_len
        if type_off == 0 and str_off == type_len and str_len > 0 and end <= len(data):
            return data[i:end]
        i = data.find(HEADER, i + 1)
    return None


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: kernel-btf.py VMLINUZ OUT")
    with open(sys.argv[1], "rb") as f:
        image = f.read()
    btf = find_btf(image)
    for magic, cmd in DECOMPRESSORS:
        off = image.find(magic)
        tries = 0
        while btf is None and off >= 0 and tries < 8:
            # a decompressor stops with an error at the stream's end:
            # what it wrote before that is the kernel
            out = subprocess.run(cmd, input=image[off:], capture_output=True).stdout
            btf = find_btf(out)
            off = image.find(magic, off + 1)
            tries += 1
    if btf is None:
        sys.exit("kernel-btf.py: no BTF in %s" % sys.argv[1])
    with open(sys.argv[2], "wb") as f:
        f.write(btf)


if __name__ == "__main__":
    main()

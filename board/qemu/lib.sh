# Shared by the board/qemu scripts (sourced, not run): the cache location,
# the Debian architecture names, and fetching one .deb from the archive.

CACHE=${STACKBOX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stackbox}

# debarch ARCH: Debian's name for our architecture.
debarch() {
	case $1 in
	x86_64) echo amd64 ;;
	arm64) echo arm64 ;;
	*) echo "unknown arch '$1' (x86_64 or arm64)" >&2; return 1 ;;
	esac
}

# fetch_deb PKG:DEBARCH [PATH-IN-DEB...]: download the candidate version of
# PKG into the cache and unpack it (only the given paths, e.g. ./boot, when
# the package is large); print the directory it was unpacked into.
# Cached by name and version. Without apt lists (offline), the newest
# already unpacked version is used.
fetch_deb() {
	pkg=$1
	shift
	name=${pkg%%:*}
	a=${pkg#*:}
	ver=$(apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: //p')
	base=$CACHE/debs
	if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
		dir=$(ls -d "$base/${name}_"*"_$a/.done" 2>/dev/null | sort -V | tail -n 1)
		[ -n "$dir" ] || { echo "no Debian package $pkg (apt-get update?)" >&2; return 1; }
		dirname "$dir"
		return 0
	fi
	dir=$base/${name}_$(echo "$ver" | sed 's/^[0-9]*://')_$a
	if [ ! -f "$dir/.done" ]; then
		mkdir -p "$base"
		(
			# Concurrent callers (make -j) fetch the same package once.
			flock 9
			[ -f "$dir/.done" ] && exit 0
			cd "$base"
			rm -rf "$dir" "${name}"_*_"$a".deb
			# root downloads into our cache: apt's _apt user cannot write there
			apt-get -o APT::Sandbox::User=root download -q "$pkg=$ver" >&2 || exit 1
			mkdir -p "$dir"
			dpkg-deb --fsys-tarfile "$base/${name}"_*_"$a".deb |
				tar -x -C "$dir" "$@" || exit 1
			: >"$dir/.done"
		) 9>"$base/.lock-$name" || { echo "fetching $pkg failed" >&2; return 1; }
	fi
	echo "$dir"
}

# kernel_pkg ARCH: the Debian 12 kernel package the boards boot (x86_64
# takes the cloud flavour), resolved through its meta-package, never
# hard-coded; offline, any one fetched before.
kernel_pkg() {
	case $1 in
	x86_64) meta=linux-image-cloud-amd64:amd64 ;;
	arm64) meta=linux-image-arm64:arm64 ;;
	*) echo "unknown arch '$1' (x86_64 or arm64)" >&2; return 1 ;;
	esac
	ka=$(debarch "$1")
	# "Depends: linux-image-6.1.0-NN-cloud-amd64" (the arm64 one ends in :arm64).
	kp=$(apt-cache depends "$meta" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ :]*\).*/\1/p' | head -n 1)
	if [ -z "$kp" ]; then
		kp=$(ls -d "$CACHE/debs/linux-image-"*"_$ka/.done" 2>/dev/null |
			sort -V | tail -n 1 | sed 's|.*/\(linux-image-[^_]*\)_.*|\1|')
		[ -n "$kp" ] || { echo "cannot resolve $meta (apt-get update?)" >&2; return 1; }
	fi
	echo "$kp"
}

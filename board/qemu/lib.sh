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

# Shared by the board/qemu scripts (sourced, not run): the cache location,
# the Debian architecture names, apt lists private to the cache, and
# fetching one .deb from Debian's archive.
#
# WHY private lists: the boards boot three Debian releases' kernels on a
# host of any release; the system's sources and lists are never read or
# changed, so a board boots the same kernel on every host.

CACHE=${STACKBOX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stackbox}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org}

# debarch ARCH: Debian's name for our architecture.
debarch() {
	case $1 in
	x86_64) echo amd64 ;;
	arm64) echo arm64 ;;
	*) echo "unknown arch '$1' (x86_64 or arm64)" >&2; return 1 ;;
	esac
}

# suite_of KERNEL: the Debian release whose kernel a board boots.
suite_of() {
	case $1 in
	5.10) echo bullseye ;;
	6.1) echo bookworm ;;
	6.12) echo trixie ;;
	*) echo "unknown board kernel '$1' (5.10, 6.1 or 6.12)" >&2; return 1 ;;
	esac
}

# papt SUITE apt-get|apt-cache ARGS...: apt on SUITE's private lists in
# $CACHE/apt/SUITE. The empty status file keeps the host's installed
# packages out of the candidate; no preferences pin anything.
papt() {
	_d=$CACHE/apt/$1 _tool=$2
	shift 2
	"$_tool" -q -o Dir::Etc::SourceList="$_d/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null \
		-o Dir::State::Lists="$_d/lists" -o Dir::State::status="$_d/status" \
		-o Dir::Cache="$_d/cache" -o Debug::NoLocking=1 \
		-o APT::Architectures::=amd64 -o APT::Architectures::=arm64 \
		-o Acquire::Languages=none -o APT::Sandbox::User=root "$@"
}

# apt_update SUITE: make SUITE's private lists (SUITE, -updates and
# -security, so the newest kernel is the candidate), refreshed once a
# day. Offline, lists made before are used; with none, it fails and the
# callers fall back to what the cache holds.
apt_update() {
	_d=$CACHE/apt/$1
	mkdir -p "$_d/lists/partial" "$_d/cache/archives/partial"
	(
		flock 9
		[ -n "$(find "$_d/lists/.updated" -mmin -1440 2>/dev/null)" ] && exit 0
		_k=/usr/share/keyrings/debian-archive-keyring.gpg
		{
			echo "deb [signed-by=$_k] $MIRROR/debian $1 main"
			echo "deb [signed-by=$_k] $MIRROR/debian $1-updates main"
			echo "deb [signed-by=$_k] $MIRROR/debian-security $1-security main"
		} >"$_d/sources.list"
		: >"$_d/status"
		# apt-get update exits 0 when a source cannot be fetched: the
		# main suite's lists are the proof
		if papt "$1" apt-get update >"$_d/update.log" 2>&1 &&
			ls "$_d/lists/"*"_dists_$1_main_binary-"*Packages* >/dev/null 2>&1; then
			touch "$_d/lists/.updated"
			rm -f "$_d/unavailable"
		else
			echo "apt-get update for $1 failed (offline?): $(tail -n 1 "$_d/update.log")" >&2
			ls "$_d"/lists/*Packages* >/dev/null 2>&1
		fi
	) 9>"$_d/.lock"
}

# fetch_deb SUITE PKG:DEBARCH VERSION [PATH-IN-DEB...]: download that
# version of PKG into the cache and unpack it (only the given paths, tar
# wildcards, when the package is large); print the directory it was
# unpacked into. Cached by name and version; the .deb is kept for
# get-modules.sh.
fetch_deb() {
	_suite=$1 _pkg=$2 _ver=$3
	shift 3
	_name=${_pkg%%:*} _a=${_pkg#*:}
	_base=$CACHE/debs
	_dir=$_base/${_name}_$(echo "$_ver" | sed 's/^[0-9]*://')_$_a
	[ -f "$_dir/.done" ] && { echo "$_dir"; return 0; }
	mkdir -p "$_base"
	(
		# Concurrent callers (parallel boards) fetch a package once.
		flock 9
		[ -f "$_dir/.done" ] && exit 0
		cd "$_base" || exit 1
		rm -rf "$_dir" "${_name}"_*_"$_a".deb
		papt "$_suite" apt-get download "$_pkg=$_ver" >&2 || exit 1
		mkdir -p "$_dir"
		# A path the package lacks (a module built in) is no error.
		dpkg-deb --fsys-tarfile "$_base/${_name}"_*_"$_a".deb |
			tar -x -C "$_dir" --wildcards "$@" 2>"$_dir.err" ||
			! grep -v -e 'Not found in archive' -e 'Exiting with failure' \
				"$_dir.err" >&2 || exit 1
		rm -f "$_dir.err"
		: >"$_dir/.done"
	) 9>"$_base/.lock-$_name" || { echo "fetching $_pkg=$_ver failed" >&2; return 1; }
	echo "$_dir"
}

# versions SUITE PKG:DEBARCH: PKG's versions in SUITE's lists, newest first.
versions() {
	papt "$1" apt-cache madison "$2" 2>/dev/null |
		awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | sort -Vru
}

# Module directories unpacked with the kernel, so that get-modules.sh
# rarely needs another pass over the package (each pass decompresses all
# of it): the virtio disk, ext4 and what they depend on. Debian 13 ships
# /usr/lib/modules, the older ones /lib/modules.
KMOD_PATHS='*/modules/*/modules.builtin *lib/modules/*/kernel/fs/ext4
*lib/modules/*/kernel/fs/jbd2 *lib/modules/*/kernel/fs/mbcache.ko*
*lib/modules/*/kernel/lib *lib/modules/*/kernel/crypto/crc32c*
*lib/modules/*/kernel/drivers/block/virtio_blk.ko*
*lib/modules/*/kernel/drivers/virtio'

# kernel_dir KERNEL ARCH: unpack the board kernel's package (./boot and
# KMOD_PATHS) and print its directory. x86_64 takes the cloud flavour
# (smaller, with what qemu needs built in), arm64 the generic one. The
# package is the one the meta-package depends on, never a hard-coded
# ABI; when its newest version cannot be downloaded (bullseye-security's
# arm64 kernel answered 404 once), the next older meta-package version
# is tried, down to the main suite's. Offline, the last one unpacked.
kernel_dir() {
	_suite=$(suite_of "$1") && _ka=$(debarch "$2") || return 1
	case $2 in
	x86_64) _meta=linux-image-cloud-amd64 ;;
	arm64) _meta=linux-image-arm64 ;;
	esac
	_rec=$CACHE/apt/$_suite/kernel-$_ka
	apt_update "$_suite" || true
	# resolved since the lists were refreshed: apt-cache takes seconds
	if [ -n "$(find "$_rec" -newer "$CACHE/apt/$_suite/lists/.updated" 2>/dev/null)" ] &&
		[ -f "$(cat "$_rec")/.done" ]; then
		cat "$_rec"
		return 0
	fi
	for _mv in $(versions "$_suite" "$_meta:$_ka"); do
		# "Depends: linux-image-6.1.0-NN-cloud-amd64 (= 6.1.x-y)"
		_kp=$(papt "$_suite" apt-cache show "$_meta:$_ka=$_mv" 2>/dev/null |
			sed -n 's/^Depends: *\(linux-image-[0-9][^ ,:]*\).*/\1/p' | head -n 1)
		[ -n "$_kp" ] || continue
		for _kv in $(versions "$_suite" "$_kp:$_ka"); do
			# a 404 is remembered until the lists are refreshed
			! grep -qsx "$_kp:$_ka=$_kv" "$CACHE/apt/$_suite/unavailable" || continue
			_kd=$(fetch_deb "$_suite" "$_kp:$_ka" "$_kv" ./boot $KMOD_PATHS) || {
				echo "$_kp:$_ka=$_kv" >>"$CACHE/apt/$_suite/unavailable"
				continue
			}
			echo "$_kd" >"$_rec"
			echo "$_kd"
			return 0
		done
		echo "kernel $_kp ($1 $2): no version could be downloaded, trying an older one" >&2
	done
	if [ -f "$_rec" ] && [ -f "$(cat "$_rec")/.done" ]; then
		echo "kernel $1 $2: using the cached $(basename "$(cat "$_rec")")" >&2
		cat "$_rec"
		return 0
	fi
	echo "no $1 kernel for $2: Debian's archive unreachable and nothing cached" >&2
	return 1
}

# The Kconfig subset stackbox uses, read and resolved without a kconfig
# binary: Buildroot and Yocto call `make olddefconfig`, `yes '' | make
# oldconfig` and `make savedefconfig` with only a C compiler, awk and sh
# on the host. Called by scripts/config.sh, which documents the commands:
#   awk -v cmd=CMD -v srctree=DIR -v applets="FILE..." -v config=FILE \
#       [-v out=FILE] -f kconf.awk
# Understood: mainmenu, menu/endmenu, comment, if/endif, source, config
# and menuconfig with bool, int, hex, string, prompt, default [if],
# def_bool, depends on, help, and expressions of symbols with ! && || =
# != and parentheses. Anything else (choice, select, tristate) stops with
# one line naming the file and line, rather than resolving it wrongly.
# Files written are the ones Debian's kconfig-conf writes for the same
# input, byte for byte (tests/unit/image.sh compares them).

function die(msg) {
	print "kconf: " msg > "/dev/stderr"
	exit_code = 1
	exit 1
}

function warn(msg) { print "kconf: " msg > "/dev/stderr" }

function unquote(s) {
	if (s ~ /^".*"$/) {
		s = substr(s, 2, length(s) - 2)
		gsub(/\\"/, "\"", s)
		gsub(/\\\\/, "\\", s)
	}
	return s
}

function quote(s) {
	gsub(/\\/, "\\\\", s)
	gsub(/"/, "\\\"", s)
	return "\"" s "\""
}

function and_expr(a, b) {
	if (a == "") return b
	if (b == "") return a
	return "(" a ") && (" b ")"
}

# ---- parsing ----

function indent_width(line,   w, i, c) {
	w = 0
	for (i = 1; i <= length(line); i++) {
		c = substr(line, i, 1)
		if (c == "\t") w = w - w % 8 + 8
		else if (c == " ") w++
		else break
	}
	return w
}

# The rest of a line after its keyword, with one quoted string unquoted.
function arg_of(line) {
	sub(/^[ \t]*[A-Za-z_-]+[ \t]*/, "", line)
	return line
}

# A prompt or default with an optional trailing "if EXPR": sets
# split_val and split_cond.
function split_if(s,   q) {
	split_cond = ""
	if (s ~ /^"/) {
		match(s, /^"([^"\\]|\\.)*"/)
		split_val = substr(s, 1, RLENGTH)
		s = substr(s, RLENGTH + 1)
	} else {
		match(s, /^[^ \t]*/)
		split_val = substr(s, 1, RLENGTH)
		s = substr(s, RLENGTH + 1)
	}
	sub(/^[ \t]+/, "", s)
	if (s ~ /^if[ \t]/) {
		split_cond = s
		sub(/^if[ \t]+/, "", split_cond)
	} else if (s != "" && s !~ /^#/) {
		# A default can be an expression: take the whole text
		split_val = split_val " " s
		if (match(split_val, /[ \t]if[ \t]/)) {
			split_cond = substr(split_val, RSTART + RLENGTH)
			split_val = substr(split_val, 1, RSTART - 1)
		}
	}
}

function new_item(kind, text, dep) {
	nitems++
	item_kind[nitems] = kind
	item_text[nitems] = text
	item_dep[nitems] = dep
	return nitems
}

function ctx_dep(   i, d) {
	d = ""
	for (i = 1; i <= ndep; i++) d = and_expr(d, depstack[i])
	return d
}

function entry_line(where, line,   kw, a, s) {
	kw = line
	sub(/^[ \t]+/, "", kw)
	sub(/[ \t].*/, "", kw)
	a = arg_of(line)
	if (kw == "mainmenu") {
		mainmenu = unquote(a)
	} else if (kw == "menu") {
		split_if(a)
		cur_item = new_item("menu", unquote(split_val), ctx_dep())
		cur_sym = ""
		depstack[++ndep] = ""
		menu_depth[ndep] = "menu"
	} else if (kw == "endmenu") {
		if (ndep == 0 || menu_depth[ndep] != "menu") die(where ": endmenu without menu")
		ndep--
		new_item("endmenu", "", "")
		cur_item = 0; cur_sym = ""
	} else if (kw == "if") {
		depstack[++ndep] = a
		menu_depth[ndep] = "if"
		cur_item = 0; cur_sym = ""
	} else if (kw == "endif") {
		if (ndep == 0 || menu_depth[ndep] != "if") die(where ": endif without if")
		ndep--
		cur_item = 0; cur_sym = ""
	} else if (kw == "comment") {
		cur_item = new_item("comment", unquote(a), ctx_dep())
		cur_sym = ""
	} else if (kw == "config" || kw == "menuconfig") {
		s = a
		if (s !~ /^[A-Za-z0-9_]+$/) die(where ": bad symbol name '" s "'")
		if (s in stype) die(where ": " s " defined twice")
		stype[s] = ""
		sdep[s] = ctx_dep()
		ndefs[s] = 0
		cur_item = new_item("sym", s, "")
		cur_sym = s
		nsyms++
	} else if (kw == "source") {
		a = unquote(a)
		if (a == "applets/Config.in") parse_applets()
		else parse_file(srctree "/" a)
		cur_item = 0; cur_sym = ""
	} else if (kw == "depends") {
		if (a !~ /^on[ \t]/) die(where ": 'depends' without 'on'")
		sub(/^on[ \t]+/, "", a)
		if (cur_sym != "") sdep[cur_sym] = and_expr(sdep[cur_sym], a)
		else if (cur_item && item_kind[cur_item] == "menu") {
			depstack[ndep] = and_expr(depstack[ndep], a)
			item_dep[cur_item] = and_expr(item_dep[cur_item], a)
		} else if (cur_item && item_kind[cur_item] == "comment")
			item_dep[cur_item] = and_expr(item_dep[cur_item], a)
		else die(where ": 'depends on' outside an entry")
	} else if (cur_sym != "" && (kw == "bool" || kw == "int" || kw == "hex" || kw == "string")) {
		stype[cur_sym] = kw
		if (a != "") { split_if(a); sprompt[cur_sym] = unquote(split_val); spcond[cur_sym] = split_cond }
	} else if (cur_sym != "" && kw == "def_bool") {
		stype[cur_sym] = "bool"
		split_if(a)
		add_default(cur_sym, split_val, split_cond)
	} else if (cur_sym != "" && kw == "prompt") {
		split_if(a); sprompt[cur_sym] = unquote(split_val); spcond[cur_sym] = split_cond
	} else if (cur_sym != "" && kw == "default") {
		split_if(a)
		add_default(cur_sym, split_val, split_cond)
	} else if (kw == "help" || kw == "---help---") {
		in_help = 1
		help_indent = -1
	} else {
		die(where ": '" kw "' is not understood by scripts/kconf.awk")
	}
}

function add_default(s, v, c) {
	ndefs[s]++
	sdefv[s, ndefs[s]] = v
	sdefc[s, ndefs[s]] = c
}

# One line of a Kconfig file: help text is skipped by its indentation.
function kconfig_line(where, line,   w) {
	if (in_help) {
		if (line ~ /^[ \t]*$/) {
			if (cur_sym != "") shelp[cur_sym] = shelp[cur_sym] "\n"
			return
		}
		w = indent_width(line)
		if (help_indent < 0) help_indent = w
		if (w >= help_indent && w > 0) {
			if (cur_sym != "") shelp[cur_sym] = shelp[cur_sym] line "\n"
			return
		}
		in_help = 0
	}
	if (line ~ /^[ \t]*(#|$)/) return
	entry_line(where, line)
}

function parse_file(path,   line, n, r, full) {
	n = 0
	full = ""
	while ((r = (getline line < path)) > 0) {
		n++
		if (line ~ /\\$/) { full = full substr(line, 1, length(line) - 1); continue }
		kconfig_line(path ":" n, full line)
		full = ""
	}
	if (r < 0) die(path ": cannot read")
	close(path)
}

# applets/Config.in is generated from the applets' //config: lines: read
# those, so configuration works before the first build generated it.
function parse_applets(   n, i, f, line, k) {
	n = split(applets, af, " ")
	for (i = 1; i <= n; i++) {
		f = af[i]
		k = 0
		while ((getline line < f) > 0) {
			k++
			if (line !~ /^\/\/config:/) continue
			kconfig_line(f ":" k, substr(line, 10))
		}
		close(f)
		in_help = 0
	}
}

# ---- expressions: compiled to postfix, then evaluated with local stacks
# so symbol lookups may recurse ----

function prec(op) {
	if (op == "=" || op == "!=") return 4
	if (op == "!") return 3
	if (op == "&&") return 2
	if (op == "||") return 1
	return 0
}

function compile(expr,   s, out, ops, nops, t, p) {
	if (expr in compiled) return compiled[expr]
	s = expr
	out = ""
	nops = 0
	while (s != "") {
		if (match(s, /^[ \t]+/)) { s = substr(s, RLENGTH + 1); continue }
		if (match(s, /^(&&|\|\||!=|[!()=])/) || match(s, /^"([^"\\]|\\.)*"/) ||
		    match(s, /^[A-Za-z0-9_x-]+/)) {
			t = substr(s, 1, RLENGTH)
			s = substr(s, RLENGTH + 1)
		} else
			die("cannot parse expression '" expr "'")
		if (t == "(") ops[++nops] = t
		else if (t == ")") {
			while (nops > 0 && ops[nops] != "(") out = out " " ops[nops--]
			if (nops == 0) die("unbalanced ')' in '" expr "'")
			nops--
		} else if (t == "!") ops[++nops] = t
		else if ((p = prec(t)) > 0) {
			while (nops > 0 && ops[nops] != "(" && prec(ops[nops]) >= p)
				out = out " " ops[nops--]
			ops[++nops] = t
		} else {
			gsub(/ /, "\001", t)
			out = out " " t
		}
	}
	while (nops > 0) {
		if (ops[nops] == "(") die("unbalanced '(' in '" expr "'")
		out = out " " ops[nops--]
	}
	compiled[expr] = out
	return out
}

# Tristate values: n 0, m 1, y 2. "#N" is a computed value on the stack.
function tri(x) {
	if (x ~ /^#/) return substr(x, 2) + 0
	if (x == "y") return 2
	if (x == "m") return 1
	if (x in stype) return stype[x] == "bool" && value(x) == "y" ? 2 : 0
	return 0
}

function str(x) {
	if (x ~ /^#/) return x == "#2" ? "y" : x == "#1" ? "m" : "n"
	if (x ~ /^"/) { gsub(/\001/, " ", x); return unquote(x) }
	if (x in stype) return unquote(value(x))
	return x
}

function eval(expr,   n, t, i, st, sp, a, b) {
	if (expr == "") return 2
	n = split(compile(expr), t, " ")
	sp = 0
	for (i = 1; i <= n; i++) {
		if (t[i] == "!") { a = tri(st[sp]); st[sp] = "#" (2 - a) }
		else if (t[i] == "&&" || t[i] == "||") {
			b = tri(st[sp--]); a = tri(st[sp])
			if (t[i] == "&&") st[sp] = "#" (a < b ? a : b)
			else st[sp] = "#" (a > b ? a : b)
		} else if (t[i] == "=" || t[i] == "!=") {
			b = str(st[sp--]); a = str(st[sp])
			st[sp] = "#" (((a == b) == (t[i] == "=")) ? 2 : 0)
		} else st[++sp] = t[i]
	}
	if (sp != 1) die("bad expression '" expr "'")
	return tri(st[1])
}

# ---- values ----

function visible(s) {
	return sprompt[s] != "" && eval(sdep[s]) > 0 && eval(spcond[s]) > 0
}

function has_user(s) { return (s in uval) }

# kconfig-conf writes a symbol a user can see, or one with a default in
# force.
function written(s,   k) {
	if (eval(sdep[s]) == 0) return 0
	if (visible(s)) return 1
	for (k = 1; k <= ndefs[s]; k++)
		if (eval(sdefc[s, k]) > 0) return 1
	return 0
}

# The default a symbol takes without a user value.
function default_value(s,   k, v) {
	for (k = 1; k <= ndefs[s]; k++) {
		if (eval(sdefc[s, k]) == 0) continue
		v = sdefv[s, k]
		if (stype[s] == "bool") return eval(v) > 0 ? "y" : "n"
		if (stype[s] == "string" && v !~ /^"/) v = (v in stype) ? value(v) : quote(v)
		return v
	}
	if (stype[s] == "bool") return "n"
	return stype[s] == "string" ? "\"\"" : ""
}

function value(s,   v) {
	if (busy[s]) die("dependency loop through " s)
	busy[s] = 1
	if (eval(sdep[s]) == 0) v = stype[s] == "bool" ? "n" : ""
	else if (has_user(s) && visible(s)) v = uval[s]
	else v = default_value(s)
	busy[s] = 0
	return v
}

# ---- the .config ----

function read_config(path,   line, n, s, v, r) {
	n = 0
	while ((r = (getline line < path)) > 0) {
		n++
		if (match(line, /^CONFIG_[A-Za-z0-9_]+=/)) {
			s = substr(line, 8, RLENGTH - 8)
			v = substr(line, RLENGTH + 1)
		} else if (match(line, /^# CONFIG_[A-Za-z0-9_]+ is not set$/)) {
			s = substr(line, 10, RLENGTH - 20)
			v = "n"
		} else {
			if (line !~ /^[ \t]*(#.*)?$/)
				note(path ":" n ": not a config line: " line)
			continue
		}
		if (!(s in stype)) { note(path ":" n ": unknown symbol CONFIG_" s ", dropped"); continue }
		if (!valid(s, v)) { note(path ":" n ": CONFIG_" s "=" v ": not a " stype[s] ", dropped"); continue }
		uval[s] = v
	}
	if (r < 0) die(path ": cannot read")
	close(path)
}

# Only the commands that write a .config say what they dropped; the
# build's own reads stay quiet.
function note(msg) { if (cmd ~ /^old|^save|^defaults/) warn(msg) }

function valid(s, v) {
	if (stype[s] == "bool") return v == "y" || v == "n"
	if (stype[s] == "int") return v ~ /^-?[0-9]+$/
	if (stype[s] == "hex") return v ~ /^0[xX][0-9a-fA-F]+$/
	return v ~ /^"([^"\\]|\\.)*"$/
}

function config_line(s, v) {
	if (stype[s] == "bool" && v != "y") return "# CONFIG_" s " is not set"
	return "CONFIG_" s "=" v
}

function write_config(dst,   i, s) {
	print "#\n# Automatically generated file; DO NOT EDIT.\n# " mainmenu "\n#" > dst
	for (i = 1; i <= nitems; i++) {
		if (item_kind[i] == "menu" || item_kind[i] == "comment") {
			if (eval(item_dep[i]) > 0) print "\n#\n# " item_text[i] "\n#" > dst
		} else if (item_kind[i] == "sym") {
			s = item_text[i]
			if (written(s)) print config_line(s, value(s)) > dst
		}
	}
	close(dst)
}

# What differs from the defaults, among the symbols a user can set.
function write_defconfig(dst,   i, s, v, d) {
	printf "" > dst
	for (i = 1; i <= nitems; i++) {
		if (item_kind[i] != "sym") continue
		s = item_text[i]
		if (!visible(s)) continue
		v = value(s)
		d = default_value(s)
		if (v != d) print config_line(s, v) > dst
	}
	close(dst)
}

# oldconfig: ask for each visible symbol the .config does not set; an
# empty answer (or the end of input) takes the default.
function ask(s,   d, q, ans, r) {
	d = default_value(s)
	if (stype[s] == "bool") q = d == "y" ? "Y/n/?" : "N/y/?"
	else q = unquote(d)
	for (;;) {
		printf "%s (%s) [%s] (NEW) ", sprompt[s], s, q
		fflush()
		r = (getline ans < "/dev/stdin")
		if (r <= 0) ans = ""
		if (r <= 0 || !interactive) print ans
		if (ans == "?") { printf "%s", shelp[s]; continue }
		if (ans == "") return d
		if (stype[s] == "bool") {
			if (ans ~ /^[yY]([eE][sS])?$/) return "y"
			if (ans ~ /^[nN][oO]?$/) return "n"
			continue
		}
		if (stype[s] == "string") ans = quote(ans)
		if (valid(s, ans)) return ans
	}
}

function oldconfig(   i, s, m) {
	for (i = 1; i <= nitems; i++) {
		if (item_kind[i] == "menu" && eval(item_dep[i]) > 0) m = item_text[i]
		if (item_kind[i] != "sym") continue
		s = item_text[i]
		if (has_user(s) || !visible(s)) continue
		if (m != "") { print "*\n* " m "\n*"; m = "" }
		uval[s] = ask(s)
	}
}

function applet_enabled(   n, i, f, name, sym) {
	n = split(applets, af, " ")
	for (i = 1; i <= n; i++) {
		name = af[i]
		sub(/.*\//, "", name)
		sub(/\.c$/, "", name)
		sym = toupper(name)
		if ((sym in stype) && stype[sym] == "bool" && value(sym) == "y") print name
	}
}

function header(   i, s, v) {
	print "/* Generated from " config " by scripts/config.sh: do not edit. */"
	for (i = 1; i <= nitems; i++) {
		if (item_kind[i] != "sym") continue
		s = item_text[i]
		v = value(s)
		if (stype[s] == "bool") {
			if (v == "y") {
				print "#define CONFIG_" s " 1"
				print "#define ENABLE_" s " 1"
				print "#define IF_" s "(...) __VA_ARGS__"
				print "#define IF_NOT_" s "(...)"
			} else {
				print "#define ENABLE_" s " 0"
				print "#define IF_" s "(...)"
				print "#define IF_NOT_" s "(...) __VA_ARGS__"
			}
		} else if (v != "")
			print "#define CONFIG_" s " " v
	}
}

function make_vars(   i, s, v) {
	print "# Generated from " config " by scripts/config.sh: do not edit."
	for (i = 1; i <= nitems; i++) {
		if (item_kind[i] != "sym") continue
		s = item_text[i]
		v = value(s)
		if (stype[s] != "bool" || v == "y") print "CONFIG_" s "=" v
	}
}

BEGIN {
	mainmenu = "Main menu"
	parse_file(srctree "/Kconfig")
	if (ndep != 0) die(srctree "/Kconfig: a menu or if is not closed")
	for (s in stype) if (stype[s] == "") die("CONFIG_" s " has no type")
	if (config != "") read_config(config)
	if (cmd == "defaults" || cmd == "olddefconfig") write_config(out == "" ? "/dev/stdout" : out)
	else if (cmd == "oldconfig") { oldconfig(); write_config(out) }
	else if (cmd == "savedefconfig") write_defconfig(out)
	else if (cmd == "header") header()
	else if (cmd == "make") make_vars()
	else if (cmd == "enabled") applet_enabled()
	else die("unknown command '" cmd "'")
	exit 0
}

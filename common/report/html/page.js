/* report -f html: the page's script (embedded by the build). The data
 * (html.c): frames, stacks of frame numbers (root first, as folded's),
 * per stream its snapshots' times (seconds after t0, start and end)
 * and values ([stack number delta, value, ...]). A selection is a time
 * range of one stream; its flame graph sums the snapshots it overlaps
 * (a level, such as memory held, takes the last); with a base range,
 * the colours say what grew (red) and shrank (blue), as --base does. */
(function () {
	'use strict';
	var D = JSON.parse(document.getElementById('sb-data').textContent);
	var W = 1200, BAND = 36, AXIS = 18, STRIP = 14, ROW = 16;
	var state = { errors: 0, draws: 0 };
	var sel = null, base = null, stream = 0, zoom = null, drag = null;
	var tmin = Infinity, tmax = -Infinity;

	window.addEventListener('error', function () { state.errors++; publish(); });

	D.streams.forEach(function (s) {
		s.n = s.t.length / 2;
		s.total = [];
		for (var i = 0; i < s.n; i++) {
			var sum = 0;
			for (var k = 1; k < s.v[i].length; k += 2) sum += s.v[i][k];
			s.total.push(sum);
			tmin = Math.min(tmin, s.t[2 * i]);
			tmax = Math.max(tmax, s.t[2 * i + 1]);
		}
		s.max = Math.max.apply(null, s.total.concat([1]));
	});
	if (!(tmax > tmin)) { tmin = 0; tmax = 1; }

	/* ---- the page ---- */
	function el(tag, attrs, parent) {
		var e = document.createElement(tag);
		for (var k in attrs) e.setAttribute(k, attrs[k]);
		if (parent) parent.appendChild(e);
		return e;
	}
	var h1 = el('h1', {}, document.body);
	h1.textContent = D.title;
	var heat = el('canvas', { id: 'sb-heat', tabindex: '0' }, document.body);
	var bar = el('div', { id: 'sb-bar' }, document.body);
	var selText = el('span', { id: 'sb-sel' }, bar);
	var search = el('input', { id: 'sb-search', placeholder: 'search (regexp)' }, bar);
	var reset = el('button', { id: 'sb-reset' }, bar);
	reset.textContent = 'reset zoom';
	var clearBase = el('button', { id: 'sb-clear-base' }, bar);
	clearBase.textContent = 'no base';
	var help = el('span', { id: 'sb-help' }, bar);
	help.textContent = 'drag: select; shift+drag: base (differential); ' +
		'arrows: move, shift+arrows: resize; b: selection to base; ' +
		'click a frame: zoom; marks and anomalies: click';
	var tip = el('div', { id: 'sb-tip' }, document.body);
	var flame = el('div', { id: 'sb-flame' }, document.body);
	var stateEl = el('pre', { id: 'sb-state' }, document.body);
	var bands = D.streams.length;
	var H = AXIS + 2 * STRIP + bands * BAND;
	var dpr = window.devicePixelRatio || 1;
	heat.width = W * dpr;
	heat.height = H * dpr;
	heat.style.width = W + 'px';
	heat.style.height = H + 'px';
	var cx = heat.getContext('2d');
	cx.scale(dpr, dpr);

	function x(t) { return (t - tmin) / (tmax - tmin) * W; }
	function t(px) { return tmin + px / W * (tmax - tmin); }

	/* light yellow to dark red: how much of the stream's peak */
	function heatColour(f) {
		var r = 255 - Math.round(80 * f), g = Math.round(245 * (1 - f)),
			b = Math.round(200 * (1 - f) * (1 - f));
		return 'rgb(' + r + ',' + g + ',' + b + ')';
	}

	var markers = []; /* {x, y, from, to, base_from, base_to, text} */
	function drawHeat() {
		cx.clearRect(0, 0, W, H);
		cx.font = '11px sans-serif';
		D.streams.forEach(function (s, b) {
			var y0 = 2 * STRIP + b * BAND;
			cx.fillStyle = '#eee';
			cx.fillRect(0, y0, W, BAND - 2);
			for (var i = 0; i < s.n; i++) {
				var x0 = x(s.t[2 * i]), x1 = x(s.t[2 * i + 1]);
				cx.fillStyle = heatColour(s.total[i] / s.max);
				cx.fillRect(x0, y0, Math.max(1, x1 - x0), BAND - 2);
			}
			cx.fillStyle = '#000';
			cx.fillText(s.applet + ' (' + s.metric + ')', 4, y0 + 12);
		});
		drawRange(base, 'rgba(0,80,255,0.25)', 'rgb(0,80,255)');
		drawRange(sel, 'rgba(0,0,0,0.18)', '#000');
		drawAxis();
		drawMarkers();
	}
	function drawRange(r, fill, line) {
		if (!r) return;
		var y0 = 2 * STRIP + r.stream * BAND;
		cx.fillStyle = fill;
		cx.fillRect(x(r.from), y0, Math.max(2, x(r.to) - x(r.from)), BAND - 2);
		cx.strokeStyle = line;
		cx.strokeRect(x(r.from), y0, Math.max(2, x(r.to) - x(r.from)), BAND - 2);
	}
	function drawAxis() {
		var y = H - AXIS + 12, span = tmax - tmin, step = 1;
		[1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600].some(function (s) {
			step = s;
			return span / s <= 12;
		});
		cx.fillStyle = '#444';
		for (var s = 0; s <= span; s += step) {
			cx.fillRect(x(tmin + s), H - AXIS, 1, 4);
			cx.fillText('+' + s + 's', Math.min(x(tmin + s) + 2, W - 40), y);
		}
	}
	function drawMarkers() {
		markers = [];
		D.marks.forEach(function (m) {
			var next = D.marks.filter(function (o) { return o.t > m.t; })[0];
			var end = Math.min(next ? next.t : tmax, m.t + 60);
			markers.push({ y: 0, t: m.t, colour: '#7a00c0', from: m.t, to: end,
				base_from: m.t - (end - m.t), base_to: m.t, kind: m.kind,
				text: 'mark ' + m.n + ' ' + m.kind + ': ' + m.cause });
		});
		D.anomalies.forEach(function (a) {
			var b = Math.max(0, D.streams.map(function (s) { return s.applet; }).indexOf(a.applet));
			markers.push({ y: STRIP, t: a.start - D.t0, colour: a.kind === 'vanished' ||
				a.kind === 'shrank' ? '#0050ff' : '#e00000', stream: b,
				from: a.start - D.t0, to: a.end - D.t0,
				base_from: a.baseline_start - D.t0, base_to: a.start - D.t0,
				kind: a.kind, text: 'anomaly ' + a.id + ' (' + a.applet + '): ' + a.kind +
					': ' + (a.stack || [a.leaf]).slice(0, 5).join(' <- ') });
		});
		markers.forEach(function (m) {
			m.x = x(m.t);
			cx.fillStyle = m.colour;
			cx.beginPath();
			cx.moveTo(m.x - 5, m.y + 1);
			cx.lineTo(m.x + 5, m.y + 1);
			cx.lineTo(m.x, m.y + STRIP - 2);
			cx.fill();
		});
	}

	/* ---- times: T as report's --from takes them ---- */
	var UNITS = { ns: 1e-9, us: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600, '': 1 };
	function parseT(v) {
		var m = /^\+([0-9]+(?:\.[0-9]*)?)(ns|us|ms|s|m|h)?$/.exec(v);
		if (m) return parseFloat(m[1]) * UNITS[m[2] || ''] + tmin;
		if (/^[0-9]+(\.[0-9]*)?$/.test(v)) return parseFloat(v) - D.t0;
		return NaN;
	}
	function fmtT(v) { return '+' + Math.round((v - tmin) * 1000) + 'ms'; }
	function readHash() {
		var q = {};
		location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
			var i = kv.indexOf('=');
			if (i > 0) q[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
		});
		var s = D.streams.map(function (x) { return x.applet; }).indexOf(q.stream);
		stream = s < 0 ? 0 : s;
		sel = range(q.from, q.to);
		base = range(q.base_from, q.base_to);
	}
	function range(a, b) {
		if (a === undefined && b === undefined) return null;
		var from = a === undefined ? tmin : parseT(a), to = b === undefined ? tmax : parseT(b);
		if (isNaN(from) || isNaN(to)) return null;
		return { from: Math.min(from, to), to: Math.max(from, to), stream: stream };
	}
	var written = '';
	function writeHash() {
		var h = '';
		if (sel) h = 'from=' + fmtT(sel.from) + '&to=' + fmtT(sel.to);
		if (sel && base) h += '&base_from=' + fmtT(base.from) + '&base_to=' + fmtT(base.to);
		if (h && stream) h += '&stream=' + encodeURIComponent(D.streams[stream].applet);
		written = h;
		history.replaceState(null, '', h ? '#' + h : location.pathname + location.search);
	}

	/* ---- the flame graph of a range ---- */
	function node(name) { return { name: name, v: 0, b: 0, kids: Object.create(null), list: [] }; }
	/* the range's value of each stack first (a flat sum over its
	 * snapshots), then the tree of the stacks that have one */
	function add(root, r, field) {
		var s = D.streams[r.stream], last = -1, sum = new Float64Array(D.stacks.length);
		for (var i = 0; i < s.n; i++) {
			if (!(s.t[2 * i + 1] > r.from && s.t[2 * i] < r.to)) continue;
			if (s.level) { last = i; continue; }
			addSnapshot(sum, s.v[i]);
		}
		if (last >= 0) addSnapshot(sum, s.v[last]);
		for (var id = 0; id < sum.length; id++)
			if (sum[id]) addStack(root, D.stacks[id], sum[id], field);
	}
	function addSnapshot(sum, pairs) {
		for (var k = 0, id = 0; k < pairs.length; k += 2) {
			id += pairs[k];
			sum[id] += pairs[k + 1];
		}
	}
	function addStack(root, st, v, field) {
		var n = root;
		n[field] += v;
		for (var j = 0; j < st.length; j++) {
			var name = D.frames[st[j]], c = n.kids[name];
			if (!c) { c = n.kids[name] = node(name); n.list.push(c); }
			c[field] += v;
			n = c;
		}
	}
	function hue(name) {
		var h = 0;
		for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
		return h;
	}
	function colour(n, root) {
		if (!base) {
			var h = hue(n.name);
			return 'rgb(' + (205 + h % 50) + ',' + (90 + (h >> 8) % 130) + ',' + ((h >> 16) % 55) + ')';
		}
		var d = (root.v ? n.v / root.v : 0) - (root.b ? n.b / root.b : 0);
		/* as the SVG: unchanged within half a unit of the base scaled
		 * to the same total, a difference no count could show */
		if (Math.abs(n.v - n.b * (root.b ? root.v / root.b : 0)) < 0.5)
			return 'rgb(221,221,221)';
		var k = Math.round(255 * (1 - Math.min(1, Math.abs(d) / root.maxd)));
		return d > 0 ? 'rgb(255,' + k + ',' + k + ')' : 'rgb(' + k + ',' + k + ',255)';
	}
	function maxDelta(n, root) {
		var m = Math.abs((root.v ? n.v / root.v : 0) - (root.b ? n.b / root.b : 0));
		n.list.forEach(function (c) { m = Math.max(m, maxDelta(c, root)); });
		return m;
	}
	var drawn = [];
	function esc(s) { return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;'); }
	function label(n, root) {
		var s = D.streams[sel.stream];
		var txt = n.name + ' (' + n.v + ' ' + s.unit + ', ' +
			(100 * n.v / (root.v || 1)).toFixed(2) + '%';
		if (base) {
			var d = 100 * ((root.v ? n.v / root.v : 0) - (root.b ? n.b / root.b : 0));
			txt += '; base ' + n.b + ', ' + (d >= 0 ? '+' : '') + d.toFixed(2) + '%';
		}
		return txt + ')';
	}
	function drawFlame() {
		var t0 = performance.now();
		if (!sel) {
			flame.innerHTML = '';
			selText.textContent = 'no selection: drag on the heatmap';
			publish();
			return;
		}
		var root = node('all');
		add(root, sel, 'v');
		if (base) add(root, base, 'b');
		root.maxd = Math.max(maxDelta(root, root), 1e-9);
		state.sum_ms = performance.now() - t0; /* the tree; the rest: the DOM */
		var top = zoom ? find(root, zoom) : root;
		if (!top) { zoom = null; top = root; }
		var out = [], depth = 0, re = null;
		try { re = search.value ? new RegExp(search.value) : null; } catch (e) { re = null; }
		drawn = [];
		var matched = 0;
		/* ancestors of the zoomed frame: full width */
		var path = zoom || [], n = root;
		for (var d = 0; d <= path.length && n; d++) {
			emit(n, 0, W, d, true);
			n = d < path.length ? n.kids[path[d]] : null;
		}
		function emit(n, x0, w, d, anc) {
			var i = drawn.length, hit = re && re.test(n.name);
			drawn.push(n);
			if (hit) matched += n.v;
			out.push({ d: d, html: '<div class="fr' + (hit ? ' hit' : '') +
				(anc && n !== top ? ' dim' : '') + '" data-i="' + i + '" title="' +
				esc(label(n, root)) + '" style="left:' + x0.toFixed(1) + 'px;width:' +
				w.toFixed(1) + 'px;top:@px;background:' + colour(n, root) + '">' +
				(w > 28 ? esc(n.name) : '') + '</div>' });
			depth = Math.max(depth, d);
		}
		(function walk(n, x0, w, d) {
			var kids = n.list.slice().sort(function (a, b) { return a.name < b.name ? -1 : 1; });
			var at = x0;
			kids.forEach(function (c) {
				var cw = n.v ? w * c.v / n.v : 0;
				if (cw >= 1) { emit(c, at, cw, d + 1, false); walk(c, at, cw, d + 1); }
				at += cw;
			});
		})(top, 0, W, path.length);
		/* the root at the bottom, as flame graphs are drawn */
		out = out.map(function (o) { return o.html.replace('@', (depth - o.d) * ROW); });
		flame.style.height = ((depth + 1) * ROW) + 'px';
		flame.innerHTML = out.join('');
		var s = D.streams[sel.stream];
		selText.textContent = s.applet + ' ' + fmtT(sel.from) + ' .. ' + fmtT(sel.to) +
			': ' + root.v + ' ' + s.unit + (base ? ' against ' + fmtT(base.from) + ' .. ' +
			fmtT(base.to) + ': ' + root.b : '') +
			(re ? '; matched ' + (100 * matched / (root.v || 1)).toFixed(2) + '%' : '');
		void flame.offsetHeight; /* style and layout in the time too */
		state.draw_ms = performance.now() - t0;
		state.draws++;
		state.total = root.v;
		state.base_total = base ? root.b : null;
		publish();
	}
	function find(root, path) {
		var n = root;
		for (var i = 0; i < path.length && n; i++) n = n.kids[path[i]];
		return n;
	}
	function pathOf(target) {
		var root = drawn[0], out = [];
		(function walk(n, p) {
			if (n === target) { out = p.slice(); return true; }
			return n.list.some(function (c) { return walk(c, p.concat([c.name])); });
		})(root, []);
		return out;
	}
	flame.addEventListener('click', function (e) {
		var i = e.target.getAttribute && e.target.getAttribute('data-i');
		if (i === null || i === undefined) return;
		zoom = pathOf(drawn[+i]);
		if (!zoom.length) zoom = null;
		drawFlame();
	});
	flame.addEventListener('mousemove', function (e) {
		var i = e.target.getAttribute && e.target.getAttribute('data-i');
		tip.textContent = i === null || i === undefined ? '' : e.target.getAttribute('title');
	});
	search.addEventListener('input', drawFlame);
	reset.addEventListener('click', function () { zoom = null; drawFlame(); });
	clearBase.addEventListener('click', function () { base = null; update(); });

	/* ---- selecting ---- */
	function update() { writeHash(); drawHeat(); drawFlame(); }
	function bandAt(y) { return Math.max(0, Math.min(bands - 1, Math.floor((y - 2 * STRIP) / BAND))); }
	heat.addEventListener('mousedown', function (e) {
		var r = heat.getBoundingClientRect(), px = e.clientX - r.left, py = e.clientY - r.top;
		if (py < 2 * STRIP) {
			var m = markers.filter(function (m) { return Math.abs(m.x - px) <= 6 && py >= m.y && py < m.y + STRIP; })[0];
			if (m) {
				stream = m.stream || 0;
				sel = { from: m.from, to: m.to, stream: stream };
				base = m.base_to > m.base_from ? { from: m.base_from, to: m.base_to, stream: stream } : null;
				zoom = null;
				update();
			}
			return;
		}
		stream = bandAt(py);
		drag = { x: px, base: e.shiftKey };
	});
	window.addEventListener('mousemove', function (e) {
		var r = heat.getBoundingClientRect(), px = e.clientX - r.left, py = e.clientY - r.top;
		if (!drag) {
			var m = markers.filter(function (m) { return Math.abs(m.x - px) <= 6 && py >= m.y && py < m.y + STRIP; })[0];
			if (m) tip.textContent = m.text;
			return;
		}
		var a = Math.min(drag.x, px), b = Math.max(drag.x, px, a + 1);
		var rg = { from: t(Math.max(0, a)), to: t(Math.min(W, b)), stream: stream };
		if (drag.base) base = rg; else sel = rg;
		drawHeat();
	});
	window.addEventListener('mouseup', function () {
		if (!drag) return;
		drag = null;
		zoom = null;
		update();
	});
	heat.addEventListener('keydown', function (e) {
		var s = D.streams[stream], step = s.n > 1 ? (s.t[2 * s.n - 1] - s.t[0]) / s.n : 1;
		if (!sel) sel = { from: tmin, to: tmin + step, stream: stream };
		if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
			var d = e.key === 'ArrowLeft' ? -step : step;
			if (e.shiftKey) sel.to = Math.max(sel.from + step, sel.to + d);
			else { sel.from += d; sel.to += d; }
		} else if (e.key === 'b') {
			base = { from: sel.from, to: sel.to, stream: sel.stream };
		} else if (e.key === 'Escape') {
			base = null;
		} else return;
		e.preventDefault();
		update();
	});
	window.addEventListener('hashchange', function () {
		if (location.hash.replace(/^#/, '') === written) return;
		readHash();
		drawHeat();
		drawFlame();
	});

	/* what a test (or a curious user) reads back: the selection, what
	 * was drawn and how long it took, errors, resources fetched */
	function publish() {
		state.from = sel ? sel.from : null;
		state.to = sel ? sel.to : null;
		state.base_from = base ? base.from : null;
		state.base_to = base ? base.to : null;
		state.frames = drawn.length;
		state.hash = location.hash;
		state.markers = markers.slice(0, 50).map(function (m) {
			return { x: Math.round(m.x), y: m.y, kind: m.kind };
		});
		state.resources = performance.getEntriesByType ?
			performance.getEntriesByType('resource').length : 0;
		stateEl.textContent = JSON.stringify(state);
	}

	readHash();
	drawHeat();
	drawFlame();
	state.load_ms = performance.now(); /* since navigation: parse and all */
	publish();
})();

#!/usr/bin/env python3
# Checks of board/grafana/stackbox.json, printed as PASS/FAIL lines.
#   grafana_check.py json DASHBOARD APPLET...
#     the model: Pyroscope datasource, the application and host
#     variables, per APPLET a time series and a flame graph of one
#     profile type
#   grafana_check.py push DASHBOARD HEAD PROFILE [HEAD PROFILE]...
#     against what report --push sent (tests/workloads/httprecv's
#     capture: the request head, the profile part): every query's
#     profile type is one Pyroscope makes of a pushed profile, every
#     label a query or variable names is one a push carries
import gzip
import json
import re
import sys
import urllib.parse

DS_TYPE = "grafana-pyroscope-datasource"
failed = 0


def check(name, ok, why=""):
    global failed
    print("%s %s%s" % ("PASS" if ok else "FAIL", name,
                       "" if ok else ": " + why))
    failed += not ok


def targets(d):
    for p in d["panels"]:
        for t in p.get("targets", []):
            yield p, t


def selector_labels(sel):
    return set(re.findall(r'([A-Za-z_][A-Za-z0-9_]*)\s*=~?', sel))


def check_json(d, applets):
    ts = list(targets(d))
    check("dashboard: %d queries, all on the Pyroscope datasource" % len(ts),
          ts and all(t["datasource"]["type"] == DS_TYPE and
                     p["datasource"]["type"] == DS_TYPE for p, t in ts))
    var = {v["name"]: v for v in d["templating"]["list"]}
    for name, label in (("application", "service_name"), ("host", "host")):
        v = var.get(name, {})
        q = v.get("query", {})
        check("dashboard: variable %s lists the values of label %s" %
              (name, label),
              v.get("type") == "query" and q.get("type") == "labelValue" and
              q.get("labelName") == label, json.dumps(v)[:200])
    check("dashboard: variable datasource picks a Pyroscope datasource",
          var.get("datasource", {}).get("query") == DS_TYPE)
    for p, t in ts:
        check("dashboard: %s filters by $application and $host" % p["title"],
              "${application" in t["labelSelector"] and
              "${host" in t["labelSelector"], t["labelSelector"])
    for a in applets:
        mine = [(p, t) for p, t in ts if p["title"].startswith(a + ":")]
        kinds = {(p["type"], t["queryType"]) for p, t in mine}
        types = {t["profileTypeId"] for p, t in mine}
        check("dashboard: %s has a time series of its total and a flame "
              "graph, of one profile type (%s)" % (a, ", ".join(types)),
              kinds == {("timeseries", "metrics"), ("flamegraph", "profile")}
              and len(types) == 1, str(kinds))


# ---- what Pyroscope makes of a push (grafana/pyroscope: the /ingest
# handler's pprof path, RawProfile.metricName and LabelsForProfile) ----
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(field, wire type, value) of a protobuf message"""
    i = 0
    while i < len(b):
        k, i = varint(b, i)
        f, w = k >> 3, k & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % w)
        yield f, w, v


def sample_types(profile):
    """[(type, unit)], (period type, unit) of a pprof profile"""
    strings, st, period = [], [], None
    for f, w, v in fields(profile):
        if f == 6:
            strings.append(v.decode())
        elif f == 1:
            st.append({g: x for g, _, x in fields(v)})
        elif f == 11:
            period = {g: x for g, _, x in fields(v)}
    s = lambda vt, k: strings[vt.get(k, 0)]
    return ([(s(t, 1), s(t, 2)) for t in st],
            (s(period, 1), s(period, 2)) if period else ("", ""))


# Pyroscope's default display names of sample types
DISPLAY = {"samples": "cpu", "goroutine": "goroutines",
           "contentions": "mutex_count", "delay": "mutex_duration"}


def metric_name(types):
    st = ""
    for t, _ in types:
        if t == "wall":
            return t
    for t, _ in types:
        st = DISPLAY.get(t, t)
        if "cpu" in st:
            return "process_cpu"
        if "alloc_" in st or "inuse_" in st or st in ("space", "objects"):
            return "memory"
        if "mutex_" in st:
            return "mutex"
        if "block_" in st:
            return "block"
        if "goroutines" in st:
            return "goroutines"
    return st


def pushed(head, profile):
    """the application, its labels and the profile types of one push"""
    line = open(head, encoding="latin-1").readline()
    q = urllib.parse.parse_qs(urllib.parse.urlsplit(line.split()[1]).query)
    m = re.fullmatch(r"([^{]*)\{(.*)\}", q["name"][0])
    app, tags = m.group(1), dict(kv.split("=", 1)
                                 for kv in m.group(2).split(",") if kv)
    data = gzip.decompress(open(profile, "rb").read())
    types, (pt, pu) = sample_types(data)
    name = metric_name(types)
    return app, {"service_name"} | set(tags), \
        {"%s:%s:%s:%s:%s" % (name, t, u, pt, pu) for t, u in types}


def check_push(d, captures):
    produced, labels = {}, set()
    for head, profile in captures:
        app, lbls, types = pushed(head, profile)
        produced[app] = types
        labels |= lbls
        print("pushed %s, labels %s: %s" % (app, ",".join(sorted(lbls)),
                                             " ".join(sorted(types))))
    every = set().union(*produced.values())
    for p, t in targets(d):
        applet = p["title"].split(":")[0]
        mine = produced.get("stackbox." + applet, set())
        check("push: %s queries %s, a type report --push of %s makes" %
              (p["title"], t["profileTypeId"], applet),
              t["profileTypeId"] in mine,
              "%s pushed %s" % (applet, " ".join(sorted(mine)) or "nothing"))
        names = selector_labels(t["labelSelector"])
        check("push: %s selects by labels a push carries (%s)" %
              (p["title"], ", ".join(sorted(names))), names <= labels,
              "pushed: " + ", ".join(sorted(labels)))
    for v in d["templating"]["list"]:
        ln = v.get("query", {}).get("labelName") if v["type"] == "query" \
            else None
        if ln:
            check("push: variable %s's label %s is one a push carries" %
                  (v["name"], ln), ln in labels)
    check("push: %d applets captured, %d profile types" %
          (len(produced), len(every)), len(produced) > 0)


d = json.load(open(sys.argv[2]))
if sys.argv[1] == "json":
    check_json(d, sys.argv[3:])
else:
    a = sys.argv[3:]
    check_push(d, list(zip(a[0::2], a[1::2])))
sys.exit(1 if failed else 0)

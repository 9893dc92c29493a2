#!/usr/bin/env python3
"""The data of report -f html's page back as folded lines: per stream,
the sum over its snapshots of each stack (frames joined by ";"), sorted
as report -f folded sorts them. Usage: html_data.py PAGE.html [APPLET]
(without APPLET: "APPLET SNAPSHOTS" a line)."""
import json
import re
import sys

page = open(sys.argv[1], encoding="utf-8").read()
data = json.loads(
    re.search(r'<script type="application/json" id="sb-data">(.*?)</script>',
              page, re.S).group(1))
if len(sys.argv) < 3:
    for s in data["streams"]:
        print(s["applet"], len(s["v"]))
    sys.exit(0)
sums = {}
for s in data["streams"]:
    if s["applet"] != sys.argv[2]:
        continue
    for pairs in s["v"]:
        sid = 0
        for k in range(0, len(pairs), 2):
            sid += pairs[k]
            line = ";".join(data["frames"][f] for f in data["stacks"][sid])
            sums[line] = sums.get(line, 0) + pairs[k + 1]
for line in sorted(sums, key=lambda x: x.encode()):
    print(line, sums[line])

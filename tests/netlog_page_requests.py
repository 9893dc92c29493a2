#!/usr/bin/env python3
"""Count the network requests a page made, from Chromium's --log-net-log
JSON: those whose network isolation key is the page's (file://), not
Chromium's own (updates, time) that a headless run makes too.
Usage: netlog_page_requests.py NETLOG.json -> prints N (-v: each URL)."""
import json
import sys

log = json.load(open(sys.argv[-1]))
types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
urls = [
    e["params"]["url"]
    for e in log["events"]
    if types.get(e["type"]) == "URL_REQUEST_START_JOB"
    and "file://" in e["params"].get("network_isolation_key", "")
]
print(len(urls))
if sys.argv[1] == "-v":
    print("\n".join(urls))

#!/usr/bin/env python3
# The labels of a flame graph SVG (report -f svg), as a renderer without
# scripts shows them: each frame's <text> against its bar and name.
#   svg_labels.py FILE [NAME...]
# Prints "frames F wide N labelled L overflow O cut C full-missing M
# blank B" and, per NAME, "NAME: yes|no" (a <text> node that is exactly
# NAME). Only geometry is assumed: 12 px monospace advances at most
# 0.61 em (DejaVu Sans Mono, Liberation Mono: 0.602), so a label of n
# characters needs n * 7.32 px plus 3 px padding each side; a frame of
# 3 or more such characters must show something.
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
ADVANCE = 12 * 0.61

root = ET.parse(sys.argv[1]).getroot()
texts = set()
frames = wide = labelled = overflow = cut = full_missing = blank = 0
for g in root.iter(NS + "g"):
    if g.get("class") != "f":
        continue
    title = g.find(NS + "title").text or ""
    name = title[: title.rfind(" (")] if title.endswith(")") else title
    width = float(g.find(NS + "rect").get("width"))
    label = g.find(NS + "text").text or ""
    frames += 1
    fits = int((width - 6) / ADVANCE)
    if label:
        labelled += 1
        texts.add(label)
        overflow += len(label) * ADVANCE + 6 > width + 0.5
        if label != name:
            # cut: a prefix of the name and ".."
            cut += 1
            overflow += not (label.endswith("..") and
                             name.startswith(label[:-2]))
    if fits >= 3:
        wide += 1
        blank += not label
    # wide enough for the whole name with a character to spare
    full_missing += (len(name) + 1) * ADVANCE + 6 <= width and label != name
print("frames %d wide %d labelled %d overflow %d cut %d full-missing %d "
      "blank %d" % (frames, wide, labelled, overflow, cut, full_missing,
                    blank))
for n in sys.argv[2:]:
    print("%s: %s" % (n, "yes" if n in texts else "no"))

#!/usr/bin/env python3
"""Summarises a CSV file: rows, columns, and min/max/mean/total of numeric columns. Arguments: JSON on stdin."""
import csv
import json
import os
import sys

args = json.load(sys.stdin)
path = os.path.normpath(os.path.join(os.getcwd(), args["path"]))
if not path.startswith(os.getcwd() + os.sep):
    print(f"{args['path']} is outside the workspace", file=sys.stderr)
    sys.exit(2)
try:
    with open(path, newline="", encoding="utf-8-sig") as handle:
        sample = handle.read(8192)
        handle.seek(0)
        delimiter = args.get("delimiter") or csv.Sniffer().sniff(sample, delimiters=",;\t").delimiter
        rows = list(csv.DictReader(handle, delimiter=delimiter))
except FileNotFoundError:
    print(f"no file {args['path']} in the workspace", file=sys.stderr)
    sys.exit(1)

def number(text):
    text = text.strip()
    if delimiter == ";":  # a semicolon-separated file usually writes decimals with a comma
        text = text.replace(",", ".")
    return float(text)


columns = list(rows[0].keys()) if rows else []
print(f"{args['path']}: {len(rows)} row(s), {len(columns)} column(s): {', '.join(columns)}")
for column in columns:
    values = []
    for row in rows:
        try:
            values.append(number(row.get(column) or ""))
        except ValueError:
            break
    else:
        if values:
            print(f"{column}: min {min(values):g}, max {max(values):g}, mean {sum(values) / len(values):.2f}, total {sum(values):g}")

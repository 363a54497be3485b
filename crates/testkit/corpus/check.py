#!/usr/bin/env python3
"""Checks the format of the near-miss edit corpus (not the matcher): required
fields, unique names, `after` present iff applied, well-formed patches.
Usage: python3 check.py [corpus dir]   (exit 1 on any problem)"""
import glob, json, os, sys

NORMALIZATIONS = {None, "line endings", "blank lines at the ends", "final newline", "trailing whitespace",
                  "indentation", "tabs and spaces", "typographic characters", "unicode normalization",
                  "read_file line numbers", "escapes"}
ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
problems, names, counts = [], {}, {}


def bad(where, msg):
    problems.append("%s: %s" % (where, msg))


def check_edit(where, e):
    if not isinstance(e, dict):
        return bad(where, "edit must be an object")
    for k in ("old_string", "new_string"):
        if not isinstance(e.get(k), str):
            bad(where, "edit.%s must be a string" % k)
    if not isinstance(e.get("replace_all", False), bool):
        bad(where, "edit.replace_all must be a boolean")
    extra = set(e) - {"old_string", "new_string", "replace_all"}
    if extra:
        bad(where, "unknown edit keys %s" % sorted(extra))


def check_patch(where, p):
    if not isinstance(p, str):
        return bad(where, "patch must be a string or null")
    lines = p.split("\n")
    if lines[0] != "*** Begin Patch":
        bad(where, "patch must start with `*** Begin Patch`")
    if not p.endswith("*** End Patch\n"):
        bad(where, "patch must end with `*** End Patch\\n`")
    in_update = in_add = False
    for i, line in enumerate(lines[1:-2], 2):
        if line.startswith(("*** Add File: ", "*** Delete File: ", "*** Update File: ")):
            in_add, in_update = line.startswith("*** Add"), line.startswith("*** Update")
        elif line.startswith("*** Move to: ") or line == "*** End of File":
            if not in_update:
                bad(where, "patch line %d: %r outside an Update File" % (i, line))
        elif line == "@@" or line.startswith("@@ "):
            if not in_update:
                bad(where, "patch line %d: hunk header outside an Update File" % i)
        elif in_add and line.startswith("+"):
            pass
        elif in_update and line[:1] in (" ", "-", "+"):
            pass
        else:
            bad(where, "patch line %d is not valid here: %r" % (i, line))


def check_case(where, c, path):
    for k in ("name", "class", "why", "expect", "patch"):
        if k not in c:
            bad(where, "missing %r" % k)
    name = c.get("name")
    if not isinstance(name, str) or not name or name != name.lower() or " " in name:
        bad(where, "name must be a non-empty kebab-case string")
    elif name in names:
        bad(where, "duplicate name (also in %s)" % names[name])
    else:
        names[name] = path
    if not isinstance(c.get("why"), str) or not c.get("why"):
        bad(where, "why must be a non-empty string")
    expect = c.get("expect")
    if expect not in ("applied", "refused"):
        bad(where, "expect must be applied or refused")
    multi = "files" in c
    if multi:
        if "file" in c or "before" in c or "after" in c:
            bad(where, "use either files/after_files or file/before/after")
        if not isinstance(c["files"], dict) or not all(isinstance(v, str) for v in c["files"].values()):
            bad(where, "files must map paths to strings")
        if (expect == "applied") != ("after_files" in c):
            bad(where, "after_files must be present exactly when applied")
        if "after_files" in c and not all(v is None or isinstance(v, str) for v in c["after_files"].values()):
            bad(where, "after_files values must be strings or null")
    else:
        if not isinstance(c.get("file"), str) or not isinstance(c.get("before"), str):
            bad(where, "file and before must be strings")
        if (expect == "applied") != ("after" in c):
            bad(where, "after must be present exactly when applied")
        if "after" in c and not isinstance(c["after"], str):
            bad(where, "after must be a string")
        if "after" in c and c["after"] == c.get("before"):
            bad(where, "after equals before")
    edit, edits = c.get("edit"), c.get("edits")
    if edit is not None and edits is not None:
        bad(where, "give edit or edits, not both")
    if edit is not None:
        check_edit(where, edit)
    if edits is not None:
        if not isinstance(edits, list) or not edits:
            bad(where, "edits must be a non-empty list")
        else:
            for e in edits:
                check_edit(where, e)
            if expect == "applied" and len(c.get("normalizations", [])) != len(edits):
                bad(where, "normalizations must give one entry per edit")
    if edit is None and edits is None and c.get("patch") is None:
        bad(where, "a case needs an edit, edits or a patch")
    if c.get("patch") is not None:
        check_patch(where, c["patch"])
        if expect == "applied" and not isinstance(c.get("patch_normalization"), list):
            bad(where, "patch_normalization (one entry per hunk) required for an applied patch")
    norms = [c.get("normalization")] + list(c.get("normalizations") or []) + list(c.get("patch_normalization") or [])
    for n in norms:
        if n not in NORMALIZATIONS:
            bad(where, "unknown normalization %r" % n)
    if expect == "refused" and c.get("normalization") is not None:
        bad(where, "a refusal has no normalization")


for path in sorted(glob.glob(os.path.join(ROOT, "**", "*.json"), recursive=True)):
    rel = os.path.relpath(path, ROOT)
    try:
        with open(path, encoding="utf-8") as fh:
            cases = json.load(fh)
    except ValueError as e:
        bad(rel, "not valid JSON: %s" % e)
        continue
    if not isinstance(cases, list):
        bad(rel, "must be a JSON array")
        continue
    for i, c in enumerate(cases):
        where = "%s[%d] %s" % (rel, i, c.get("name", "?") if isinstance(c, dict) else "?")
        if not isinstance(c, dict):
            bad(where, "case must be an object")
            continue
        check_case(where, c, rel)
        key = (rel, c.get("expect"))
        counts[key] = counts.get(key, 0) + 1

for p in problems:
    print(p)
files = sorted({k[0] for k in counts})
for f in files:
    print("%-32s applied %3d  refused %3d" % (f, counts.get((f, "applied"), 0), counts.get((f, "refused"), 0)))
print("%d cases, %d problems" % (sum(counts.values()), len(problems)))
sys.exit(1 if problems else 0)

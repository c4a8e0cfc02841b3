#!/usr/bin/env python3
"""tests/code_figures.py [--long N] [--list]: the architecture figures of the
tree (issue 27): lines and files of C per folder, functions longer than N
lines (default 120, counted from the line that names the function to its
closing brace), functions that nothing calls or takes the address of (tests
and fuzzers do not count as callers), references to the model engine outside
replay/engine_model.c in replay/, process-wide hooks (store_set_*), and
branches on JSON mode outside lib/emit.c (`if (...json...)`: text and JSON
from separate code).
Reads the sources as text: the project's style puts a definition's braces
in column 0. Run from the top of a checkout; not part of `make test`."""
import os
import re
import sys

LONG = 120
if "--long" in sys.argv:
    LONG = int(sys.argv[sys.argv.index("--long") + 1])
LIST = "--list" in sys.argv
SKIP = {"tests", "fuzz", "build", "build-san", "build-fuzz", "bench", "debian", ".git"}


def sources(top="."):
    for d, subs, files in os.walk(top):
        subs[:] = sorted(s for s in subs if s not in SKIP and not s.startswith("."))
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                yield os.path.normpath(os.path.join(d, f))


def strip(text):
    """text without comments and string contents (lines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * 0 + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


DEF = re.compile(r"^(?!static\s+const\b)[A-Za-z_].*?\b([A-Za-z_]\w*)\s*\(")


def functions(path, text):
    """(name, first line, lines, static) of each definition in text."""
    lines = text.split("\n")
    found = []
    i = 0
    while i < len(lines):
        one = re.match(r"^[A-Za-z_][^;=]*?\b([A-Za-z_]\w*)\s*\([^;]*\)\s*\{.*\}\s*$", lines[i])
        if one and not lines[i].startswith(("struct", "enum", "union", "typedef")):
            found.append((one.group(1), i + 1, 1, lines[i].startswith("static")))
        if lines[i] == "{" and i > 0:
            # the signature: back to the line that opens it in column 0
            j = i - 1
            while j > 0 and not re.match(r"^[A-Za-z_]", lines[j]):
                j -= 1
            sig = " ".join(lines[j:i])
            m = DEF.match(sig)
            k = i + 1
            while k < len(lines) and lines[k] != "}":
                k += 1
            if m and not sig.rstrip().endswith(";") and "=" not in sig.split("(")[0]:
                found.append((m.group(1), j + 1, k - j + 1, sig.startswith("static")))
            i = k
        i += 1
    return found


def main():
    files = list(sources())
    texts = {p: strip(open(p, encoding="utf-8", errors="replace").read()) for p in files}
    folders = {}
    for p in files:
        top = p.split("/")[0] if "/" in p else "."
        n = open(p, encoding="utf-8", errors="replace").read().count("\n")
        f = folders.setdefault(top, [0, 0])
        f[0] += 1
        f[1] += n
    print("folder sizes (C and headers: files, lines)")
    for d in sorted(folders):
        print(f"  {d + '/':12s} {folders[d][0]:4d} files {folders[d][1]:7d} lines")

    defs = []
    for p in files:
        if p.endswith(".c"):
            for name, line, n, st in functions(p, texts[p]):
                defs.append((p, name, line, n, st))
    longf = sorted((d for d in defs if d[3] > LONG), key=lambda d: -d[3])
    print(f"functions over {LONG} lines: {len(longf)}")
    for p, name, line, n, st in longf:
        print(f"  {n:4d} {name} ({p}:{line})")

    # uses: every identifier token outside its own definition line; a
    # declaration (a prototype line ending in ';') is not a use
    words = {}
    for p in files:
        for no, l in enumerate(texts[p].split("\n"), 1):
            for w in re.findall(r"[A-Za-z_]\w*", l):
                words.setdefault(w, []).append((p, no, l))
    testwords = {}
    for d in ("tests",):
        for q in sources(d):
            for l in strip(open(q, encoding="utf-8", errors="replace").read()).split("\n"):
                for w in re.findall(r"[A-Za-z_]\w*", l):
                    testwords[w] = testwords.get(w, 0) + 1
    dead = []
    for p, name, line, n, st in defs:
        if name == "main" or name.startswith("LLVMFuzzer"):
            continue
        uses = 0
        for q, no, l in words.get(name, []):
            if q == p and no == line:
                continue
            if q.endswith(".h") and re.search(r"\b%s\s*\(" % re.escape(name), l) \
               and not re.search(r"\b%s\s*\(" % re.escape(name), l.split("(")[0] + "("):
                pass
            if q.endswith(".h") and re.match(r"^[A-Za-z_].*\b%s\s*\(" % re.escape(name), l):
                continue  # its prototype
            uses += 1
        if uses == 0:
            dead.append((p, name, line, testwords.get(name, 0) > 0))
    print(f"functions with no caller: {sum(1 for d in dead if not d[3])}"
          f" (and {sum(1 for d in dead if d[3])} called only by tests)")
    for p, name, line, t in dead:
        print(f"  {name} ({p}:{line}){' tests only' if t else ''}")

    # the model engine named outside its file in replay/
    pat = re.compile(r"\bmodel_\w+|\bc->ms\b|\bms\.\w+|\bstruct model\b")
    refs = []
    for p in files:
        if p.startswith("replay/") and not p.startswith("replay/engine_model"):
            for no, l in enumerate(texts[p].split("\n"), 1):
                for m in pat.finditer(l):
                    refs.append((p, no, m.group(0)))
    print(f"model engine references in replay/ outside engine_model.c: {len(refs)}")
    if LIST:
        for p, no, w in refs:
            print(f"  {p}:{no} {w}")
    hooks = [(p, no) for p in files for no, l in enumerate(texts[p].split("\n"), 1)
             if re.search(r"\bstore_set_\w+\s*\(", l) and not p.endswith(".h")]
    print(f"process-wide hooks set or defined (store_set_*): {len(hooks)}")
    for p, no in hooks:
        print(f"  {p}:{no}")
    # text and JSON from separate code: a branch on the JSON mode
    jb = [(p, no) for p in files if p.endswith(".c") and p != "lib/emit.c"
          for no, l in enumerate(texts[p].split("\n"), 1)
          if re.search(r"\b(if|while)\s*\(.*\bjson\b", l) or
          re.search(r"\bjson\s*\?", l)]
    print(f"branches on JSON mode outside lib/emit.c: {len(jb)}")
    for p, no in jb:
        print(f"  {p}:{no}")


main()

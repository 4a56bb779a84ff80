#!/usr/bin/env python3
"""Check that src/ has no circle between its modules.

Two graphs, each reduced to its strongly connected components (a component
of more than one module is a circle):
  1. includes: module x -> module y when x.c or x.h includes "y.h"
     (x.c and x.h are one module; a header without a .c is its own);
  2. symbols (needs the object files of a build in src/): x -> y when x.o
     uses a function or variable that y.o defines (nm).
Usage: python3 tools/check-c-layers.py [src-dir]; exit status 1 on a circle."""
import os, re, subprocess, sys

src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "src")
mod = lambda f: os.path.splitext(f)[0]
files = [f for f in os.listdir(src) if f.endswith((".c", ".h"))]

def sccs(nodes, edges):
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v: break
            out.append(sorted(comp))
    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index: visit(v)
    return [c for c in out if len(c) > 1]

inc = {}
for f in files:
    text = open(os.path.join(src, f), errors="replace").read()
    for h in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
        if os.path.exists(os.path.join(src, h)) and mod(h) != mod(f):
            inc.setdefault(mod(f), set()).add(mod(h))
nodes = {mod(f) for f in files}
bad = sccs(nodes, inc)
print("include graph: %d modules, %d edges, circles: %s" %
      (len(nodes), sum(len(v) for v in inc.values()), bad or "none"))

objs = [f for f in os.listdir(src) if f.endswith(".o")]
if objs:
    defs, uses = {}, {}
    for o in objs:
        out = subprocess.run(["nm", os.path.join(src, o)], capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBR":
                defs[parts[2]] = mod(o)
            elif len(parts) == 2 and parts[0] == "U":
                uses.setdefault(mod(o), set()).add(parts[1])
    sym = {m: {defs[s] for s in ss if s in defs and defs[s] != m} for m, ss in uses.items()}
    bad2 = sccs({mod(o) for o in objs}, sym)
    print("symbol graph: %d objects, %d edges, circles: %s" %
          (len(objs), sum(len(v) for v in sym.values()), bad2 or "none"))
    bad = bad or bad2
sys.exit(1 if bad else 0)

#!/usr/bin/env python3
"""Check that src/ has no circle between its modules and that its folders
are layers: a file uses only its own folder and the folders below it.

Folders, from the bottom up (DESIGN.md, "Layers of src/"): numerics, simd,
model, then mcmc and diag (side by side: neither uses the other), then api.
Two graphs, each reduced to its strongly connected components (a component
of more than one module is a circle) and each checked against the layers:
  1. includes: module x -> module y when x.c or x.h includes "y.h"
     (x.c and x.h are one module; a header without a .c is its own);
  2. symbols (needs the object files of a build in src/): x -> y when x.o
     uses a function or variable that y.o defines (nm).
Usage: python3 tools/check-c-layers.py [src-dir]; exit status 1 on a circle
or on a use that goes up or sideways."""
import os, re, subprocess, sys

src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "src")
# "": init.c at the top of src/, which registers the api's routines
rank = {"numerics": 0, "simd": 1, "model": 2, "mcmc": 3, "diag": 3, "api": 4, "": 5}
mod = lambda f: os.path.splitext(os.path.basename(f))[0]
paths = {}  # file name -> path relative to src
for d, _, fs in os.walk(src):
    for f in fs:
        rel = os.path.relpath(os.path.join(d, f), src)
        if f.endswith((".c", ".h", ".o")):
            if f in paths:
                sys.exit("two files named %s: %s and %s" % (f, paths[f], rel))
            paths[f] = rel
folder = {}
for f, rel in paths.items():
    folder[mod(f)] = os.path.dirname(rel)
bad_folder = sorted({d for d in folder.values() if d not in rank})
if bad_folder:
    sys.exit("files outside the layers' folders: %s (add the folder to rank)" % bad_folder)

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

def upward(edges):
    return sorted("%s/%s -> %s/%s" % (folder[x], x, folder[y], y)
                  for x, ys in edges.items() for y in ys
                  if folder[x] != folder[y] and rank[folder[y]] >= rank[folder[x]])

files = [f for f in paths if f.endswith((".c", ".h"))]
inc = {}
for f in files:
    text = open(os.path.join(src, paths[f]), errors="replace").read()
    for h in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
        h = os.path.basename(h)
        if h in paths and mod(h) != mod(f):
            inc.setdefault(mod(f), set()).add(mod(h))
nodes = {mod(f) for f in files}
bad = sccs(nodes, inc)
up = upward(inc)
print("include graph: %d modules, %d edges, circles: %s, uses up or sideways: %s" %
      (len(nodes), sum(len(v) for v in inc.values()), bad or "none", up or "none"))
bad = bad or up

objs = [f for f in paths if f.endswith(".o")]
if objs:
    defs, uses = {}, {}
    for o in objs:
        out = subprocess.run(["nm", os.path.join(src, paths[o])], capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBR":
                defs[parts[2]] = mod(o)
            elif len(parts) == 2 and parts[0] == "U":
                uses.setdefault(mod(o), set()).add(parts[1])
    sym = {m: {defs[s] for s in ss if s in defs and defs[s] != m} for m, ss in uses.items()}
    bad2 = sccs({mod(o) for o in objs}, sym)
    up2 = upward(sym)
    print("symbol graph: %d objects, %d edges, circles: %s, uses up or sideways: %s" %
          (len(objs), sum(len(v) for v in sym.values()), bad2 or "none", up2 or "none"))
    bad = bad or bad2 or up2
sys.exit(1 if bad else 0)

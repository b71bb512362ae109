#!/usr/bin/env python3
"""The pictures: `estimate --svg` and `plan --svg` write valid SVG (parsed here as XML) whose
segments match the estimate's JSON: one segment per (GPU group, phase, item) live in it, with
its bytes, heights in proportion to the bytes, stacked without gaps; one phase-total line per
bar; the capacity line where --capacity is given; one row per offer of a plan with its
verdict and margin. Names from files are escaped; a picture that cannot be written leaves no
file and no output. The README's picture is what the tool draws today.

usage: check-svg.py VRAMPLAN EXAMPLES_DIR TESTS_DIR README_IMAGE
"""
import json
import os
import stat
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

EXE, EXAMPLES, TESTS, README_IMAGE = sys.argv[1:5]
NS = "{http://www.w3.org/2000/svg}"
fails = []
passes = 0


def check(name, cond, detail=""):
    global passes
    if cond:
        passes += 1
    else:
        fails.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}")


def run(*args):
    return subprocess.run([EXE, *args], capture_output=True, text=True)


def estimate_svg(sheet, tmp, *extra):
    """The JSON estimate and the parsed SVG of one sheet."""
    out = os.path.join(tmp, "e.svg")
    r = run("estimate", sheet, "--json", "--svg", out, *extra)
    check(f"{sheet}: exit", r.returncode == 0, r.stderr)
    data = json.loads(r.stdout)
    root = ET.parse(out).getroot()
    return data, root


def check_estimate(name, data, root):
    check(f"{name}: root", root.tag == NS + "svg", root.tag)
    segs = [e for e in root.iter(NS + "rect") if e.get("class") == "seg"]
    got = {}
    for s in segs:
        key = (int(s.get("data-stage")), s.get("data-phase"), int(s.get("data-index")))
        check(f"{name}: one segment per (stage, phase, item) {key}", key not in got, "twice")
        got[key] = s
    want = {}
    for st in data["per_stage"]:
        for i, item in enumerate(st["items"]):
            for ph in item["phases"]:
                want[(st["stage"], ph, i)] = item
    check(f"{name}: segments", set(got) == set(want),
          f"missing {sorted(set(want) - set(got))[:5]}, extra {sorted(set(got) - set(want))[:5]}")
    # heights in proportion to the bytes: one scale for every segment
    pairs = [(int(s.get("data-bytes")), float(s.get("height"))) for s in segs]
    big = max(pairs, default=(0, 0.0))
    scale = big[1] / big[0] if big[0] else 0.0
    for key, s in got.items():
        if key in want:
            b = int(s.get("data-bytes"))
            check(f"{name}: bytes {key}", b == want[key]["bytes"], f"{b} != {want[key]['bytes']}")
            check(f"{name}: item {key}", s.get("data-item") == want[key]["id"], s.get("data-item"))
            h = float(s.get("height"))
            check(f"{name}: height {key}", abs(h - b * scale) <= 0.002 + 1e-9 * h,
                  f"{h} for {b} B at {scale} px/B")
    # each bar is a stack from one baseline, without gaps or overlaps
    bars = {}
    for s in segs:
        bars.setdefault((s.get("data-stage"), s.get("data-phase")), []).append(
            (float(s.get("y")), float(s.get("height"))))
    bottoms = set()
    for key, parts in bars.items():
        parts.sort()
        for (y1, h1), (y2, _) in zip(parts, parts[1:]):
            check(f"{name}: stacked {key}", abs(y1 + h1 - y2) < 0.002, f"{y1}+{h1} != {y2}")
        bottoms.add(round(parts[-1][0] + parts[-1][1], 2))
    check(f"{name}: one baseline", len(bottoms) <= 1, str(bottoms))
    # one phase-total line per (stage, phase), at the JSON's phase total
    totals = [e for e in root.iter(NS + "line") if e.get("class") == "total"]
    want_t = {(st["stage"], ph): v for st in data["per_stage"] for ph, v in st["phases"].items()}
    got_t = {(int(t.get("data-stage")), t.get("data-phase")): int(t.get("data-bytes")) for t in totals}
    check(f"{name}: phase totals", got_t == want_t, f"{got_t} != {want_t}")
    if bottoms and scale:
        base = bottoms.pop()
        for t in totals:
            y = float(t.get("y1"))
            check(f"{name}: total height", abs(base - y - int(t.get("data-bytes")) * scale) < 0.01,
                  t.get("data-phase"))
    return scale


with tempfile.TemporaryDirectory() as tmp:
    sheets = sorted(os.path.join(EXAMPLES, f) for f in os.listdir(EXAMPLES) if f.endswith(".toml"))
    for sheet in sheets:
        name = os.path.basename(sheet)
        data, root = estimate_svg(sheet, tmp)
        check_estimate(name, data, root)
        # a capacity line only where there is a capacity (a sheet's device_total evidence)
        caps = [int(g.get("data-bytes")) for g in root.iter(NS + "g") if g.get("class") == "capacity"]
        check(f"{name}: capacity line", caps == ([data["capacity_bytes"]] if "capacity_bytes" in data
                                                 else []), str(caps))
        # with a capacity: its line, at its height
        data, root = estimate_svg(sheet, tmp, "--capacity", "24 GB")
        scale = check_estimate(name + " at 24 GB", data, root)
        caps = [g for g in root.iter(NS + "g") if g.get("class") == "capacity"]
        check(f"{name}: capacity line", len(caps) == 1 and
              int(caps[0].get("data-bytes")) == 24_000_000_000, str(caps))
        # the plan's picture: one row per offer, its verdict and margin as in the JSON
        out = os.path.join(tmp, "p.svg")
        r = run("plan", sheet, "--json", "--svg", out)
        check(f"{name}: plan exit", r.returncode == 0, r.stderr)
        plan = json.loads(r.stdout)
        rows = [g for g in ET.parse(out).getroot().iter(NS + "g") if g.get("class") == "offer"]
        check(f"{name}: plan rows", len(rows) == len(plan["candidates"]),
              f"{len(rows)} != {len(plan['candidates'])}")
        for g, c in zip(rows, plan["candidates"]):
            check(f"{name}: plan offer", g.get("data-offer") == c["offer"], g.get("data-offer"))
            check(f"{name}: plan verdict", g.get("data-verdict") == c["verdict"], g.get("data-verdict"))
            m = g.get("data-margin-bytes")
            check(f"{name}: plan margin", (None if m is None else int(m)) == c["margin_bytes"], m)

    # names from files: control characters escaped (XML 1.0 cannot carry them), markup
    # characters as entities; the file parses and shows the escaped name
    hostile = os.path.join(tmp, "hostile.toml")
    with open(hostile, "w") as f:
        f.write('[sheet]\ntitle = "a <b> & \\"c\\" \\u001b[31m"\n[model]\nparameters = 7_000_000_000\n'
                '[workload]\nweights = "fp16"\n[reserve]\n"x\\ny|z<&>" = "1 GiB"\n"\\u001b[2J" = "1 GiB"\n')
    out = os.path.join(tmp, "h.svg")
    r = run("estimate", hostile, "--svg", out)
    check("hostile: exit", r.returncode == 0, r.stderr)
    raw = open(out, "rb").read()
    check("hostile: no control bytes", not any(b < 0x20 and b not in (9, 10, 13) for b in raw),
          "a raw control character")
    root = ET.parse(out).getroot()
    items = {s.get("data-item") for s in root.iter(NS + "rect") if s.get("class") == "seg"}
    check("hostile: escaped names", "reserve:x\\ny|z<&>" in items and "reserve:\\x1B[2J" in items,
          str(items))
    texts = "".join(t.text or "" for t in root.iter(NS + "text"))
    # the title as the sheet writes it (its escapes kept), markup characters intact
    check("hostile: title", 'a <b> & \\"c\\" \\u001b[31m' in texts, texts[:200])

    # a picture that cannot be written: exit 1, nothing on stdout, no file
    bad = os.path.join(tmp, "no-such-folder", "e.svg")
    r = run("estimate", os.path.join(EXAMPLES, "seed.toml"), "--svg", bad)
    check("unwritable: exit 1", r.returncode == 1, str(r.returncode))
    check("unwritable: no stdout", r.stdout == "", r.stdout[:100])
    check("unwritable: says where", "e.svg" in r.stderr and "nothing was written" in r.stderr, r.stderr)
    check("unwritable: no file", not os.path.exists(bad), "written")
    # bad input: no picture at all
    stale = os.path.join(tmp, "stale.svg")
    r = run("estimate", os.path.join(EXAMPLES, "seed.toml"), "--context", "abc", "--svg", stale)
    check("bad input: exit 1", r.returncode == 1, str(r.returncode))
    check("bad input: no file", not os.path.exists(stale), "written")
    r = run("estimate", os.path.join(EXAMPLES, "seed.toml"), "--svg")
    check("--svg without FILE: usage", r.returncode == 2, str(r.returncode))
    left = [f for f in os.listdir(tmp) if ".tmp." in f]
    check("no temporary file left", not left, str(left))

    # what is at the path is kept for what it is: a symbolic link stays a link (its file
    # replaced, keeping its mode), a FIFO is written in place (a reader gets the picture),
    # a folder is refused and kept
    seed = os.path.join(EXAMPLES, "seed.toml")
    target, link = os.path.join(tmp, "target.svg"), os.path.join(tmp, "link.svg")
    with open(target, "w") as f:
        f.write("keep")
    os.chmod(target, 0o640)
    os.symlink("target.svg", link)
    r = run("estimate", seed, "--svg", link)
    check("link: exit 0", r.returncode == 0, r.stderr)
    check("link: still a link", os.path.islink(link), "replaced by a file")
    check("link: its file written", open(target).read().startswith("<?xml") or
          open(target).read().startswith("<svg"), open(target).read()[:40])
    check("link: mode kept", os.stat(target).st_mode & 0o777 == 0o640,
          oct(os.stat(target).st_mode & 0o777))
    fifo = os.path.join(tmp, "fifo.svg")
    os.mkfifo(fifo)
    import threading
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    r = run("estimate", seed, "--svg", fifo)
    reader.join(30)
    check("fifo: exit 0", r.returncode == 0, r.stderr)
    check("fifo: still a FIFO", stat.S_ISFIFO(os.lstat(fifo).st_mode), "replaced by a file")
    check("fifo: the reader got the picture", bool(got) and b"</svg>" in got[0],
          repr(got[:1])[:80])
    # /dev/stdout is this process's own stdout: a pipe gets the picture, and a file the
    # shell opened for appending keeps what it held
    r = run("estimate", seed, "--svg", "/dev/stdout")
    check("/dev/stdout pipe: exit 0", r.returncode == 0, r.stderr)
    check("/dev/stdout pipe: the picture", "</svg>" in r.stdout and "conservative envelope"
          in r.stdout, r.stdout[:80])
    appended = os.path.join(tmp, "appended.txt")
    with open(appended, "w") as f:
        f.write("kept\n")
    with open(appended, "a") as f:
        r = subprocess.run([EXE, "estimate", seed, "--svg", "/dev/stdout"], stdout=f,
                           stderr=subprocess.PIPE, text=True)
    got_text = open(appended).read()
    check("/dev/stdout appended: exit 0", r.returncode == 0, r.stderr)
    check("/dev/stdout appended: kept, then picture and text", got_text.startswith("kept\n")
          and "</svg>" in got_text and "conservative envelope" in got_text, got_text[:80])
    check("/dev/stdout appended: still a regular file", stat.S_ISREG(os.lstat(appended).st_mode),
          "replaced")
    folder = os.path.join(tmp, "folder.svg")
    os.mkdir(folder)
    r = run("estimate", seed, "--svg", folder)
    check("folder: exit 1", r.returncode == 1, str(r.returncode))
    check("folder: says so", "nothing was written" in r.stderr, r.stderr)
    check("folder: kept", os.path.isdir(folder), "replaced")

    # the README's picture is the one the tool draws for its example
    out = os.path.join(tmp, "readme.svg")
    r = run("estimate", os.path.join(EXAMPLES, "llama-3.1-8b-lora.toml"), "--capacity",
            "RTX 4090", "--svg", out)
    check("readme image: exit", r.returncode == 0, r.stderr)
    same = open(out, "rb").read() == open(README_IMAGE, "rb").read()
    check("readme image is current", same,
          f"regenerate it: vramplan estimate examples/llama-3.1-8b-lora.toml --capacity "
          f"'RTX 4090' --svg {os.path.relpath(README_IMAGE)}")

print(f"{passes} passed, {len(fails)} failed")
sys.exit(1 if fails else 0)

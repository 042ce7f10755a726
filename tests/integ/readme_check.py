#!/usr/bin/env python3
"""tests/integ/readme_check.py README WORKDIR: run every example command of
the README, in order, from the top of the tree, and check that each prints
the lines the README shows for it.

The examples are the indented code blocks that run ptap:
  - a transcript: `$ COMMAND` lines (a line ending in `\\` goes on), each
    followed by the lines it prints;
  - a command block: any other block with a `./build/ptap` command in it
    (with the shell lines it needs, `#` comments); when the prose right
    after it says "prints" and the next code block follows it, that block
    is what it prints.
A shown line matches a printed one when they are equal but for what
varies from run to run (VARIES: pids, times, addresses, durations ...),
the width of runs of blanks, and `...`, which stands for anything (a line
that is only `...` is skipped).  Order is not checked (a command's own output and
ptap's records share stdout; which comes first is the scheduler's).
Each command must exit 0.  Long-running ones are bounded: an attach
(`-p $!`) gets `--duration 2`, and every command a timeout.

Prints each failure and exits 1; exit 0 when every command printed its
lines.  WORKDIR is for the script's own files.
"""
import os
import re
import subprocess
import sys

TIMEOUT = 120


def blocks(lines):
    """(start line index, [block lines without the 4-space indent], prose after it)"""
    out = []
    i, n = 0, len(lines)
    while i < n:
        if not lines[i].startswith("    ") or (i and lines[i - 1].strip() and
                                                not lines[i - 1].startswith("    ")):
            i += 1
            continue
        start, body = i, []
        while i < n and (lines[i].startswith("    ") or
                         (not lines[i].strip() and i + 1 < n and lines[i + 1].startswith("    "))):
            body.append(lines[i][4:])
            i += 1
        prose = []
        while i < n and not lines[i].startswith("    "):
            prose.append(lines[i])
            i += 1
        out.append((start, body, prose))
    return out


def joined(body):
    """The block's lines with continuations joined: [(line, is_comment)]."""
    cmds, cur = [], ""
    for line in body:
        if not cur and (not line.strip() or line.lstrip().startswith("#")):
            continue
        cur += line
        if cur.endswith("\\"):
            cur = cur[:-1] + " "
            continue
        cmds.append(cur)
        cur = ""
    if cur:
        cmds.append(cur)
    return cmds


# What varies from run to run, and matches any value of its kind: a pid/tid,
# a time or rate (any number with a point), an address, a duration, a
# goroutine id, an inode, a build-id, --account's times, minor faults and
# switches; `...` stands for anything.  Other
# numbers (counts, argument values, return values) must be as shown.
VARIES = [
    (r"\.\.\.", ".*"),
    (r"0x[0-9a-f]+", "0x[0-9a-f]+"),
    (r"\d+/\d+", r"\d+/\d+"),
    (r"\d+\.\d+", r"\d+\.\d+"),
    (r"(?:duration|goid|inode|cpu_ns|runq_ns|minflt|nvcsw|nivcsw)=\d+", None),
    (r"build_id=[0-9a-f]+", "build_id=[0-9a-f]+"),
    (r"\bpid \d+", r"pid \d+"),
    (r"\b[0-9a-f]{8,}\b", "[0-9a-f]+"),  # addresses and build-ids in tables
    (r"\s+", r"\s+"),
]


def pattern(shown):
    """A regex for a shown line."""
    split = "(" + "|".join(v for v, _ in VARIES) + ")"
    rx = ""
    for p in re.split(split, shown):
        for v, r in VARIES:
            if p and re.fullmatch(v, p):
                rx += r if r else re.escape(p.split("=")[0]) + r"=\d+"
                break
        else:
            rx += re.escape(p)
    return re.compile(rx + r"\s*$")


def bounded(cmd):
    build = os.environ.get("README_BUILD")
    if build and build != "build":
        cmd = re.sub(r"(^|[\s'(])(\./)?build/", lambda m: m.group(1) + build + "/", cmd)
    if re.search(r"\bptap record\b.* -p \$!", cmd) and "--duration" not in cmd:
        cmd = cmd.replace(" -p $!", " --duration 2 -p $!")
    return cmd


def run(cmd, work):
    """Runs CMD with bash from the top of the tree: (exit status, stdout+stderr)."""
    p = subprocess.run(["timeout", str(TIMEOUT), "bash", "-c", cmd + "\nst=$?\n" +
                        "jobs -p | xargs -r kill 2>/dev/null\nexit $st"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       cwd=os.getcwd(), env=dict(os.environ, TMPDIR=work))
    return p.returncode, p.stdout.decode("utf-8", "replace")


def examples(lines):
    """[(line number, [commands], [shown lines])]: each group of commands run
    together (one bash), and the lines it must print."""
    out = []
    bl = blocks(lines)
    for k, (start, body, prose) in enumerate(bl):
        first = next((l for l in body if l.strip() and not l.lstrip().startswith("#")), "")
        if first.startswith("$ "):
            cmds, shown = [], []
            for line in body:
                if line.startswith("$ "):
                    if cmds or shown:
                        out.append((start + 1, cmds, shown))
                    cmds, shown = [bounded(line[2:])], []
                elif cmds and cmds[-1].endswith("\\"):
                    cmds[-1] = bounded(cmds[-1][:-1] + " " + line.strip())
                elif line.strip():
                    shown.append(line)
            out.append((start + 1, cmds, shown))
        elif any("./build/ptap" in l and not l.lstrip().startswith("#") for l in body):
            shown = []
            text = " ".join(l.strip() for l in prose if l.strip())
            if k + 1 < len(bl) and "prints" in text and len(text) < 400:
                shown = [l for l in bl[k + 1][1] if l.strip()]
            # the lines of a block run in one shell: a `&` job and its `$!`
            out.append((start + 1, [bounded(c) for c in joined(body)], shown))
    return out


def main():
    readme, work = sys.argv[1], sys.argv[2]
    lines = open(readme, encoding="utf-8").read().split("\n")
    bad = 0
    exs = examples(lines)
    for lineno, cmds, shown in exs:
        script = "\n".join("%s\nst=$?; [ $st = 0 ] || echo \"README-EXIT $st: %s\"" %
                           (c, c.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
                            .replace("`", "\\`"))
                           for c in cmds)
        st, got = run(script, work)
        printed = got.split("\n")
        fails = [l for l in printed if l.startswith("README-EXIT ")]
        if st == 124:
            fails.append("timed out after %d s" % TIMEOUT)
        for s in shown:
            if s.strip() == "...":
                continue
            rx = pattern(s)
            if not any(rx.match(p) for p in printed):
                fails.append("does not print: " + s)
        if fails:
            bad += 1
            print("README.md:%d: %s" % (lineno, " ; ".join(cmds)))
            for f in fails:
                print("    " + f)
            print("  it printed:")
            for p in printed[:40]:
                print("    | " + p)
        else:
            print("README.md:%d: ok (%d command%s, %d line%s checked)" %
                  (lineno, len(cmds), "" if len(cmds) == 1 else "s",
                   len(shown), "" if len(shown) == 1 else "s"))
    print("%d examples, %d failed" % (len(exs), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

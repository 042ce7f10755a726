# samples/gdb_stacks.py: gdb's backtraces at each call of a function, one
# line a frame ("FUNC BASENAME:LINE", " inlined" for an inlined one), up to
# main, then a blank line.  Frames gdb makes up for tail calls (from DWARF's
# call sites: no return address of theirs is on the stack) are left out.  Run as:
#   GDBS_FUNC=leaf GDBS_OUT=FILE gdb -batch -x samples/gdb_stacks.py --args PROG ARG...
# The breakpoint is at the function's first instruction (break *FUNC), where
# ptap's probe on FUNC is.
import os
import gdb

out = open(os.environ["GDBS_OUT"], "w")
gdb.execute("set pagination off")
gdb.execute("set breakpoint pending on")
gdb.execute("break *" + os.environ["GDBS_FUNC"])


def frame_line(f):
    name = f.name() or "[unknown]"
    sal = f.find_sal()
    where = ""
    if sal.symtab is not None and sal.line:
        where = " %s:%d" % (os.path.basename(sal.symtab.filename), sal.line)
    kind = " inlined" if f.type() == gdb.INLINE_FRAME else ""
    return name + where + kind


gdb.execute("run")
while True:
    try:
        f = gdb.newest_frame()
    except gdb.error:
        break   # the program exited
    while f is not None:
        if f.type() != gdb.TAILCALL_FRAME:
            out.write(frame_line(f) + "\n")
        if f.name() == "main":
            break
        f = f.older()
    out.write("\n")
    out.flush()
    try:
        gdb.execute("continue")
    except gdb.error:
        break
out.close()

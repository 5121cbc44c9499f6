# SPDX-License-Identifier: LGPL-2.1-or-later
"""python3 -m pidspawn [-m module | prog.py] args...

Runs the program (a script, or a module with -m) as python3 would, with
pidspawn.install() in effect: its subprocess children are made by
libpidspawn.  Children that are Python programs themselves get
PIDSPAWN_PYTHON=1 in their environment only if the program passes it.
"""
import os
import runpy
import sys

import pidspawn


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help") or \
            (argv[1] == "-m" and len(argv) < 3):
        sys.stderr.write("usage: python3 -m pidspawn [-m module | prog.py] "
                         "[args...]\n")
        return 2
    pidspawn.install()
    if argv[1] == "-m":
        sys.argv = argv[2:]
        sys.path[0] = os.getcwd()
        runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv[1:]
        sys.path[0] = os.path.dirname(os.path.abspath(argv[1]))
        runpy.run_path(argv[1], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

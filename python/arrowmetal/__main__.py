"""Compiler and linker flags for C programs that use the library this package ships.

    cc prog.c $(python -m arrowmetal --cflags --libs) -o prog

--cflags   -I<directory of arrowmetal.h>
--libs     -L<directory of libarrowmetal> -larrowmetal -Wl,-rpath,<that directory>
--includedir, --libdir   the directories alone

The flags name the copy the package loads (arrowmetal.library_path) and the
header it binds: both in the package directory once installed; in a source
tree the header is include/arrowmetal.h. Without arguments: usage, exit 2.
"""

import argparse
import os
import shlex
import sys

from ._capi import header_path, library_path


def include_dir():
    return os.path.dirname(os.path.abspath(header_path))


def lib_dir():
    return os.path.dirname(os.path.abspath(library_path))


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m arrowmetal",
        description="Prints the flags to compile and link a C program against the "
        "ArrowMetal library this Python package ships, in the order asked.",
    )
    parser.add_argument(
        "--cflags", dest="items", action="append_const", const="cflags", help="-I<includedir>"
    )
    parser.add_argument(
        "--libs",
        dest="items",
        action="append_const",
        const="libs",
        help="-L<libdir> -larrowmetal -Wl,-rpath,<libdir>",
    )
    parser.add_argument(
        "--includedir",
        dest="items",
        action="append_const",
        const="includedir",
        help="the directory of arrowmetal.h",
    )
    parser.add_argument(
        "--libdir",
        dest="items",
        action="append_const",
        const="libdir",
        help="the directory of libarrowmetal",
    )
    return parser


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.items:
        parser.print_usage(sys.stderr)
        return 2
    words = []
    for item in args.items:
        if item == "cflags":
            words.append("-I" + include_dir())
        elif item == "libs":
            # The rpath lets the program find the library where the package
            # keeps it, without LD_LIBRARY_PATH / DYLD_LIBRARY_PATH.
            words += ["-L" + lib_dir(), "-larrowmetal", "-Wl,-rpath," + lib_dir()]
        elif item == "includedir":
            words.append(include_dir())
        else:
            words.append(lib_dir())
    print(" ".join(shlex.quote(w) for w in words))
    return 0


if __name__ == "__main__":
    sys.exit(main())

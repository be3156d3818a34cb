"""Compiler and linker flags for C programs that use the library this package ships.

    cc prog.c $(python -m arrowmetal --cflags --libs) -o prog

--cflags   -I<directory of arrowmetal.h>
--libs     <path of libarrowmetal> -Wl,-rpath,<its directory>
--includedir, --libdir   the directories alone
--pkgconfigdir   the directory of the package's arrowmetal.pc (installed
                 packages only): PKG_CONFIG_PATH=$(python -m arrowmetal --pkgconfigdir)

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


def pkgconfig_dir():
    """The directory of the arrowmetal.pc that an installed package (a wheel)
    holds beside its library; None in a source tree, which has none."""
    directory = lib_dir()
    return directory if os.path.isfile(os.path.join(directory, "arrowmetal.pc")) else None


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
        help="<libdir>/libarrowmetal.so.0 -Wl,-rpath,<libdir>",
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
    parser.add_argument(
        "--pkgconfigdir",
        dest="items",
        action="append_const",
        const="pkgconfigdir",
        help="the directory of arrowmetal.pc (installed packages)",
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
            # The library by path: an installed package holds only its
            # versioned file (libarrowmetal.so.0), which -l cannot name.
            words += [os.path.abspath(library_path), "-Wl,-rpath," + lib_dir()]
        elif item == "includedir":
            words.append(include_dir())
        elif item == "libdir":
            words.append(lib_dir())
        else:
            directory = pkgconfig_dir()
            if directory is None:
                print(
                    f"python -m arrowmetal: no arrowmetal.pc beside {library_path}: a source "
                    "tree has none; `make install PREFIX=...` writes one, and so does a wheel",
                    file=sys.stderr,
                )
                return 1
            words.append(directory)
    print(" ".join(shlex.quote(w) for w in words))
    return 0


if __name__ == "__main__":
    sys.exit(main())

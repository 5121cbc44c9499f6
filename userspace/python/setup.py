# SPDX-License-Identifier: LGPL-2.1-or-later
"""The C part of pidspawn, linked with libpidspawn.a of ../lib.

The library is built by userspace/Makefile (make -C .. build/lib/libpidspawn.a)
and linked in statically, its symbols kept inside the module; pidspawn.pth
goes to site-packages beside the package (see pidspawn/__init__.py).
"""
import os
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
USERSPACE = os.path.dirname(HERE)
LIBRARY = os.path.join(USERSPACE, "build", "lib", "libpidspawn.a")


class BuildExt(build_ext):
    def run(self):
        subprocess.check_call(["make", "-s", "-C", USERSPACE,
                               "build/lib/libpidspawn.a"])
        super().run()


class BuildPy(build_py):
    def run(self):
        super().run()
        self.copy_file(os.path.join(HERE, "pidspawn.pth"),
                       os.path.join(self.build_lib, "pidspawn.pth"))


setup(
    ext_modules=[
        Extension(
            "pidspawn._pidspawn",
            sources=["_pidspawn.c"],
            include_dirs=[os.path.join(USERSPACE, "include")],
            extra_objects=[LIBRARY],
            libraries=["pthread"],
            extra_link_args=["-Wl,--exclude-libs,ALL"],
            depends=[LIBRARY, os.path.join(USERSPACE, "include", "pidspawn.h")],
        ),
    ],
    cmdclass={"build_ext": BuildExt, "build_py": BuildPy},
)

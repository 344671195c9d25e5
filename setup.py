"""`pip install --no-build-isolation .`: builds the leasehold Python module with CMake.

Uses only Debian's packages (python3-setuptools, pybind11-dev, cmake): setuptools drives a
CMake build of the `leasehold_python` target and copies the extension into the package."""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class cmake_extension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class cmake_build(build_ext):
    def build_extension(self, ext):
        build_dir = Path(self.build_temp).resolve() / "cmake"
        build_dir.mkdir(parents=True, exist_ok=True)
        subprocess.check_call(
            [
                "cmake", "-S", str(ROOT), "-B", str(build_dir),
                "-DCMAKE_BUILD_TYPE=Release",
                f"-DPython_EXECUTABLE={sys.executable}",
                "-DLEASEHOLD_BUILD_PYTHON=ON",
                "-DLEASEHOLD_BUILD_TESTS=OFF",
                "-DLEASEHOLD_BUILD_BENCHMARKS=OFF",
                "-DLEASEHOLD_BUILD_EXAMPLES=OFF",
                "-DLEASEHOLD_BUILD_C=OFF",
                "-DLEASEHOLD_BUILD_FLUX_PLANNER=OFF",
                "-DLEASEHOLD_INSTALL=OFF",
            ]
        )
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        subprocess.check_call(
            ["cmake", "--build", str(build_dir), "--target", "leasehold_python", "-j", jobs]
        )
        built = next((build_dir / "python" / "leasehold").glob("_leasehold*.so"))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        self.copy_file(str(built), str(target))


setup(
    name="leasehold",
    version="0.1.0",
    description="Planning-based resource management: availability profiles and Haizea's "
    "lease scheduler from the header-only C++20 library",
    packages=["leasehold"],
    package_dir={"leasehold": "bindings/python/leasehold"},
    package_data={"leasehold": ["*.pyi", "py.typed"]},
    ext_modules=[cmake_extension("leasehold._leasehold")],
    cmdclass={"build_ext": cmake_build},
    python_requires=">=3.9",
    zip_safe=False,
)

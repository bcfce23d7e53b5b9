"""Builds the pool driver, a runtime driver plugin, against numlir's runtime headers.

It is a plain shared object the runtime dlopens (nlrt_plugin_init), built with
setuptools' extension machinery only for its compiler and file naming; Python never
imports it. Build with ``pip install --no-build-isolation``, so that numlir (which
gives the headers) is importable here.
"""

from setuptools import Extension, setup

import numlir.backends

setup(ext_modules=[Extension(
    "numlir_pool_backend._pool_driver",
    sources=["numlir_pool_backend/pool_driver.c"],
    include_dirs=[numlir.backends.runtime_include_dir()],
    extra_compile_args=["-std=c11", "-Wall", "-Wextra"],
)])
